// LogGP results as data: the fit of Hoefler et al. 2007 from per-size PRTT medians,
// turned into the `model` object of ngx's JSON (one parameter set per
// protocol range, with confidence intervals) and read back for `ngx predict`.
// Shared by the loggp pattern and `ngx fit`, so both give the same output.
//
//     std::vector<fit::PrttSample> samples = ...;
//     std::vector<double> rel_ci = ...;   // per size, relative width of the 95% interval of the median
//     Result<Json> model = fit_loggp_model(samples, n, settings, rel_ci);
//     Result<fit::LogGPParams> params = loggp_params_from_model(model_json);
//
// Per range the JSON holds the overhead lines of models/loggp/loggp.hpp, o_s(s) =
// o_us + (s-1) O_us_per_byte and o_r(s) = o_r_us + (s-1) O_r_us_per_byte
// (intercepts and slopes, 95% intervals in "intervals"), L_us of eq. (1)
// computed with them, g and G. loggp_params_from_model reads the lines back
// exactly, so a saved model predicts what the run predicted, to the bit.
// With measured exchanges (PrttSample::exchange, --loggp-exchange yes) a
// range also holds exchange_cpu_share and "exchange" (models/loggp/exchange_share.hpp);
// a saved share outside 0..1 is refused.
// The measured spread (rel_ci) sets LogGPOptions::relative_noise (the
// median over the sizes of rel_ci / (2 * 1.96), at least the scatter
// between neighbouring sizes and 1%) and the stated fit quality
// (models/loggp/loggp_quality.hpp) in "quality".
#ifndef NGX_PATTERNS_LOGGP_MODEL_HPP
#define NGX_PATTERNS_LOGGP_MODEL_HPP

#include <models/loggp/loggp.hpp>
#include <ngx/options.hpp>
#include <ngx/record.hpp>
#include <ngx/status.hpp>

#include <string>
#include <vector>

namespace ngx::patterns {

struct LogGPFitSettings {
    std::string detector = "robust";  // robust, paper (section 3.5 as published) or none
    double lookahead = 5;             // x of section 3.5
    double pfact = 2.0;               // pfact of section 3.5
    std::string weights = "relative"; // relative (1/y^2) or none (the paper's plain fit)
    std::string fit = "joint"; // joint (models/loggp/loggp_joint.hpp) or paper (each parameter from its equation)
    // yes: where no admissible model (every parameter >= 0) meets the goal,
    // a parameter below 0 that meets it (a range that is not LogGP, and says
    // so: a rendezvous range of blocking sends); no (the main job's): every
    // parameter of every range >= 0, a range none meets misses and says so.
    std::string negative = "yes";
};

// The fit's options (--loggp-detector, --loggp-lookahead, --loggp-pfact,
// --loggp-weights, --loggp-fit, --loggp-negative): declared once, for the pattern and for
// `ngx fit` alike, and recorded with the run's options.
opt::Table fit_options();
// read's table includes fit_options(). `saved_negative`: a saved run's
// --loggp-negative (yes or no, prtt_file.hpp checks it), taken where the
// user gives none, so that a refit of the main job's run is its model.
LogGPFitSettings read_fit_settings(opt::Reader& read, const std::string& saved_negative = "");
Json fit_settings_json(const LogGPFitSettings& settings);

// rel_ci: per sample, or empty when the spread is unknown (then the detector
// estimates the noise from the curves and quality names no noise reason).
Result<Json> fit_loggp_model(const std::vector<fit::PrttSample>& samples, double n, const LogGPFitSettings& settings,
                             const std::vector<double>& rel_ci = {});

// The per-size columns of a loggp result: the other PRTT medians, d, o_s by
// eq. (6), o_r when measured, and g + (s-1)G by eq. (7).
std::vector<std::pair<std::string, double>> loggp_size_columns(const fit::PrttSample& sample, double n);

// What the model predicts at size s, saved next to each measured size
// (model.per_size) so that a figure draws the model without re-computing it:
// predicted_prtt_us (eq. (1)), predicted_gap_us (eq. (5) with d = 0, per
// message, as y(s) is measured), predicted_o_s_us and predicted_o_r_us (the
// overhead lines; null where o_r was not measured).
Json predictions_at(const fit::LogGPParams& params, double s, double n);

// Where a range has a parameter below 0 (fit::LogGPRange::negative_parameters:
// the fit keeps one only where no admissible model meets the goal), what the
// table, the JSON ("warning") and `ngx predict` say; "" where it has none.
std::string not_loggp_text(const fit::LogGPRange& range);

// The parameters of a saved model (`model.ranges`, kind "loggp"), for
// predictions: o_us/O_us_per_byte and o_r_us/O_r_us_per_byte as exact lines.
Result<fit::LogGPParams> loggp_params_from_model(const Json& model);

} // namespace ngx::patterns

#endif
