// Student t distribution: CDF and quantile, for confidence intervals.
//
//     double t = t_critical(0.95, 10);      // 2.228..., two-sided 95 %, df = 10
//     double q = student_t_quantile(0.975, 30);  // 2.042...
//
// Built on the regularized incomplete beta function I_x(a, b), evaluated by its
// continued fraction (modified Lentz); the quantile inverts the CDF by
// bracketing and bisection to ~1e-13 relative. Accuracy is better than 1e-9
// for df >= 1 (tests compare against closed forms for df = 1, 2 and table
// values). Invalid arguments give NaN, never an exception.
#ifndef NGX_FIT_STUDENT_T_HPP
#define NGX_FIT_STUDENT_T_HPP

namespace ngx::fit {

// Regularized incomplete beta I_x(a, b) for a, b > 0 and 0 <= x <= 1.
double incomplete_beta(double a, double b, double x) noexcept;

// P(T <= t) for Student's t with df > 0 degrees of freedom (df need not be
// an integer).
double student_t_cdf(double t, double df) noexcept;

// The t with P(T <= t) = p, for 0 < p < 1 and df > 0.
double student_t_quantile(double p, double df) noexcept;

// Two-sided critical value: the t with P(|T| <= t) = level, 0 < level < 1.
double t_critical(double level, double df) noexcept;

} // namespace ngx::fit

#endif
