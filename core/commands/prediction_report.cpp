// The reporters of `ngx predict` (see prediction_report.hpp).
#include "prediction_report.hpp"

#include "table_report.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

namespace ngx {
namespace {

// One column of the table and the CSV: its header (with its unit), what the
// table shows where a prediction has none ("-" for a time the model cannot
// predict, else nothing), and its cell of a prediction, null where none.
struct Column {
    const char* header;
    bool number; // right-aligned in the table
    const char* null_text;
    std::function<Json(const Prediction&)> cell;
};

// A number's cell: null for NaN (no value), an infinity kept (the renderer writes "inf").
Json number_cell(double value)
{
    return std::isnan(value) ? Json() : Json(value);
}

Column number_column(const char* header, double Prediction::*field)
{
    return {header, true, "", [field](const Prediction& p) { return number_cell(p.*field); }};
}

Column text_column(const char* header, std::string Prediction::*field)
{
    return {header, false, "", [field](const Prediction& p) { return (p.*field).empty() ? Json() : Json(p.*field); }};
}

// How far the prediction is from the measurement, in percent of it.
Json error_cell(const Prediction& p)
{
    if (!std::isfinite(p.time_us) || !(p.measured_us > 0))
        return Json();
    return number_cell(100 * (p.time_us - p.measured_us) / p.measured_us);
}

const std::vector<Column>& all_columns()
{
    static const std::vector<Column> columns = {
        text_column("model", &Prediction::model),
        text_column("variant", &Prediction::variant),
        text_column("op", &Prediction::op),
        text_column("tier", &Prediction::tier),
        text_column("algorithm", &Prediction::algorithm),
        number_column("bytes", &Prediction::bytes),
        number_column("P", &Prediction::processes),
        number_column("n", &Prediction::messages),
        number_column("d_us", &Prediction::delay_us),
        number_column("stride", &Prediction::stride),
        number_column("k", &Prediction::pairs),
        {"time_us", true, "-", [](const Prediction& p) { return number_cell(p.time_us); }},
        number_column("measured_us", &Prediction::measured_us),
        {"error_pct", true, "", error_cell},
    };
    return columns;
}

// The predictions as a table of the columns some prediction has a value in
// (time_us always: "-" where the model cannot predict), under the notes.
Table predictions_table(const Predictions& predictions)
{
    Table table{.notes = predictions.notes};
    const std::vector<Prediction>& rows = predictions.rows;
    std::vector<const Column*> present;
    for (const Column& column : all_columns()) {
        const bool any = *column.null_text != '\0' || std::any_of(rows.begin(), rows.end(), [&](const Prediction& p) {
            return !column.cell(p).is_null();
        });
        if (any && !rows.empty()) {
            present.push_back(&column);
            table.columns.push_back({column.header, column.number, column.null_text});
        }
    }
    for (const Prediction& p : rows) {
        table.rows.emplace_back();
        for (const Column* column : present)
            table.rows.back().push_back(column->cell(p));
    }
    return table;
}

} // namespace

PredictionFormat prediction_format(const std::string& name)
{
    if (name == "json")
        return PredictionFormat::json;
    return name == "csv" ? PredictionFormat::csv : PredictionFormat::table;
}

std::string prediction_table(const Predictions& predictions)
{
    return table_text(predictions_table(predictions));
}

Json prediction_document(const std::string& model, const std::string& op, const Predictions& predictions)
{
    const Json base = predictions_json(model, op, predictions.rows);
    Json document = {{"model", base["model"]}, {"op", base["op"]}};
    for (const auto& [key, value] : predictions.about.items())
        document[key] = value;
    document["predictions"] = base["predictions"];
    for (const auto& [key, value] : predictions.summary.items())
        document[key] = value;
    if (!predictions.notes.empty())
        document["notes"] = predictions.notes;
    return document;
}

std::string prediction_csv(const Predictions& predictions)
{
    return table_csv(predictions_table(predictions));
}

std::string prediction_report(PredictionFormat format, const std::string& model, const std::string& op,
                              const Predictions& predictions)
{
    if (!predictions.text.empty())
        return predictions.text;
    if (format == PredictionFormat::json)
        return prediction_document(model, op, predictions).dump(2) + "\n";
    if (format == PredictionFormat::csv)
        return prediction_csv(predictions);
    return prediction_table(predictions);
}

} // namespace ngx
