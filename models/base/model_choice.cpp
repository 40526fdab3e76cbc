#include <models/base/model_choice.hpp>
#include <models/base/student_t.hpp>

#include <algorithm>
#include <cmath>

namespace ngx::fit {

namespace {

// Regularized lower incomplete gamma P(a, x) by its power series
// e^-x x^a / Gamma(a+1) * sum_j x^j / ((a+1)...(a+j)), summed in doubles
// until a term no longer changes the sum; only called where x <= a + 40
// sqrt(a) + 40, so the terms stay finite (the caller answers 0 above).
double lower_gamma_regularized(double a, double x) noexcept
{
    double term = 1.0, sum = 1.0;
    for (int j = 1; j < 100000; ++j) {
        term *= x / (a + j);
        sum += term;
        if (term < sum * 1e-17)
            break;
    }
    return std::exp(a * std::log(x) - x - std::lgamma(a + 1.0)) * sum;
}

} // namespace

FitEvidence fit_evidence(const ModelError& e, std::size_t params) noexcept
{
    return {e.sum_sq_rel, e.count_rel, params};
}

double chi_square_upper_tail(double x, double k) noexcept
{
    if (!(k > 0) || std::isnan(x))
        return std::nan("");
    if (x <= 0)
        return 1.0;
    const double a = k / 2, half = x / 2;
    if (half > a + 40 * std::sqrt(a) + 40)
        return 0.0; // beyond 40 standard deviations of Gamma(a): below 1e-300
    return std::clamp(1.0 - lower_gamma_regularized(a, half), 0.0, 1.0);
}

double f_upper_tail(double f, double d1, double d2) noexcept
{
    if (!(d1 > 0) || !(d2 > 0) || std::isnan(f))
        return std::nan("");
    if (f <= 0)
        return 1.0;
    if (std::isinf(f))
        return 0.0;
    // P(F > f) = I_{d2 / (d2 + d1 f)}(d2 / 2, d1 / 2).
    return incomplete_beta(d2 / 2, d1 / 2, d2 / (d2 + d1 * f));
}

double improvement_p_value(const FitEvidence& simpler, const FitEvidence& richer, double relative_noise) noexcept
{
    if (!(richer.params > simpler.params) || !std::isfinite(simpler.rss) || !std::isfinite(richer.rss))
        return 1.0;
    const double floor = numeric_floor * numeric_floor * double(std::max(simpler.points, richer.points));
    const double drop = simpler.rss - std::max(richer.rss, floor);
    if (!(drop > 0))
        return 1.0;
    const double extra = double(richer.params - simpler.params);
    const bool measured = std::isfinite(relative_noise) && relative_noise > 0;
    const double known = measured ? relative_noise * relative_noise : 0.0;
    if (measured)
        return chi_square_upper_tail(drop / known, extra); // Wilks 1938: likelihood ratio, known variance
    if (richer.points <= richer.params)
        return 1.0; // no residual degrees of freedom and no measured noise: nothing to judge by
    const double dof = double(richer.points - richer.params);
    const double residual = std::max(richer.rss / dof, numeric_floor * numeric_floor);
    return f_upper_tail(drop / extra / residual, extra, dof); // Seber and Lee 2003, ch. 4: extra sum of squares
}

bool richer_fit_wins(const FitEvidence& simpler, const FitEvidence& richer, double relative_noise,
                     double alpha) noexcept
{
    return improvement_p_value(simpler, richer, relative_noise) < alpha;
}

} // namespace ngx::fit
