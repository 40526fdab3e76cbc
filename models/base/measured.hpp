// A measured parameter: a value with its standard error and a two-sided
// confidence interval [lower, upper] at `level` (e.g. 0.95).
//
//     Measured g = fit->slope;                 // from a regression
//     if (g.has_interval()) print(g.lower, g.upper);
//     Measured o = mean_of(per_size_overheads, 0.95);   // t interval from the spread
//
// Fields that could not be computed (too few points, a value given rather
// than measured) are NaN; has_interval() tells whether the interval exists.
#ifndef NGX_FIT_MEASURED_HPP
#define NGX_FIT_MEASURED_HPP

#include <cmath>
#include <cstddef>
#include <limits>
#include <span>

namespace ngx::fit {

struct Measured {
    static constexpr double nan = std::numeric_limits<double>::quiet_NaN();

    double value = nan;
    double std_error = nan; // standard error of `value`
    double lower = nan;     // confidence interval, NaN when unavailable
    double upper = nan;
    double level = nan; // confidence level of [lower, upper], e.g. 0.95

    bool has_interval() const noexcept { return std::isfinite(lower) && std::isfinite(upper); }
    bool contains(double x) const noexcept { return has_interval() && lower <= x && x <= upper; }

    // A value known without uncertainty information (no interval).
    static Measured exact(double v) noexcept
    {
        Measured m;
        m.value = v;
        return m;
    }

    // value +- t_{level, dof} * se; no interval when dof < 1 or se is NaN.
    static Measured from_std_error(double value, double se, double dof, double level) noexcept;
};

// Mean of `xs` with the t interval of the mean (df = n - 1): needs n >= 2
// for an interval; n == 1 gives the value alone; n == 0 gives all NaN.
Measured mean_of(std::span<const double> xs, double level = 0.95) noexcept;

// Weighted mean sum(w x) / sum(w) for weights proportional to 1/variance
// (scale unknown). Its standard error is estimated from the weighted spread:
// se^2 = sum(w (x - m)^2) / ((n - 1) sum(w)); interval with df = n - 1.
Measured weighted_mean_of(std::span<const double> xs, std::span<const double> ws, double level = 0.95) noexcept;

// Median (mean of the two middle values for even n); NaN for empty input.
double median_of(std::span<const double> xs);

} // namespace ngx::fit

#endif
