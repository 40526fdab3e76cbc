// LogGP fit results to and from JSON (see loggp_model.hpp).
#include "loggp_model.hpp"

#include "../common/model_json.hpp"

#include <cmath>

namespace ngx::patterns {
namespace {

Json range_json(const fit::LogGPRange& range)
{
    Json json = {
        {"from_bytes", range.from_bytes},
        {"to_bytes", range.to_bytes},
        {"L_us", json_number(range.L.value)},
        {"o_us", json_number(range.o.value)},
        {"o_r_us", json_number(range.o_r.value)},
        {"g_us", json_number(range.g.value)},
        {"G_us_per_byte", json_number(range.G.value)},
        {"intervals",
         {{"L_us", measured_json(range.L)},
          {"o_us", measured_json(range.o)},
          {"o_r_us", measured_json(range.o_r)},
          {"g_us", measured_json(range.g)},
          {"G_us_per_byte", measured_json(range.G)}}},
        {"o_line",
         {{"intercept_us", json_number(range.o_intercept)}, {"slope_us_per_byte", json_number(range.o_slope)}}}};
    if (range.L.value < 0) // paper 001 section 3.4: o and L overlap; eq. (1) then leaves no room for L
        json["warning"] = "L < 0: the overheads o_s + o_r exceed PRTT(1,0,s)/2 - (s-1)G here (o and L overlap, "
                          "or the range is a rendezvous protocol); use L_eel_us";
    return json;
}

fit::LogGPOptions fit_options(const LogGPFitSettings& settings)
{
    fit::LogGPOptions options;
    options.method = settings.detector == "paper"  ? fit::ChangePointMethod::paper
                     : settings.detector == "none" ? fit::ChangePointMethod::none
                                                   : fit::ChangePointMethod::robust;
    options.paper.lookahead = std::size_t(settings.lookahead);
    options.paper.pfact = settings.pfact;
    options.robust.lookahead = std::size_t(settings.lookahead);
    options.robust.pfact = settings.pfact;
    return options;
}

Json sizes_at(const std::vector<fit::PrttSample>& samples, const std::vector<std::size_t>& indices)
{
    Json sizes = Json::array();
    for (std::size_t i : indices)
        sizes.push_back(samples[i].size);
    return sizes;
}

std::string describe_failure(fit::Status status)
{
    return std::string(fit::describe(status));
}

Result<double> field(const Json& object, const char* name)
{
    if (!object.contains(name) || !object[name].is_number())
        return Status::usage(std::string("model range without a numeric '") + name + "'");
    return object[name].get<double>();
}

Result<fit::Measured> exact_field(const Json& range, const char* name)
{
    Result<double> value = field(range, name);
    if (!value)
        return value.status();
    return fit::Measured::exact(*value);
}

} // namespace

std::vector<std::pair<std::string, double>> loggp_size_columns(const fit::PrttSample& sample, double n)
{
    std::vector<std::pair<std::string, double>> columns = {
        {"prtt_n_0_us", sample.prtt_n_0},
        {"prtt_n_d_us", sample.prtt_n_d},
        {"delay_us", sample.delay},
        {"o_s_us", (sample.prtt_n_d - sample.prtt_1_0) / (n - 1) - sample.delay}, // eq. (6)
    };
    if (sample.o_r)
        columns.emplace_back("o_r_us", *sample.o_r);
    columns.emplace_back("gap_us", (sample.prtt_n_0 - sample.prtt_1_0) / (n - 1)); // eq. (7): g + (s-1)G
    return columns;
}

std::vector<opt::OptionSpec> fit_option_specs()
{
    return {{"loggp-detector", "robust", "protocol-change detection: robust, paper (section 3.5 as published) or none"},
            {"loggp-lookahead", "5", "x: points of look-ahead (section 3.5)"},
            {"loggp-pfact", "2.0", "pfact: sensitivity (section 3.5)"}};
}

LogGPFitSettings read_fit_settings(opt::OptionReader& read)
{
    LogGPFitSettings settings;
    settings.detector = read.choice("loggp-detector", {"robust", "paper", "none"});
    settings.lookahead = double(read.whole_number("loggp-lookahead", 1, 100));
    settings.pfact = read.number("loggp-pfact", 1.0000001, 1000);
    return settings;
}

Result<Json> fit_loggp_model(const std::vector<fit::PrttSample>& samples, double n, const LogGPFitSettings& settings)
{
    fit::Result<fit::LogGPFit> fitted = fit::fit_loggp(samples, n, fit_options(settings));
    if (!fitted)
        return Status::runtime("LogGP fit: " + describe_failure(fitted.status()));
    const fit::LogGPFit& f = *fitted;
    Json ranges = Json::array();
    Json change_points = Json::array();
    for (const fit::LogGPRange& range : f.params.ranges) {
        ranges.push_back(range_json(range));
        if (range.from_bytes > f.params.ranges.front().from_bytes)
            change_points.push_back(range.from_bytes);
    }
    Json per_size = Json::array();
    for (size_t i = 0; i < samples.size(); ++i)
        per_size.push_back({{"size_bytes", samples[i].size},
                            {"o_us", json_number(f.o_per_size[i])},
                            {"gap_us", json_number(f.gap_per_size[i])},
                            {"L_us", json_number(f.L_per_size[i])}});
    return Json{{"kind", "loggp"},
                {"method", "paper 001: o by eq. (6), g and G by least squares over eq. (7), L by eq. (1)"},
                {"n", n},
                {"detector", settings.detector},
                {"lookahead", settings.lookahead},
                {"pfact", settings.pfact},
                {"L_eel_us", measured_json(f.params.eel)},
                {"L_eel_size_bytes", f.params.eel_size},
                {"ranges", ranges},
                {"change_points_bytes", change_points},
                {"per_size", per_size},
                {"delay_too_small_bytes", sizes_at(samples, f.delay_too_small)},
                {"overhead_above_gap_bytes", sizes_at(samples, f.overhead_above_gap)},
                {"prediction_error",
                 {{"max_relative", json_number(f.error.max_rel)},
                  {"mean_relative", json_number(f.error.mean_rel)},
                  {"rms_us", json_number(f.error.rms)}}}};
}

Result<fit::LogGPParams> loggp_params_from_model(const Json& model)
{
    if (!model.is_object() || !model.contains("ranges") || !model["ranges"].is_array() || model["ranges"].empty())
        return Status::usage("no LogGP parameters: expected model.ranges with at least one range");
    fit::LogGPParams params;
    for (const Json& range : model["ranges"]) {
        fit::LogGPRange r;
        Result<double> from = field(range, "from_bytes"), to = field(range, "to_bytes");
        Result<fit::Measured> L = exact_field(range, "L_us"), o = exact_field(range, "o_us"),
                              g = exact_field(range, "g_us"), G = exact_field(range, "G_us_per_byte");
        for (const Status* s : {&from.status(), &to.status(), &L.status(), &o.status(), &g.status(), &G.status()})
            if (!s->is_ok())
                return *s;
        r.from_bytes = *from;
        r.to_bytes = *to;
        r.L = *L;
        r.o = *o;
        r.g = *g;
        r.G = *G;
        if (range.contains("o_r_us") && range["o_r_us"].is_number())
            r.o_r = fit::Measured::exact(range["o_r_us"].get<double>());
        if (!params.ranges.empty() && r.from_bytes <= params.ranges.back().from_bytes)
            return Status::usage("model ranges are not in increasing size order");
        params.ranges.push_back(r);
    }
    return params;
}

} // namespace ngx::patterns
