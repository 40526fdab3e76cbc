// The reporters of `ngx predict`: a kind's Predictions (ngx/model_kind.hpp)
// as a table (the default), as JSON (--format json: predictions_json's
// document with the kind's "about", "summary" and "notes") or as CSV
// (--format csv), the same for every kind. The table and the CSV have the
// columns that some prediction of the list has, in one fixed order, each
// named with its unit (time_us, d_us).
#ifndef NGX_TOOLS_PREDICTION_REPORT_HPP
#define NGX_TOOLS_PREDICTION_REPORT_HPP

#include <ngx/model_kind.hpp>

#include <string>

namespace ngx {

enum class PredictionFormat { table, json, csv };

// "table", "json" or "csv" (--format; absent: table).
PredictionFormat prediction_format(const std::string& name);

// The notes as "# ..." lines, then a header and one aligned line per prediction.
std::string prediction_table(const Predictions& predictions);
// {"model", "op", about..., "predictions", summary..., "notes" (when there are any)}.
Json prediction_document(const std::string& model, const std::string& op, const Predictions& predictions);
// A header and one line per prediction; numbers as JSON writes them, NaN and empty fields as empty cells.
std::string prediction_csv(const Predictions& predictions);

// What `ngx predict` prints on stdout in `format` (a kind's text as it is).
std::string prediction_report(PredictionFormat format, const std::string& model, const std::string& op,
                              const Predictions& predictions);

} // namespace ngx

#endif
