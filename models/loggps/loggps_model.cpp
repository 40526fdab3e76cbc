// LogGPS fit results to and from JSON (see loggps_model.hpp).
#include <models/loggps/loggps_model.hpp>

#include <ngx/saved_run.hpp>
#include <models/base/model_json.hpp>

#include <cmath>

namespace ngx::patterns {
namespace {

// Per measured point, what Table 6 predicts for it (RTT(k, w), eqs. (12)-(14)),
// saved next to the measurements so that a figure draws the model as fitted.
Json predictions_json(const std::vector<fit::RttPoint>& points, const fit::LogGPSParams& p)
{
    Json rows = Json::array();
    for (const fit::RttPoint& point : points)
        rows.push_back({{"size_bytes", point.size},
                        {"w_us", point.w},
                        {"predicted_rtt_us", json_number(p.rtt(point.size, point.w))}});
    return rows;
}

Json model_json(const std::vector<fit::RttPoint>& points, const fit::LogGPSFit& f, double factor)
{
    const fit::LogGPSParams& p = f.params;
    Json not_overlapped = Json::array();
    for (std::size_t i : f.not_overlapped)
        not_overlapped.push_back(points[i].size);
    return {{"kind", "loggps"},
            {"method", "Ino et al. 2001: RTT at w = 0 and w = W fitted to Table 6, section 4.3"},
            {"w_factor", factor},
            {"L_us", measured_json(f.L)},
            {"o_prime_us", measured_json(f.o_prime)},
            {"O_s_us_per_byte", measured_json(f.O_s)},
            {"O_r_us_per_byte", measured_json(f.O_r)},
            {"G_s_us_per_byte", measured_json(f.G_s)},
            {"G_l_us_per_byte", measured_json(f.G_l)},
            {"s_bytes", json_number(p.s)},
            {"s_next_bytes", json_number(f.s_next)},
            {"S_bytes", json_number(p.S)},
            {"S_next_bytes", json_number(f.S_next)},
            {"O_split_assumed", f.O_split_assumed},
            {"G_l_measured", f.G_l_measured},
            {"not_overlapped", not_overlapped},
            {"per_point", predictions_json(points, p)},
            {"prediction_error",
             {{"max_relative", json_number(f.error.max_rel)},
              {"mean_relative", json_number(f.error.mean_rel)},
              {"rms_us", json_number(f.error.rms)}}}};
}

double number(const Json& object, const char* key)
{
    const Json* value = json_member(object, key);
    return value != nullptr && value->is_number() ? value->get<double>() : std::nan("");
}

bool is_loggps_run(const Json& run)
{
    const Json* pattern = json_member(run, "pattern");
    const Json* results = json_member(run, "results");
    return pattern != nullptr && *pattern == "loggps" && results != nullptr && results->is_array();
}

// A parameter saved as {"value": v, "ci95": [...]}.
Result<double> parameter(const Json& model, const char* key)
{
    const Json* entry = json_member(model, key);
    const Json* value = entry != nullptr ? json_member(*entry, "value") : nullptr;
    if (value == nullptr || !value->is_number())
        return Status::usage(std::string("loggps model without a numeric ") + key + ".value");
    return value->get<double>();
}

// A threshold: a number of bytes, or null for none (infinite); never negative.
Result<double> threshold(const Json& model, const char* key)
{
    const Json* value = json_member(model, key);
    if (value == nullptr || !value->is_number())
        return fit::LogGPSParams::inf;
    if (!(value->get<double>() >= 0))
        return Status::usage(std::string("\"") + key + "\" is " + value->dump() + ", not a byte count (>= 0, or null)");
    return value->get<double>();
}

} // namespace

Json loggps_params_json(const fit::LogGPSParams& p)
{
    return {{"L_us", p.L},
            {"o_prime_us", p.o_prime},
            {"O_s_us_per_byte", p.O_s},
            {"O_r_us_per_byte", p.O_r},
            {"G_s_us_per_byte", p.G_s},
            {"G_l_us_per_byte", json_number(p.G_l)},
            {"s_bytes", json_number(p.s)},
            {"S_bytes", json_number(p.S)}};
}

Result<Json> fit_loggps_model(const std::vector<fit::RttPoint>& points, double w_factor)
{
    Result<fit::LogGPSFit> fitted = fit::fit_loggps(points);
    if (!fitted)
        return Status::runtime("LogGPS fit: " + fitted.status().message() + " (it needs at least two sizes)");
    return model_json(points, *fitted, w_factor);
}

Result<LogGPSRun> loggps_run_from_json(const Json& document, const std::string& name, const std::string& module)
{
    Result<const Json*> chosen =
        choose_saved_run(document, name, "loggps run", "not a saved loggps run (no pattern \"loggps\" with results)",
                         is_loggps_run, module);
    if (!chosen)
        return chosen.status();
    const Json* run = *chosen;
    LogGPSRun saved;
    const Json* options = json_member(*run, "options");
    const Json* pattern_options = options != nullptr ? json_member(*options, "pattern_options") : nullptr;
    saved.w_factor = pattern_options != nullptr ? number(*pattern_options, "w_factor") : std::nan("");
    for (const Json& r : (*run)["results"]) {
        double size = number(r, "size_bytes"), rtt_0 = number(r, "median_us"), w = number(r, "w_us"),
               rtt_w = number(r, "rtt_w_us");
        if (!std::isfinite(size) || !std::isfinite(rtt_0) || !std::isfinite(w) || !std::isfinite(rtt_w))
            return Status::usage(name + ": a loggps result lacks one of size_bytes, median_us, w_us, rtt_w_us");
        saved.points.push_back({size, 0.0, rtt_0});
        saved.points.push_back({size, w, rtt_w});
    }
    return saved;
}

Result<fit::LogGPSParams> loggps_params_from_model(const Json& model)
{
    const Json* kind = json_member(model, "kind");
    if (kind == nullptr || *kind != "loggps")
        return Status::usage("the model is of kind " + (kind != nullptr ? kind->dump() : std::string("(none)")) +
                             ", not loggps");
    fit::LogGPSParams p;
    double* targets[] = {&p.L, &p.o_prime, &p.O_s, &p.O_r, &p.G_s, &p.G_l};
    const char* keys[] = {"L_us",           "o_prime_us", "O_s_us_per_byte", "O_r_us_per_byte", "G_s_us_per_byte",
                          "G_l_us_per_byte"};
    for (std::size_t i = 0; i < 6; ++i) {
        Result<double> value = parameter(model, keys[i]);
        if (!value && std::string(keys[i]) != "G_l_us_per_byte") // G_l: null when no size was above s
            return value.status();
        *targets[i] = value ? *value : std::nan("");
    }
    Result<double> s = threshold(model, "s_bytes"), S = threshold(model, "S_bytes");
    if (!s || !S)
        return !s ? s.status() : S.status();
    p.s = *s;
    p.S = *S;
    return p;
}

} // namespace ngx::patterns
