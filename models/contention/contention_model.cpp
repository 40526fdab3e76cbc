#include <models/contention/contention_model.hpp>
#include <models/base/model_json.hpp>
#include <models/base/offline.hpp>

#include <string>

#include <algorithm>
#include <cmath>

namespace ngx::patterns {

Result<fit::MaxRateParams> shared_link_from_model(const Json& model)
{
    if (model.value("kind", std::string()) != "congestion")
        return fit::invalid_input("a congestion run's model is needed (-x congestion -o FILE), not kind '" +
                                  model.value("kind", std::string("none")) + "'");
    const Json maxrate = model.value("congestion", Json::object()).value("maxrate", Json::object());
    const auto number = [&](const char* key) {
        const auto it = maxrate.find(key);
        return it != maxrate.end() && it->is_number() ? it->get<double>() : std::nan("");
    };
    const auto null = [&](const char* key) {
        const auto it = maxrate.find(key);
        return it != maxrate.end() && it->is_null();
    };
    fit::MaxRateParams link;
    // A startup below 0 is within its interval of 0 (the fit's alpha is
    // poorly determined when every flow count fills the link): the uplink
    // gives no time back, so it counts as 0.
    link.s = std::max(0.0, number("alpha_us"));
    // null R_C: every point network-limited (k* = 1), one flow already fills
    // the link, min(R_N, c R_C) = R_N; null R_N: no network limit seen.
    link.R_Cb = link.R_Ci = null("R_C_MBps") ? fit::MaxRateParams::inf : number("R_C_MBps"); // MB/s = bytes/us
    link.R_N = null("R_N_MBps") ? fit::MaxRateParams::inf : number("R_N_MBps");
    if (std::isinf(link.R_Cb) && std::isinf(link.R_N))
        return fit::invalid_input("the congestion run's max-rate fit has neither R_C nor R_N: no rate to price");
    if (!(link.s >= 0) || !(link.R_Cb > 0) || !(link.R_N > 0)) {
        const auto why = maxrate.find("error");
        return fit::invalid_input(
            "the congestion run has no max-rate fit with alpha_us >= 0, R_C_MBps > 0 and R_N_MBps" +
            std::string(why != maxrate.end() && why->is_string() ? " (" + why->get<std::string>() + ")" : ""));
    }
    return link;
}

Result<fit::MaxRateParams> shared_link_from_file(const std::string& path, const std::string& option)
{
    const Result<Json> saved = saved_model(path);
    if (!saved)
        return Status::usage(option + " " + path + ": " + saved.status().message());
    Result<fit::MaxRateParams> link = shared_link_from_model(*saved);
    if (!link)
        return Status::usage(option + " " + path + ": " + link.status().message());
    return link;
}

Json contention_json(const fit::ContentionPrice& price)
{
    Json rounds = Json::array();
    for (const fit::ContentionRound& r : price.rounds)
        rounds.push_back({{"flows", {r.flows[0], r.flows[1]}},
                          {"bytes", {r.bytes[0], r.bytes[1]}},
                          {"largest_bytes", {r.largest[0], r.largest[1]}},
                          {"delay_us", r.delay_us}});
    return {{"delay_us", json_number(price.delay_us)}, {"rounds", rounds}};
}

} // namespace ngx::patterns
