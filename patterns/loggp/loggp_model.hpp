// LogGP results as data: the fit of paper 001 from per-size PRTT medians,
// turned into the `model` object of ngx's JSON (one parameter set per
// protocol range, with confidence intervals) and read back for `ngx predict`.
// Shared by the loggp pattern and `ngx fit`, so both give the same output.
//
//     std::vector<fit::PrttSample> samples = ...;
//     Result<Json> model = fit_loggp_model(samples, n, settings);
//     Result<fit::LogGPParams> params = loggp_params_from_model(model_json);
#ifndef NGX_PATTERNS_LOGGP_MODEL_HPP
#define NGX_PATTERNS_LOGGP_MODEL_HPP

#include <ngx/fit/loggp.hpp>
#include <ngx/options.hpp>
#include <ngx/record.hpp>
#include <ngx/status.hpp>

#include <string>
#include <vector>

namespace ngx::patterns {

struct LogGPFitSettings {
    std::string detector = "robust"; // robust, paper (section 3.5 as published) or none
    double lookahead = 5;            // x of section 3.5
    double pfact = 2.0;              // pfact of section 3.5
};

// The fit's options (--loggp-detector, --loggp-lookahead, --loggp-pfact):
// declared once, for the pattern and for `ngx fit` alike.
std::vector<opt::OptionSpec> fit_option_specs();
LogGPFitSettings read_fit_settings(opt::OptionReader& read);

Result<Json> fit_loggp_model(const std::vector<fit::PrttSample>& samples, double n, const LogGPFitSettings& settings);

// The per-size columns of a loggp result: the other PRTT medians, d, o_s by
// eq. (6), o_r when measured, and g + (s-1)G by eq. (7).
std::vector<std::pair<std::string, double>> loggp_size_columns(const fit::PrttSample& sample, double n);

// The parameters of a saved model (`model.ranges`), for predictions.
Result<fit::LogGPParams> loggp_params_from_model(const Json& model);

} // namespace ngx::patterns

#endif
