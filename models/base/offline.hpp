// The loggp pattern's offline hooks: `ngx fit FILE` re-fits saved PRTT
// medians (its raw CSV or a saved loggp JSON run) exactly as the live
// pattern fits them, and the loggp model kind (ngx/model_kind.hpp) answers
// `ngx predict --params FILE.json`: "what would this cost" from a saved
// LogGP model, or its export for LogGOPSim.
#ifndef NGX_PATTERNS_LOGGP_OFFLINE_HPP
#define NGX_PATTERNS_LOGGP_OFFLINE_HPP

#include <ngx/command_line.hpp>
#include <ngx/model_kind.hpp>
#include <ngx/options.hpp>
#include <ngx/pattern.hpp>
#include <ngx/reporter.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ngx::patterns {

int fit_offline(const CommandArguments& arguments);
ModelKind loggp_model_kind();

// Whether `ngx fit` should hand a non-JSON file to loggp: always (the raw-PRTT
// CSV is the only raw file of a fit hook; its reader says what is wrong).
bool reads_prtt_csv(const std::string& first_line);

// Shared with the loggps pattern's hooks.
// "ngx COMMAND: message" on stderr; the exit code of the status.
int fail(const char* command, const Status& status);
// A JSON object from `path`, or a usage error naming the file.
Result<Json> read_json_document(const std::string& path);
// Parses a subcommand's arguments into `values`; an exit code when it is
// done already (a usage error, or --help printed with `usage`).
std::optional<int> parse_command(const char* command, const CommandArguments& arguments,
                                 const std::vector<opt::OptionSpec>& specs, const char* bare, const std::string& usage,
                                 OptionValues& values);
// The saved model: a document's own "model", or that of its one run with a
// model (of `module`, when the document holds several).
Result<Json> saved_model(const std::string& path, const std::string& module = "");
// The operations LogGP and LogGPS predict alike: pingpong, prtt,
// bcast-linear, bcast-tree and the collectives, with the options each reads.
std::vector<ModelOp> point_to_point_and_collective_ops();
// A kind's request with its defaults filled in (-P 2, -n 16, -d 0, the
// collectives' segment and element) and --op, for an opt::Reader of predict_options().
OptionValues predict_values(const ngx::PredictRequest& request);
struct PointRequest {
    std::string op; // pingpong, prtt, bcast-linear, bcast-tree
    double size = 1, processes = 2, messages = 16, delay_us = 0;
};
// The JSON row of one point-to-point prediction of `model`.
Prediction point_prediction(const std::string& model, const PointRequest& request, double time_us);
// ngx predict's common rows (predict_table(): --op, -s, -P, -n, -d, the
// collectives') and --module: one table for a kind's reader of ngx
// predict's options. `kind` names it in messages.
opt::Table predict_options(const std::string& kind);
Result<PointRequest> read_predict_request(opt::Reader& read); // read's table: predict_options()
// A re-fitted document to the chosen outputs, as the live run reports.
Status write_offline_document(const Document& document, const OutputChoice& outputs);

} // namespace ngx::patterns

#endif
