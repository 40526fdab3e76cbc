// The loggp model's offline hooks (see loggp_offline.hpp).
#include <models/loggp/loggp_offline.hpp>

#include <models/base/offline.hpp>
#include <models/collectives/collective_predict.hpp>
#include <models/loggp/loggopsim.hpp>
#include <models/loggp/loggp_model.hpp>
#include <models/loggp/prtt_file.hpp>

#include <ngx/reporter.hpp>
#include <ngx/saved_run.hpp>
#include <ngx/sizes.hpp>

#include <cmath>
#include <iomanip>
#include <limits>
#include <optional>
#include <sstream>

namespace ngx::patterns {

namespace {

constexpr auto export_row = opt::row::choice("export", opt::no_default, {"loggopsim"},
                                             "print the parameters for another tool instead: loggopsim");

// ngx fit's own options for a LogGP fit (the core adds the file, -o, --format and --help): the fit's, --export,
// --module.
opt::Table fit_table()
{
    opt::Table table("ngx fit (loggp)", {});
    table.add(fit_options());
    table.add(export_row);
    table.add(saved_module_row);
    return table;
}

Status check_export(opt::Reader& read)
{
    read.optional(export_row);
    return read.ok() ? Status::ok() : Status::usage(read.error());
}

SizeRecord offline_record(const fit::PrttSample& sample, double n, double rel_ci)
{
    constexpr double unknown = std::numeric_limits<double>::quiet_NaN();
    SizeRecord record;
    record.size_bytes = uint64_t(sample.size);
    record.summary.count = 0; // medians only: the samples behind them are not in the file
    record.summary.median = sample.prtt_1_0;
    record.summary.min = record.summary.max = record.summary.mean = unknown;
    record.summary.stddev = record.summary.p99 = unknown;
    record.extra = loggp_size_columns(sample, n);
    record.extra.emplace_back("rel_ci95", rel_ci);
    return record;
}

Document offline_document(const std::string& path, const PrttTable& table, const LogGPFitSettings& settings, Json model)
{
    Document document;
    document.context = {{"ngx_version", ngx_version()}, {"source", path}};
    RunRecord run;
    run.module = "offline";
    run.pattern = "loggp";
    run.metric = "PRTT(1,0,s) (medians from " + path + ")";
    Json pattern_options = fit_settings_json(settings);
    pattern_options["n"] = table.n;
    run.options = {{"source", path}, {"pattern_options", pattern_options}};
    for (size_t i = 0; i < table.samples.size(); ++i)
        run.sizes.push_back(
            offline_record(table.samples[i], table.n, i < table.rel_ci.size() ? table.rel_ci[i] : std::nan("")));
    run.model = std::move(model);
    run.status = "complete";
    document.runs.push_back(std::move(run));
    return document;
}

double predict(const fit::LogGPParams& params, const PointRequest& request)
{
    if (request.op == "pingpong")
        return params.half_rtt(request.size);
    if (request.op == "prtt")
        return params.prtt(request.messages, request.delay_us, request.size);
    if (request.op == "bcast-linear")
        return params.linear_bcast(request.processes, request.size);
    return params.tree_bcast(request.processes, request.size);
}

// The notes of a point prediction: the request, and the prediction with each
// protocol range's parameters, marking the range the size falls in.
std::vector<std::string> range_notes(const fit::LogGPParams& params, const PointRequest& request)
{
    const fit::LogGPRange* applies = params.range_for(request.size);
    std::ostringstream head;
    head << request.op << " of " << format_bytes(uint64_t(request.size));
    if (request.op.starts_with("bcast"))
        head << " to P = " << request.processes;
    if (request.op == "prtt")
        head << " with n = " << request.messages << ", d = " << request.delay_us << " us";
    head << ", predicted with each protocol range's parameters (microseconds):";
    std::vector<std::string> notes = {head.str()};
    for (const fit::LogGPRange& range : params.ranges) {
        fit::LogGPParams single;
        single.ranges = {range};
        std::ostringstream line;
        line << "  " << std::setw(10) << format_bytes(uint64_t(range.from_bytes)) << " .. " << std::setw(10)
             << format_bytes(uint64_t(range.to_bytes)) << "  " << std::setw(12) << predict(single, request)
             << (&range == applies ? "   <- the range this size falls in" : "");
        notes.push_back(line.str());
    }
    return notes;
}

Result<std::string> export_loggopsim(const Json& model)
{
    NGX_ASSIGN_OR_RETURN(const fit::LogGPParams params, loggp_params_from_model(model));
    return loggopsim_parameters(params);
}

} // namespace

bool reads_prtt_csv(const std::string&)
{
    // Every raw (non-JSON) file: the raw-PRTT CSV is the only raw format a fit
    // hook reads, and its reader names best what is wrong with any other file.
    return true;
}

Result<FitOutput> fit_offline(const FitRequest& request)
{
    opt::Reader read(fit_table(), request.values);
    NGX_TRY(check_export(read));
    NGX_ASSIGN_OR_RETURN(const std::string path, request.one_file());
    NGX_ASSIGN_OR_RETURN(PrttTable table, read_prtt_file(path, saved_module(read)));
    LogGPFitSettings settings = read_fit_settings(read, table.negative);
    NGX_ASSIGN_OR_RETURN(Json model, fit_loggp_model(table.samples, table.n, settings, table.rel_ci));
    if (read.given(export_row)) {
        NGX_ASSIGN_OR_RETURN(std::string text, export_loggopsim(model));
        return FitOutput{.exported = std::move(text)};
    }
    return FitOutput{.run = offline_document(path, table, settings, std::move(model))};
}

std::vector<opt::OptionSpec> loggp_fit_options()
{
    return fit_table().specs();
}

namespace {

bool is_stream_op(const std::string& op)
{
    return op == "stream-bw" || op == "stream-bibw" || op == "message-rate";
}

// A window of W messages (bw pattern): its time, bandwidth and message rate;
// k pairs (message-rate) do not share anything in LogGP: k times one pair's rate.
Result<Predictions> predict_stream(const fit::LogGPParams& params, opt::Reader& read,
                                   const ngx::PredictRequest& request)
{
    std::optional<uint64_t> size = read_one(read, predict_option::size, request.op, 1, max_message_bytes);
    double W = opt::find(request.values, predict_option::messages.long_name()) != nullptr
                   ? double(read(predict_option::messages))
                   : 64.0;
    double k = double(read.optional(predict_option::pairs).value_or(1));
    if (!read.ok())
        return Status::usage(read.error());
    if (!size)
        return Status::usage("-s/--size is required");
    double s = double(*size), ways = request.op == "stream-bibw" ? 2 : 1;
    double T = ways == 2 ? params.exchange_window(W, s) : params.stream_window(W, s);
    Prediction p{.model = "loggp", .op = request.op, .bytes = s, .messages = W, .time_us = T};
    if (request.op == "message-rate")
        p.pairs = k;
    std::ostringstream window, bandwidth, rate;
    window << request.op << ": windows of " << W << " messages of " << format_bytes(*size)
           << (ways == 2 ? " both ways" : "") << ", one 1-byte acknowledgement each (LogGP); time_us: one window";
    bandwidth << "bandwidth: " << ways * W * s / T << " MB/s (" << ways * W * s / T * 1e6 / 1048576.0 << " MiB/s)";
    rate << "message rate: " << ways * W * 1e6 / T << " per second";
    if (request.op == "message-rate")
        rate << " per pair, " << k * ways * W * 1e6 / T << " for " << k << " pairs";
    return Predictions{.rows = {p}, .notes = {window.str(), bandwidth.str(), rate.str()}};
}

// A range with a parameter below 0 is not LogGP: it reproduces the sizes it
// was fitted on (the fit keeps it only where no admissible model meets the
// goal), so ngx predict uses it, and warns that a prediction past those
// sizes or in a collective's schedule may have no physical reading.
std::vector<std::string> not_loggp_warnings(const fit::LogGPParams& params)
{
    std::vector<std::string> warnings;
    for (const fit::LogGPRange& range : params.ranges)
        if (std::string text = not_loggp_text(range); !text.empty())
            warnings.push_back("range " + format_bytes(uint64_t(range.from_bytes)) + " .. " +
                               format_bytes(uint64_t(range.to_bytes)) + ": " + text);
    return warnings;
}

Result<Predictions> predict_with(const fit::LogGPParams& params, const Json& model, opt::Reader& read,
                                 const ngx::PredictRequest& request)
{
    if (is_collective_op(request.op))
        return predict_collectives(read, loggp_collective_model(params, model));
    if (is_stream_op(request.op))
        return predict_stream(params, read, request);
    NGX_ASSIGN_OR_RETURN(const PointRequest point, read_predict_request(read));
    return Predictions{.rows = {point_prediction("loggp", point, predict(params, point))},
                       .notes = range_notes(params, point)};
}

Result<Predictions> predict_loggp(const Json& model, const ngx::PredictRequest& request)
{
    opt::Table table = predict_options("loggp");
    table.add(export_row);
    opt::Reader read(table, predict_values(request));
    NGX_TRY(check_export(read));
    if (request.op == "export") {
        NGX_ASSIGN_OR_RETURN(std::string text, export_loggopsim(model));
        return Predictions{.rows = {}, .text = std::move(text)};
    }
    NGX_ASSIGN_OR_RETURN(const fit::LogGPParams params, loggp_params_from_model(model));
    NGX_ASSIGN_OR_RETURN(Predictions predictions, predict_with(params, model, read, request));
    predictions.warnings = not_loggp_warnings(params);
    return predictions;
}

} // namespace

ModelKind loggp_model_kind()
{
    std::vector<ModelOp> ops = point_to_point_and_collective_ops();
    ops.push_back({"stream-bw",
                   "a window of -n (default 64) messages of -s bytes and its 1-byte acknowledgement "
                   "(bw pattern): time, bandwidth, message rate",
                   {"size", "messages"}});
    ops.push_back(
        {"stream-bibw", "the same window streamed both ways at once (bw --bw-direction bi)", {"size", "messages"}});
    ops.push_back({"message-rate",
                   "messages per second of -k pairs streaming windows of -n messages at once",
                   {"size", "messages", "pairs"}});
    ops.push_back({"export", "the parameters for another tool (--export loggopsim), no prediction", {"export"}});
    return {.name = "loggp",
            .description = "LogGP per protocol range (Hoefler et al. 2007, eqs. (1)-(8)); each message is costed "
                           "with the range its size falls in",
            .parameters = {{"from_bytes", "B", "the smallest size of a protocol range (model.ranges[])"},
                           {"to_bytes", "B", "the largest size of a protocol range"},
                           {"L_us", "us", "latency"},
                           {"o_us", "us", "overhead per message (o_s, o_r and their per-byte O_s, O_r if fitted)"},
                           {"g_us", "us", "gap between messages"},
                           {"G_us_per_byte", "us/B", "gap per byte"},
                           {"gamma_us_per_byte", "us/B", "optional: reduction cost of the collectives"}},
            .ops = std::move(ops),
            .load = [](const std::string& path, const std::string& module) { return saved_model(path, module); },
            .predict = predict_loggp,
            .options = {opt::spec_of(export_row)},
            .implied_op =
                [](const OptionValues& values) {
                    return opt::find(values, export_row.long_name()) != nullptr ? std::string("export") : std::string();
                }};
}

} // namespace ngx::patterns
