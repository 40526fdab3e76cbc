// The models of Gropp, Olson and Samfass (2016) fitted to a nodecomm run:
// T(k, n), the time of the slowest of k concurrent pairs exchanging n bytes,
// cut into regimes (short / eager / rendezvous) and fitted per regime with
//   postal         T = alpha + n / R            (1 pair, K pairs, all k)
//   maxrate3       T = alpha + k n / min(R_N, k R_C)
//   maxrate4       T = alpha + k n / min(R_N, R_Cb + (k-1) R_Ci)
//   modified       T = k n / min(R_N, k n / (alpha + n / R_C))   (the slides'
//                  formula next to Figure 5, "modified max-rate model")
// each with 95% intervals and the relative-error sum of the paper's Table 2
// (sum over every (k, n) of the regime of |model - measured| / measured).
// Times are microseconds, rates bytes per second.
//
//     NodeCommData data = ...;                      // from the run or a saved JSON
//     std::vector<Regime> regimes = detect_regimes(data);
//     Json model = nodecomm_model(data, regimes);   // {"kind": "nodecomm", "nodecomm": ..., "ranges": [...]}
//     std::vector<Table> tables = nodecomm_tables(model); // the core prints them
#ifndef NGX_PATTERNS_NODECOMM_MODEL_HPP
#define NGX_PATTERNS_NODECOMM_MODEL_HPP

#include <models/maxrate/maxrate.hpp>
#include <ngx/record.hpp>
#include <ngx/status.hpp>
#include <ngx/table.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ngx::patterns {

// What a nodecomm run measured: T[k index][n index] (NaN where not measured).
struct NodeCommData {
    std::vector<uint64_t> pairs;
    std::vector<uint64_t> sizes;
    std::vector<std::vector<double>> T_us;      // slowest pair
    std::vector<std::vector<double>> T_mean_us; // mean over the pairs
};

NodeCommData empty_data(std::vector<uint64_t> pairs, std::vector<uint64_t> sizes);
Json data_json(const NodeCommData& data);
Result<NodeCommData> data_from_json(const Json& json);

// Sizes from_bytes <= n < to_bytes (to_bytes 0: no upper end).
struct Regime {
    uint64_t from_bytes = 0;
    uint64_t to_bytes = 0;
    bool contains(uint64_t n) const { return n >= from_bytes && (to_bytes == 0 || n < to_bytes); }
};

// "1-1Ki,1Ki-64Ki,64Ki-": half-open ranges, the last may be open-ended.
Result<std::vector<Regime>> parse_regimes(const std::string& text);
// Protocol ranges of the k = 1 curve (Hoefler et al. 2007 section 3.5, robust
// detector); one regime when there is no k = 1 curve or too few sizes.
std::vector<Regime> detect_regimes(const NodeCommData& data);

// The model's T(k, n) per fitted model is saved as model.nodecomm.predicted_T_us
// (name -> T[k][n], null where a model has no fit), so that a figure draws
// the models without re-computing them.
Json nodecomm_model(const NodeCommData& data, const std::vector<Regime>& regimes);

// The regime of a saved model that holds n bytes (nullptr: none).
const Json* regime_of(const Json& model, uint64_t n);
// A fitted value ({value, ci95} or a number); a null R_N is infinite.
double value_of(const Json& fitted, const char* key);
// T in microseconds of k pairs sending n bytes each under one fitted model
// (postal T = alpha + n / R, maxrate T = alpha + k n / min(R_N, k R_C), and the
// modified max-rate model; Gropp et al. 2016).
double predicted_us(const std::string& name, const Json& fitted, double k, double n);

// The one writer of a max-rate fit's JSON, in the two forms saved runs hold:
// nodecomm's regimes (each parameter {"value", "ci95"}, rates in B/s:
// alpha_us, R_C_Bps or R_Cb_Bps and R_Ci_Bps, R_N_Bps, k_star, rel_error_sum)
// and congestion's one fit (numbers with their intervals beside them, rates
// in MB/s: points, alpha_us, alpha_ci95_us, R_N_MBps, R_N_ci95_MBps,
// R_C_MBps, R_C_ci95_MBps, k_star, network_limited_points, error {mean_relative,
// max_relative}). What differs is data (MaxRateForm); the schema
// (schema/ngx-result.schema.json) names both. A fit that fails is
// {"error": why} (congestion: with "points").
struct MaxRateForm {
    bool flat = false;             // numbers and "<name>_ci95_<unit>" beside them, not {"value", "ci95"}
    const char* rate_unit = "Bps"; // the rates' key suffix
    double rate_scale = 1e6;       // from the fit's bytes per microsecond
    const char* pairs = "pair";    // what k counts, in the error of a degenerate fit
    bool fit_summary = false;      // points, network-limited points and relative errors (congestion)
};
inline constexpr MaxRateForm regime_form{};
inline constexpr MaxRateForm congestion_form{
    .flat = true, .rate_unit = "MBps", .rate_scale = 1, .pairs = "flow", .fit_summary = true};
Json maxrate_json(const std::vector<fit::NodeCommPoint>& points, fit::MaxRateVariant variant, const MaxRateForm& form);

// A congestion run's model ({"kind": "congestion", "congestion": {..., "maxrate": ...}})
// as the maxrate kind predicts from it: one regime of all sizes whose maxrate3
// is the run's fit (rates in B/s) and whose pair counts are its flow counts.
Result<Json> maxrate_of_congestion(const Json& model);

// A nodecomm model's tables, for the live run and `ngx fit` alike: T(k, n)
// (rows n, columns k), the aggregate bandwidth k n / T in MB/s, and the
// fitted models (one row per regime, model and parameter, the Table-2
// relative-error sums and k* among them). None for a model without a table.
std::vector<Table> nodecomm_tables(const Json& model);

} // namespace ngx::patterns

#endif
