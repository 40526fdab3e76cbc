// The loggps pattern's offline hooks: `ngx fit run.json` re-fits a saved
// loggps run exactly as the live pattern does, and `ngx predict --params
// run.json` predicts with the LogGPS costs of Ino et al. 2001 (Tables 3 and 4,
// models/loggps/loggps.hpp): pingpong = RTT(k, 0) / 2 (Table 6), prtt = PRTT(n, d, k)
// composed from Table 4, bcast-linear, bcast-tree (g = 0: LogGPS has no g).
// A model of another kind is refused; a prediction the model cannot make
// (G_l not measured, for k > s) is an error, not a number.
#include <models/loggps/loggps_offline.hpp>

#include <models/collectives/collective_predict.hpp>
#include <models/base/offline.hpp>
#include <models/loggps/loggps_model.hpp>

#include <ngx/saved_run.hpp>
#include <ngx/sizes.hpp>

#include <cmath>
#include <limits>

namespace ngx::patterns {
namespace {

opt::Table fit_table()
{
    return {"ngx fit (loggps)", {saved_module_row}};
}

SizeRecord offline_record(const fit::RttPoint& at_zero, const fit::RttPoint& at_w)
{
    constexpr double unknown = std::numeric_limits<double>::quiet_NaN();
    SizeRecord record;
    record.size_bytes = uint64_t(at_zero.size);
    record.summary.median = at_zero.rtt;
    record.summary.min = record.summary.max = record.summary.mean = unknown;
    record.summary.stddev = record.summary.p99 = unknown;
    record.extra = {{"w_us", at_w.w}, {"rtt_w_us", at_w.rtt}, {"rtt_w_minus_w_us", at_w.rtt - at_w.w}};
    return record;
}

Document offline_document(const std::string& path, const LogGPSRun& saved, Json model)
{
    Document document;
    document.context = {{"ngx_version", ngx_version()}, {"source", path}};
    RunRecord run;
    run.module = "offline";
    run.pattern = "loggps";
    run.metric = "RTT(k, w=0) (medians from " + path + ")";
    run.options = {{"source", path}, {"pattern_options", {{"w_factor", saved.w_factor}}}};
    for (std::size_t i = 0; i + 1 < saved.points.size(); i += 2)
        run.sizes.push_back(offline_record(saved.points[i], saved.points[i + 1]));
    run.model = std::move(model);
    run.status = "complete";
    document.runs.push_back(std::move(run));
    return document;
}

std::string threshold_text(double bytes)
{
    return std::isfinite(bytes) ? format_bytes(uint64_t(bytes)) : "none";
}

double predict(const fit::LogGPSParams& p, const PointRequest& request)
{
    if (request.op == "pingpong")
        return p.half_rtt(request.size);
    if (request.op == "prtt")
        return p.prtt(request.messages, request.delay_us, request.size);
    if (request.op == "bcast-linear")
        return p.linear_bcast(request.processes, request.size);
    return p.tree_bcast(request.processes, request.size);
}

} // namespace

Result<FitOutput> loggps_fit_offline(const FitRequest& request)
{
    opt::Reader read(fit_table(), request.values);
    NGX_ASSIGN_OR_RETURN(const std::string path, request.one_file());
    NGX_ASSIGN_OR_RETURN(const Json document, read_json_document(path));
    NGX_ASSIGN_OR_RETURN(const LogGPSRun saved, loggps_run_from_json(document, path, saved_module(read)));
    NGX_ASSIGN_OR_RETURN(Json model, fit_loggps_model(saved.points, saved.w_factor));
    return FitOutput{.run = offline_document(path, saved, std::move(model))};
}

std::vector<opt::OptionSpec> loggps_fit_options()
{
    return fit_table().specs();
}

namespace {

Result<Predictions> predict_loggps(const Json& model, const ngx::PredictRequest& request)
{
    opt::Reader read(predict_options("loggps"), predict_values(request));
    NGX_ASSIGN_OR_RETURN(const fit::LogGPSParams params, loggps_params_from_model(model));
    if (is_collective_op(request.op))
        return predict_collectives(read, loggps_collective_model(params, model));
    NGX_ASSIGN_OR_RETURN(const PointRequest point, read_predict_request(read));
    double cost = predict(params, point);
    if (!std::isfinite(cost))
        return Status::usage("the model cannot predict " + format_bytes(uint64_t(point.size)) +
                             ": a parameter it needs is unknown (G_l is null when no measured size was above s)");
    const std::string note = point.op + " of " + format_bytes(uint64_t(point.size)) +
                             " with LogGPS (Ino et al. 2001, Tables 3-4; s = " + threshold_text(params.s) +
                             ", S = " + threshold_text(params.S) + ")";
    return Predictions{.rows = {point_prediction("loggps", point, cost)}, .notes = {note}};
}

} // namespace

ModelKind loggps_model_kind()
{
    return {.name = "loggps",
            .description = "LogGPS (Ino et al. 2001, Tables 3, 4 and 6): LogGP with a multi-packet threshold s and "
                           "a rendezvous above S",
            .parameters = {{"L_us", "us", "latency"},
                           {"o_prime_us", "us", "fixed overhead o' of a send or receive"},
                           {"O_s_us_per_byte", "us/B", "send overhead per byte"},
                           {"O_r_us_per_byte", "us/B", "receive overhead per byte"},
                           {"G_s_us_per_byte", "us/B", "gap per byte up to s"},
                           {"G_l_us_per_byte", "us/B", "gap per byte above s (null: not measured)"},
                           {"s_bytes", "B", "the multi-packet threshold s"},
                           {"S_bytes", "B", "the rendezvous threshold S"}},
            .ops = point_to_point_and_collective_ops(),
            .load = [](const std::string& path, const std::string& module) { return saved_model(path, module); },
            .predict = predict_loggps};
}

} // namespace ngx::patterns
