// Model kinds: what `ngx predict` knows about a model (LogGP, LogGPS, log3P,
// max-rate, LoGH{sS}P, or one a plugin brings). A kind declares its name, its
// parameters (name, unit, meaning), the operations it predicts with the
// common options each one reads, how its model is read from a saved file
// (and written alone: `ngx predict --save-model`) and how it predicts.
// Patterns bring the kinds they feed (PatternInfo::models); the core
// gathers them into one registry at load and knows no kind by name.
//
// Every kind takes the same options, declared once (predict_option_specs):
// --params, --module, --op, -s, -P, -n, -d, --stride, -k, --tier,
// --algorithm, --gamma, --segment, --element, --extrapolate, --format,
// --save-model. A
// kind may add options of its own (ModelKind::options). `ngx predict` refuses
// an option the chosen --op does not read, and an --op the kind does not
// predict, before the kind's predict runs.
//
// Why here and not in fit/: fit/ is pure math without JSON or I/O, built as a
// static library and not installed, while a kind must be declared by
// out-of-tree pattern plugins against the installed headers and reads its
// saved parameters from JSON. The equations stay in fit/ (fit/loggp.hpp,
// fit/loggps.hpp, fit/log3p.hpp, fit/maxrate.hpp, fit/loghssp.hpp); a kind is
// the thin declaration that ties them to the files and the options.
//
//     ModelKind postal{.name = "postal", .description = "T(s) = a + b s",
//                      .parameters = {{"a_us", "us", "fixed cost"}, {"b_us_per_byte", "us/B", "cost per byte"}},
//                      .ops = {{"pingpong", "one message of -s bytes", {"size"}}},
//                      .load = [](const std::string& path, const std::string& module) { ... return model; },
//                      .predict = [](const Json& model, const PredictRequest& r) { ... return 0; }};
#ifndef NGX_MODEL_KIND_HPP
#define NGX_MODEL_KIND_HPP

#include <ngx/options.hpp>
#include <ngx/record.hpp>
#include <ngx/status.hpp>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace ngx {

// One fitted parameter of a model, as its saved JSON names it.
struct ModelParameter {
    std::string name;    // "L_us"
    std::string unit;    // "us"
    std::string meaning; // "latency"
};

// One operation a model predicts and the common options it reads (by their
// long names: "size", "processes", ...); --params, --module, --op, --format
// and --help go with every operation.
struct ModelOp {
    std::string name;    // "pingpong"
    std::string meaning; // "half round trip of one message of -s bytes"
    std::vector<std::string> options{};
};

// What `ngx predict` hands a kind: the file, the operation (checked against
// the kind's ops) and the options as given (no defaults filled in: a kind
// applies its own), common ones and the kind's own alike.
struct PredictRequest {
    std::string params; // the file named by --params
    std::string module; // --module, "" when absent
    std::string op;
    OptionValues values;
    bool json = false; // --format json: the kind prints predictions_json(...), not its table
};

// One predicted number. Fields a prediction has no use for stay NaN / empty
// and are left out of its JSON.
struct Prediction {
    std::string model;     // the kind's name
    std::string variant{}; // a kind of several forms: which one ("postal", "maxrate3")
    std::string op;
    double bytes = NAN;
    double processes = NAN;
    double messages = NAN;
    double delay_us = NAN;
    double stride = NAN;
    double pairs = NAN;
    std::string tier{};
    std::string algorithm{};
    double time_us = NAN; // NaN: the model cannot predict it (null in JSON)
};

struct ModelKind {
    std::string name;
    std::string description;
    std::vector<ModelParameter> parameters;
    std::vector<ModelOp> ops;
    // Its model in a saved file (a run, a document of runs of which `module`
    // picks one, or a model file), checked; a usage error names what is wrong.
    std::function<Result<Json>(const std::string& path, const std::string& module)> load;
    // Prints the predictions of the loaded model asked for (its table, or
    // predictions_json with --format json) and returns the exit code; a usage
    // error is exit 2 with "ngx predict: ..." on stderr.
    std::function<int(const Json& model, const PredictRequest&)> predict;
    // Optional: options of its own beyond the common ones (log3P's --loggp FILE).
    std::vector<opt::OptionSpec> options{};
    // Optional: the "kind" its saved models carry when that is not `name`.
    std::string saved_kind{};
    // Optional: the model as `ngx predict --save-model` writes it (under
    // "model" of a document naming the pattern), which `load` must read back
    // to the same predictions; unset: the loaded model as it is.
    std::function<Json(const Json& model)> save{};
    // Optional: the operation when --op is absent, from the other options
    // ("" or unset: --op is required).
    std::function<std::string(const OptionValues&)> implied_op{};
};

// The options every kind takes, declared once.
std::vector<opt::OptionSpec> predict_option_specs();

// {"model": ..., "op": ..., "predictions": [{model, op, bytes, P, ..., time_us}, ...]}
Json predictions_json(const std::string& model, const std::string& op, const std::vector<Prediction>& predictions);
Json prediction_json(const Prediction& prediction);

// The value of a common option as given, or `fallback` when absent (a kind's
// own default), for reading with an opt::Reader.
OptionValues with_defaults(OptionValues values, const OptionValues& defaults);

} // namespace ngx

#endif
