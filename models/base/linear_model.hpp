// Weighted linear least squares with p coefficients: minimise
// sum_i w_i (y_i - sum_j X_ij theta_j)^2, with standard errors, covariance and
// t confidence intervals (n - p degrees of freedom). The straight line of
// least_squares.hpp is the p = 2 case; this one serves the models whose cost
// is linear in several parameters at once (LogGPS, max-rate).
//
//     // y = t0 + t1 x + t2 x^2, rows [1, x, x^2]
//     std::vector<double> X{1, 0, 0,  1, 1, 1,  1, 2, 4,  1, 3, 9};
//     std::vector<double> y{1, 2, 5, 10};
//     Result<LinearFit> r = fit_linear(X, 3, y);
//     r->coef[2].value;   // 1.0
//
// Solved by Householder QR on the weighted, column-scaled design (no normal
// equations, so columns of very different magnitude, e.g. 1 and 1e6 bytes,
// keep their digits). A design whose columns are (numerically) dependent
// fails with Reason::degenerate.
#ifndef NGX_FIT_LINEAR_MODEL_HPP
#define NGX_FIT_LINEAR_MODEL_HPP

#include <models/base/measured.hpp>
#include <models/base/status.hpp>

#include <cstddef>
#include <span>
#include <vector>

namespace ngx::fit {

struct LinearFit {
    std::vector<Measured> coef;     // theta_j with standard errors and intervals
    std::vector<double> covariance; // p x p, row-major; NaN when n == p
    std::vector<double> residuals;  // y_i - X_i theta, unweighted
    double rss = 0.0;               // sum w_i r_i^2
    double sigma = Measured::nan;   // sqrt(rss / (n - p)); NaN when n == p
    std::size_t n = 0;
    std::size_t p = 0;
};

// design: n rows of p values, row-major (size n * p); w empty = unweighted.
Result<LinearFit> fit_linear(std::span<const double> design, std::size_t p, std::span<const double> y,
                             std::span<const double> w = {}, double level = 0.95);

} // namespace ngx::fit

#endif
