// Model kinds: what `ngx predict` knows about a model (LogGP, LogGPS, log3P,
// max-rate, LoGH{sS}P, or one a plugin brings). A kind declares its name, its
// parameters (name, unit, meaning), the operations it predicts with the
// common options each one reads, how its model is read from a saved file
// (and written alone: `ngx predict --save-model`) and how it predicts: its
// predict returns the predictions as data (Predictions), which the core
// prints with one reporter per --format (table, json, csv; see
// core/commands/prediction_report.hpp), or an error, which the core prints
// as "ngx predict: ..." with its exit code (a usage error: 2).
// Patterns bring the kinds they feed (PatternInfo::models); the core
// gathers them into one registry at load and knows no kind by name.
//
// Every kind takes the same options, declared once as typed rows
// (predict_option::): --params, --module, --op, -s, -P, -n, -d, --stride, -k,
// --tier, --algorithm, --gamma, --segment, --element, --extrapolate,
// --contention, --switches, --format, --save-model, each of one type for every kind: -s is a list of
// sizes (one byte count is a list of one), -P a list of counts; an
// operation of one message reads them with read_one(), which refuses a
// list of several. A kind reads them through these rows (an opt::Reader
// over predict_table()) and may add options of its own (ModelKind::options). `ngx predict` refuses
// an option the chosen --op does not read, and an --op the kind does not
// predict, before the kind's predict runs.
//
// This header is the ABI a kind is declared with (the core's registry
// gathers kinds and knows none by name). The built-in kinds are defined in
// the models room, each in its model's folder with its equations, fit and
// JSON (models/loggp/loggp_offline.hpp, models/loggps/loggps_offline.hpp,
// models/maxrate/maxrate_offline.hpp, models/log3p/log3p_offline.hpp,
// models/loghssp/loghssp_offline.hpp); a pattern lists the kinds it feeds.
//
//     ModelKind postal{.name = "postal", .description = "T(s) = a + b s",
//                      .parameters = {{"a_us", "us", "fixed cost"}, {"b_us_per_byte", "us/B", "cost per byte"}},
//                      .ops = {{"pingpong", "one message of -s bytes", {"size"}}},
//                      .load = [](const std::string& path, const std::string& module) { ... return model; },
//                      .predict = [](const Json& model, const PredictRequest& r) -> Result<Predictions> {
//                          ... return Predictions{.rows = {{.model = "postal", .op = r.op, .bytes = s,
//                                                           .time_us = a + b * s}}};
//                      }};
#ifndef NGX_MODEL_KIND_HPP
#define NGX_MODEL_KIND_HPP

#include <ngx/options.hpp>
#include <ngx/record.hpp>
#include <ngx/sizes.hpp>
#include <ngx/status.hpp>

#include <cmath>
#include <functional>
#include <optional>
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
    OptionValues values; // --format among them: the core's choice of reporter, which no kind reads
};

// One predicted number. Fields a prediction has no use for stay NaN / empty
// and are left out of its JSON, of the table and of the CSV.
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
    double time_us = NAN;     // NaN: the model cannot predict it (null in JSON)
    double measured_us = NAN; // a measurement the prediction is compared with (log3p's --compare-to)
};

// What a kind's predict returns: its predictions and what a reader should
// know beside them, as data; the core prints them in the --format asked for.
struct Predictions {
    std::vector<Prediction> rows;
    // Context lines: "# ..." above the table, "notes" in JSON (the CSV has the rows alone).
    std::vector<std::string> notes{};
    // Printed on stderr as "ngx predict: warning: ...", whatever the format.
    std::vector<std::string> warnings{};
    // Further fields of the JSON document: `about` after "model" and "op"
    // (what the predictions assume), `summary` after "predictions" (what is
    // derived from them); each an object, empty when the kind has none.
    Json about = Json::object();
    Json summary = Json::object();
    // An operation that predicts nothing (loggp's --export loggopsim): the
    // text to print as it is, whatever --format; rows and notes are ignored.
    std::string text{};
};

struct ModelKind {
    std::string name;
    std::string description;
    std::vector<ModelParameter> parameters;
    std::vector<ModelOp> ops;
    // Its model in a saved file (a run, a document of runs of which `module`
    // picks one, or a model file), checked; a usage error names what is wrong.
    std::function<Result<Json>(const std::string& path, const std::string& module)> load;
    // The predictions of the loaded model that the request asks for, or why
    // there are none (a usage error: exit 2 with "ngx predict: ..." on
    // stderr). It prints nothing: the core prints what it returns.
    std::function<Result<Predictions>(const Json& model, const PredictRequest&)> predict;
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

// The options every kind takes, declared once. None has a default here (a
// kind applies its own: with_defaults), so that an option given is one the
// user gave.
namespace predict_option {
inline constexpr uint64_t max_bytes = uint64_t(1) << 40; // the largest size a kind predicts (max-rate: 1 TiB)
inline constexpr auto params = opt::row::text("params", opt::no_default, "the saved run or model file to predict from");
inline constexpr auto module =
    opt::row::text("module,m", opt::no_default, "the run whose model to use, when the file holds several");
inline constexpr auto op =
    opt::row::text("op", opt::no_default, "the operation (`ngx predict --params FILE --help` lists the model's)");
inline constexpr auto size = opt::row::list("size,s", opt::no_default, 0, max_bytes, true,
                                            "message size, e.g. 4Ki (collectives: also a range 8-1Mi or a list)");
inline constexpr auto processes =
    opt::row::list("processes,P", opt::no_default, 1, uint64_t(1) << 30, false,
                   "processes (default 2; collectives: also a range 4-64 or a list 4,16,64)");
inline constexpr auto messages =
    opt::row::whole_number("messages,n", opt::no_default, 1, 1u << 20, "n of PRTT(n,d,s) (default 16)");
inline constexpr auto delay =
    opt::row::number("delay,d", opt::no_default, 0, 1e9, "d of PRTT(n,d,s), microseconds (default 0)");
inline constexpr auto stride = opt::row::byte_count("stride", opt::no_default, 1, uint64_t(1) << 24,
                                                    "stride in elements of the run's type (default 1: contiguous)");
inline constexpr auto pairs =
    opt::row::whole_number("pairs,k", opt::no_default, 1, 4096, "concurrent pairs k between two nodes");
inline constexpr auto tier =
    opt::row::choice("tier", opt::no_default, {"intra", "inter"}, "within a node (intra) or between nodes (inter)");
inline constexpr auto algorithm =
    opt::row::text("algorithm", opt::no_default, "collectives: one algorithm, auto (Open MPI 4.1's choice) or all");
inline constexpr auto gamma = opt::row::number(
    "gamma", opt::no_default, 0, 1e6, "collectives: reduction cost, us per byte (default: the file's, else 0)");
inline constexpr auto segment = opt::row::byte_count("segment", opt::no_default, 1, max_message_bytes,
                                                     "collectives: segment of the pipelined bcast (default 64Ki)");
inline constexpr auto element =
    opt::row::byte_count("element", opt::no_default, 1, 1024, "collectives: datatype size in bytes (default 8)");
inline constexpr auto extrapolate =
    opt::row::flag("extrapolate", "collectives: price messages beyond the largest measured size");
inline constexpr auto contention =
    opt::row::text("contention", opt::no_default,
                   "collectives: a congestion run across a shared uplink: add the delay of the messages that cross it "
                   "together (with --switches)");
inline constexpr auto switches =
    opt::row::text("switches", opt::no_default,
                   "collectives: each rank's switch, 0 or 1, in rank order (\"0,0,1,1\"; with --contention)");
inline constexpr auto format =
    opt::row::choice("format", opt::no_default, {"table", "json", "csv"}, "what to print (default table)");
inline constexpr auto save_model = opt::row::output_file(
    "save-model", "write the model alone to FILE (JSON), which --params reads back; without --op nothing is predicted");
inline constexpr auto help =
    opt::row::flag("help,h", "show this help (with --params: the model's parameters and operations)");
} // namespace predict_option

// Every common option's row; a kind adds its own (ModelKind::options) to read them.
opt::Table predict_table(const std::string& owner = "ngx predict");
std::vector<opt::OptionSpec> predict_option_specs();

// The one value an operation of one message takes from a list row (-s,
// -P): absent -> nullopt without an error; a list of several, or a value
// outside min..max, is an error on `read` in the one format.
std::optional<uint64_t> read_one(opt::Reader& read, const opt::Option<std::vector<uint64_t>>& row,
                                 const std::string& op, uint64_t min, uint64_t max);

// {"model": ..., "op": ..., "predictions": [{model, op, bytes, P, ..., time_us}, ...]}
// (`ngx predict --format json` adds a kind's Predictions::about, summary and notes).
Json predictions_json(const std::string& model, const std::string& op, const std::vector<Prediction>& predictions);
Json prediction_json(const Prediction& prediction);

// The value of a common option as given, or `fallback` when absent (a kind's
// own default), for reading with an opt::Reader.
OptionValues with_defaults(OptionValues values, const OptionValues& defaults);

} // namespace ngx

#endif
