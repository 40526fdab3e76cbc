#include <models/contention/contention_model.hpp>
#include <models/base/model_json.hpp>

#include <string>

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
    fit::MaxRateParams link;
    link.s = number("alpha_us");
    link.R_Cb = link.R_Ci = number("R_C_MBps"); // MB/s = bytes/us
    const auto rn = maxrate.find("R_N_MBps");
    link.R_N = rn != maxrate.end() && rn->is_null() ? fit::MaxRateParams::inf : number("R_N_MBps");
    if (!(link.s >= 0) || !(link.R_Cb > 0) || !(link.R_N > 0)) {
        const auto why = maxrate.find("error");
        return fit::invalid_input("the congestion run has no max-rate fit with alpha_us >= 0, R_C_MBps > 0 and R_N_MBps" +
                                  std::string(why != maxrate.end() && why->is_string()
                                                  ? " (" + why->get<std::string>() + ")"
                                                  : ""));
    }
    return link;
}

Json contention_json(const fit::ContentionPrice& price)
{
    Json rounds = Json::array();
    for (const fit::ContentionRound& r : price.rounds)
        rounds.push_back({{"flows", {r.flows[0], r.flows[1]}},
                          {"bytes", {r.bytes[0], r.bytes[1]}},
                          {"loggp_us", json_number(r.loggp_us)},
                          {"link_us", r.link_us},
                          {"delay_us", json_number(r.delay_us)}});
    return {{"delay_us", json_number(price.delay_us)}, {"rounds", rounds}};
}

} // namespace ngx::patterns
