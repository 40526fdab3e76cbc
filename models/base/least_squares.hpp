// Least-squares straight line y = a + b x, optionally weighted, with the
// statistics a measurement report needs: residuals, residual sum of squares,
// standard errors of both coefficients, r^2 and two-sided Student t
// confidence intervals (2 coefficients, so n - 2 degrees of freedom).
//
//     std::vector<double> x{1, 2, 3, 4}, y{2.1, 3.9, 6.2, 7.8};
//     Result<LineFit> r = fit_line(x, y, 0.95);
//     if (r && r->has_intervals())
//         use(r->slope.value, r->slope.lower, r->slope.upper);
//
//     // Multiplicative (relative) noise, e.g. times over sizes 1 B .. 1 MiB:
//     auto w = relative_weights(y);                // w_i = 1 / y_i^2
//     Result<LineFit> rw = fit_line_weighted(x, y, w);
//
// This is the fit Hoefler et al. 2007 uses for g and G (section 3.3, eq. (7)) and that
// the other models build on. Two points give a line but no intervals
// (has_intervals() is false, standard errors NaN); fewer than two points,
// all-equal x, mismatched spans or non-finite data give a failed Result.
//
// Weighted fits minimise sum w_i (y_i - a - b x_i)^2 with weights
// proportional to 1/variance; the variance scale is estimated from the
// residuals (rss / (n - 2)), so only the ratios of the weights matter.
#ifndef NGX_FIT_LEAST_SQUARES_HPP
#define NGX_FIT_LEAST_SQUARES_HPP

#include <models/base/measured.hpp>
#include <models/base/status.hpp>

#include <cstddef>
#include <span>
#include <vector>

namespace ngx::fit {

struct LineFit {
    Measured intercept;            // a
    Measured slope;                // b
    std::vector<double> residuals; // y_i - (a + b x_i), unweighted, in input order
    double rss = 0.0;              // sum w_i r_i^2 (w_i = 1 when unweighted)
    double sigma = Measured::nan;  // sqrt(rss / (n - 2)); NaN when n == 2
    double r_squared = Measured::nan;
    double cov = Measured::nan; // covariance of (intercept, slope)
    std::size_t n = 0;
    double level = 0.95;

    bool has_intervals() const noexcept { return n >= 3; }
    double predict(double x) const noexcept { return intercept.value + slope.value * x; }
    // Standard error of the fitted line at x (not of a new observation).
    double predict_std_error(double x) const noexcept;
};

Result<LineFit> fit_line(std::span<const double> x, std::span<const double> y, double level = 0.95);

Result<LineFit> fit_line_weighted(std::span<const double> x, std::span<const double> y, std::span<const double> w,
                                  double level = 0.95);

// Weights 1 / y_i^2 for data whose noise is proportional to the value; a zero
// or non-finite y_i gets weight 0 (which fit_line_weighted rejects).
std::vector<double> relative_weights(std::span<const double> y);

} // namespace ngx::fit

#endif
