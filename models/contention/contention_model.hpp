// The shared link's max-rate fit as a congestion run saves it, and a
// contention price as JSON (contention.hpp).
//
//     Result<fit::MaxRateParams> link = shared_link_from_model(saved_model(path));
//     Json j = contention_json(*price, predicted_us);
#ifndef NGX_MODELS_CONTENTION_MODEL_HPP
#define NGX_MODELS_CONTENTION_MODEL_HPP

#include <models/contention/contention.hpp>
#include <ngx/record.hpp>

#include <string>

namespace ngx::patterns {

// alpha, R_N and R_C (bytes/us) of a congestion run's model (kind
// "congestion", its "maxrate": alpha_us, R_N_MBps (null: no network limit
// seen), R_C_MBps (null: one flow fills the link)), as the three-parameter
// max-rate model, alpha below 0 taken as 0; invalid_input
// naming what is missing (another kind, a max-rate fit that failed).
Result<fit::MaxRateParams> shared_link_from_model(const Json& model);

// The same from a saved run or model file (a usage error naming `option`
// and the file when it cannot be read or holds no such fit).
Result<fit::MaxRateParams> shared_link_from_file(const std::string& path, const std::string& option);

// {"delay_us", "rounds": [{"flows", "bytes", "largest_bytes", "delay_us"}, ...]}:
// per round, each pair a direction (switch 0 -> 1, 1 -> 0).
Json contention_json(const fit::ContentionPrice& price);

} // namespace ngx::patterns

#endif
