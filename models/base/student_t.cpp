#include <models/base/student_t.hpp>

#include <cmath>
#include <limits>
#include <numbers>

namespace ngx::fit {

namespace {

constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();

// ln Gamma(x) for x > 0: shift x up to >= 15 with Gamma(x+1) = x Gamma(x),
// then Stirling's series to the x^-11 term (truncation error < 1e-16 there).
// Written out instead of std::lgamma, which writes the global `signgam`.
double log_gamma(double x) noexcept
{
    double shift = 0.0;
    while (x < 15.0) {
        shift += std::log(x);
        x += 1.0;
    }
    const double z = 1.0 / x;
    const double z2 = z * z;
    // Bernoulli-number coefficients B_2k / (2k (2k-1)).
    const double series =
        z * (1.0 / 12 +
             z2 * (-1.0 / 360 + z2 * (1.0 / 1260 + z2 * (-1.0 / 1680 + z2 * (1.0 / 1188 + z2 * (-691.0 / 360360))))));
    return (x - 0.5) * std::log(x) - x + 0.5 * std::log(2.0 * std::numbers::pi) + series - shift;
}

// Continued fraction of I_x(a, b) (valid and fast for x < (a+1)/(a+b+2)),
// evaluated with the modified Lentz method. Returns the fraction 1/K where
// I_x(a,b) = x^a (1-x)^b / (a B(a,b)) * (1/K).
double beta_fraction(double a, double b, double x) noexcept
{
    constexpr double tiny = 1e-300;
    constexpr double eps = 1e-16;
    double f = 1.0; // b0 = 1
    double c = f;
    double d = 0.0;
    for (int m = 1; m <= 1000; ++m) {
        // Terms d_{2m-1} (odd) and d_{2m} (even) of the fraction.
        for (int parity = 0; parity < 2; ++parity) {
            double coef;
            if (parity == 0) {
                const double k = m - 1; // d_{2k+1}
                coef = -(a + k) * (a + b + k) * x / ((a + 2 * k) * (a + 2 * k + 1));
            } else {
                const double k = m; // d_{2k}
                coef = k * (b - k) * x / ((a + 2 * k - 1) * (a + 2 * k));
            }
            d = 1.0 + coef * d;
            if (std::fabs(d) < tiny)
                d = tiny;
            c = 1.0 + coef / c;
            if (std::fabs(c) < tiny)
                c = tiny;
            d = 1.0 / d;
            const double delta = c * d;
            f *= delta;
            if (std::fabs(delta - 1.0) < eps)
                return 1.0 / f;
        }
    }
    return 1.0 / f; // converged to working precision long before in practice
}

// I_x(a,b) with both x and y = 1 - x supplied, so that callers who know y
// more precisely than 1 - x (the t tails) do not lose digits.
double incomplete_beta_xy(double a, double b, double x, double y) noexcept
{
    if (x <= 0.0)
        return 0.0;
    if (y <= 0.0)
        return 1.0;
    const double log_front = a * std::log(x) + b * std::log(y) - (log_gamma(a) + log_gamma(b) - log_gamma(a + b));
    if (x < (a + 1.0) / (a + b + 2.0))
        return std::exp(log_front) / a * beta_fraction(a, b, x);
    // Symmetry I_x(a,b) = 1 - I_{1-x}(b,a).
    return 1.0 - std::exp(log_front) / b * beta_fraction(b, a, y);
}

// P(T > t) for t >= 0.
double upper_tail(double t, double df) noexcept
{
    const double t2 = t * t;
    const double x = df / (df + t2);
    const double y = t2 / (df + t2);
    return 0.5 * incomplete_beta_xy(df / 2.0, 0.5, x, y);
}

// Student t density.
double density(double t, double df) noexcept
{
    const double log_c = log_gamma((df + 1) / 2) - log_gamma(df / 2) - 0.5 * std::log(df * std::numbers::pi);
    return std::exp(log_c - (df + 1) / 2 * std::log1p(t * t / df));
}

} // namespace

double incomplete_beta(double a, double b, double x) noexcept
{
    if (!(a > 0.0) || !(b > 0.0) || !(x >= 0.0) || !(x <= 1.0))
        return nan_v;
    return incomplete_beta_xy(a, b, x, 1.0 - x);
}

double student_t_cdf(double t, double df) noexcept
{
    if (!(df > 0.0) || std::isnan(t))
        return nan_v;
    if (std::isinf(t))
        return t > 0 ? 1.0 : 0.0;
    const double tail = upper_tail(std::fabs(t), df);
    return t >= 0.0 ? 1.0 - tail : tail;
}

double student_t_quantile(double p, double df) noexcept
{
    if (!(df > 0.0) || !(p > 0.0) || !(p < 1.0))
        return nan_v;
    if (p == 0.5)
        return 0.0;
    if (p < 0.5)
        return -student_t_quantile(1.0 - p, df);
    const double q = 1.0 - p; // wanted upper tail
    double lo = 0.0;
    double hi = 1.0;
    while (upper_tail(hi, df) > q) {
        lo = hi;
        hi *= 2.0;
        if (hi > 1e300)
            return std::numeric_limits<double>::infinity();
    }
    // The tail is strictly decreasing in t: safeguarded Newton on the bracket
    // [lo, hi] (d tail / dt = -pdf), bisecting whenever Newton would leave it.
    double t = 0.5 * (lo + hi);
    for (int i = 0; i < 200; ++i) {
        const double f = upper_tail(t, df) - q;
        if (f == 0)
            return t;
        if (f > 0)
            lo = t;
        else
            hi = t;
        double next = t + f / density(t, df);
        if (!(next > lo && next < hi))
            next = 0.5 * (lo + hi);
        if (std::fabs(next - t) <= 1e-14 * t || hi - lo <= 1e-14 * hi)
            return next;
        t = next;
    }
    return t;
}

double t_critical(double level, double df) noexcept
{
    if (!(level > 0.0) || !(level < 1.0))
        return nan_v;
    return student_t_quantile(0.5 + 0.5 * level, df);
}

} // namespace ngx::fit
