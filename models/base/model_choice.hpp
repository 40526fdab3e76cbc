// Choosing between two least-squares fits of the same points by a stated
// significance test against the noise the data measured: the one rule by
// which the LogGP fit picks a form (additive or pipelined eq. (1)), a
// change's position among its candidates, and whether a range is split.
//
//     const FitEvidence additive = fit_evidence(range_error(samples, n, a), 7);
//     const FitEvidence pipelined = fit_evidence(range_error(samples, n, b), 8);
//     if (richer_fit_wins(additive, pipelined, relative_noise, model_choice_alpha))
//         ...;                                 // the drop in S is not noise
//
// The fits are weighted least squares with weights 1/y^2, so the objective
// S of a fit is its sum of squared relative residuals (ModelError::sum_sq_rel)
// over its N points. Model B (k_B parameters) replaces model A (k_A < k_B;
// a choice among discrete variants counts as one parameter) only when its
// drop in S is significant at level alpha:
//  - with r, the relative standard error of one point that the pattern
//    measured: the likelihood-ratio test with known variance (Wilks 1938),
//    B wins when (S_A - S_B) / r^2 > chi^2_{1-alpha}(k_B - k_A);
//  - where r was not measured, the noise is what B leaves unexplained,
//    s_B^2 = S_B / (N - k_B): the extra-sum-of-squares F test (Seber and
//    Lee 2003, "Linear Regression Analysis", ch. 4), B wins when
//    ((S_A - S_B) / (k_B - k_A)) / s_B^2 > F_{1-alpha}(k_B - k_A, N - k_B).
// Where the data come from A, B wins with a probability of at most alpha
// (exactly so for nested linear models; the LogGP forms are piecewise
// linear, and the tests in tests/fit measure the rate on seeded noise). A
// relative variance below numeric_floor^2 is rounding, not noise. (Testing
// against max(r^2, s_B^2) instead, so that a model error neither fit
// captures would count as noise, refused the split of a saved shm run's
// 64 B..3 KiB whose halves meet the goal, max 14% against 18%: where both
// fits approximate, s_B^2 exceeds r^2 and the F test has no power.)
#ifndef NGX_FIT_MODEL_CHOICE_HPP
#define NGX_FIT_MODEL_CHOICE_HPP

#include <models/base/model_error.hpp>

#include <cstddef>

namespace ngx::fit {

// The significance level of every choice between two LogGP fits: pure noise
// picks the richer model in at most 1% of ranges.
inline constexpr double model_choice_alpha = 0.01;

// The relative residual below which two fits are the same to double
// precision (the solver's accuracy, not a property of the data).
inline constexpr double numeric_floor = 1e-9;

// What a fit leaves: its weighted residual sum of squares S, its points N
// and its parameters k.
struct FitEvidence {
    double rss = 0;
    std::size_t points = 0;
    std::size_t params = 0;
};

// S and N of a fit's relative errors, with k = params.
FitEvidence fit_evidence(const ModelError& e, std::size_t params) noexcept;

// P(chi^2_k > x), k > 0 (NaN for invalid arguments).
double chi_square_upper_tail(double x, double k) noexcept;

// P(F(d1, d2) > f), d1, d2 > 0 (NaN for invalid arguments).
double f_upper_tail(double f, double d1, double d2) noexcept;

// The p-value of B's drop in S against A (see the overview); 1 when B does
// not fit better, when it has no more parameters, or when the noise cannot
// be known (r not measured and N <= k_B). `relative_noise`: r, NaN when not
// measured.
double improvement_p_value(const FitEvidence& simpler, const FitEvidence& richer, double relative_noise) noexcept;

// improvement_p_value(...) < alpha.
bool richer_fit_wins(const FitEvidence& simpler, const FitEvidence& richer, double relative_noise,
                     double alpha = model_choice_alpha) noexcept;

} // namespace ngx::fit

#endif
