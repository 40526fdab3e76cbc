#include <models/base/least_squares.hpp>

#include <models/base/failure_text.hpp>

#include <cmath>

namespace ngx::fit {

namespace {

bool all_finite(std::span<const double> v) noexcept
{
    for (double x : v)
        if (!std::isfinite(x))
            return false;
    return true;
}

bool all_equal(std::span<const double> v) noexcept
{
    for (double x : v)
        if (x != v.front())
            return false;
    return true;
}

// The weighted normal equations solved in centred form:
//   b = Sxy / Sxx,  a = ybar - b xbar,
// with xbar, ybar the weighted means and Sxx = sum w (x - xbar)^2,
// Sxy = sum w (x - xbar)(y - ybar). Standard errors (sigma^2 = rss/(n-2)):
//   se(b)^2 = sigma^2 / Sxx,  se(a)^2 = sigma^2 (1/sum w + xbar^2/Sxx),
//   cov(a,b) = -xbar sigma^2 / Sxx.
// Weight 1 everywhere gives ordinary least squares.
LineFit solve_line(std::span<const double> x, std::span<const double> y, std::span<const double> w, double level)
{
    const std::size_t n = x.size();
    auto weight = [&](std::size_t i) { return w.empty() ? 1.0 : w[i]; };
    double sw = 0.0, swx = 0.0, swy = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        sw += weight(i);
        swx += weight(i) * x[i];
        swy += weight(i) * y[i];
    }
    const double xbar = swx / sw;
    const double ybar = swy / sw;
    double sxx = 0.0, sxy = 0.0, syy = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        const double dx = x[i] - xbar;
        const double dy = y[i] - ybar;
        sxx += weight(i) * dx * dx;
        sxy += weight(i) * dx * dy;
        syy += weight(i) * dy * dy;
    }
    LineFit f;
    f.n = n;
    f.level = level;
    const double b = sxy / sxx;
    const double a = ybar - b * xbar;
    f.residuals.resize(n);
    double rss = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        f.residuals[i] = y[i] - (a + b * x[i]);
        rss += weight(i) * f.residuals[i] * f.residuals[i];
    }
    f.rss = rss;
    f.r_squared = syy > 0.0 ? 1.0 - rss / syy : (rss == 0.0 ? 1.0 : 0.0);
    if (n >= 3) {
        const double dof = static_cast<double>(n - 2);
        const double s2 = rss / dof;
        f.sigma = std::sqrt(s2);
        const double se_b = std::sqrt(s2 / sxx);
        const double se_a = std::sqrt(s2 * (1.0 / sw + xbar * xbar / sxx));
        f.cov = -xbar * s2 / sxx;
        f.intercept = Measured::from_std_error(a, se_a, dof, level);
        f.slope = Measured::from_std_error(b, se_b, dof, level);
    } else {
        f.intercept = Measured::exact(a);
        f.slope = Measured::exact(b);
    }
    return f;
}

Status check_inputs(std::span<const double> x, std::span<const double> y, double level)
{
    if (x.size() != y.size())
        return invalid_input("x and y differ in length (" + std::to_string(x.size()) + " vs " +
                             std::to_string(y.size()) + ")");
    if (!(level > 0.0 && level < 1.0))
        return invalid_input("confidence level " + detail::number(level) + " is not in (0, 1)");
    if (!all_finite(x) || !all_finite(y))
        return invalid_input("a value of x or y is not finite");
    if (x.size() < 2)
        return too_few_points(detail::count(x.size(), "point") + ", a line needs 2");
    if (all_equal(x))
        return degenerate("all " + std::to_string(x.size()) + " x are " + detail::number(x[0]) + ", no slope");
    return Status::ok();
}

} // namespace

double LineFit::predict_std_error(double x) const noexcept
{
    if (!has_intervals())
        return Measured::nan;
    const double var =
        intercept.std_error * intercept.std_error + 2.0 * x * cov + x * x * slope.std_error * slope.std_error;
    return std::sqrt(var > 0.0 ? var : 0.0);
}

Result<LineFit> fit_line(std::span<const double> x, std::span<const double> y, double level)
{
    NGX_TRY(check_inputs(x, y, level));
    return solve_line(x, y, {}, level);
}

Result<LineFit> fit_line_weighted(std::span<const double> x, std::span<const double> y, std::span<const double> w,
                                  double level)
{
    NGX_TRY(check_inputs(x, y, level));
    if (w.size() != x.size())
        return invalid_input(std::to_string(w.size()) + " weights for " + detail::count(x.size(), "point"));
    for (double wi : w)
        if (!std::isfinite(wi) || !(wi > 0.0))
            return invalid_input("weight " + detail::number(wi) + " is not finite and positive");
    return solve_line(x, y, w, level);
}

std::vector<double> relative_weights(std::span<const double> y)
{
    std::vector<double> w(y.size());
    for (std::size_t i = 0; i < y.size(); ++i)
        w[i] = (std::isfinite(y[i]) && y[i] != 0.0) ? 1.0 / (y[i] * y[i]) : 0.0;
    return w;
}

} // namespace ngx::fit
