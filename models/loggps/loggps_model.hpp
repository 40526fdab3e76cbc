// LogGPS results as data: the fit of Ino et al. 2001 (models/loggps/loggps.hpp) as the
// `model` object of ngx's JSON, the points a saved loggps run holds, and
// the parameters a saved model gives back for `ngx predict`. Shared by the
// pattern and its offline hooks, so `ngx fit run.json` gives the run's model.
//
//     Result<Json> model = fit_loggps_model(points, w_factor);
//     Result<fit::LogGPSParams> params = loggps_params_from_model(model);
//
// "not_overlapped" lists the sizes (bytes) whose RTT(k, W) still shows
// communication beyond W (Table 6's max{} term positive): W too small there.
#ifndef NGX_PATTERNS_LOGGPS_MODEL_HPP
#define NGX_PATTERNS_LOGGPS_MODEL_HPP

#include <models/loggps/loggps.hpp>
#include <ngx/record.hpp>
#include <ngx/status.hpp>

#include <vector>

namespace ngx::patterns {

Result<Json> fit_loggps_model(const std::vector<fit::RttPoint>& points, double w_factor);

// The (k, 0, RTT) and (k, W, RTT) points of a saved loggps run's results
// (median_us, w_us, rtt_w_us per size), and its w_factor.
struct LogGPSRun {
    std::vector<fit::RttPoint> points;
    double w_factor = 0;
};
// In a document of several runs, the loggps run of `module` ("" when it holds one).
Result<LogGPSRun> loggps_run_from_json(const Json& document, const std::string& name, const std::string& module = "");

// The parameters alone as numbers (L_us, o_prime_us, ..., S_bytes; null
// where undefined), as ngx trace's report names the model it replays with.
Json loggps_params_json(const fit::LogGPSParams& p);

// The parameters of a saved model of kind "loggps" (a null threshold = none).
Result<fit::LogGPSParams> loggps_params_from_model(const Json& model);

} // namespace ngx::patterns

#endif
