#include <models/base/measured.hpp>
#include <models/base/student_t.hpp>

#include <algorithm>
#include <vector>

namespace ngx::fit {

Measured Measured::from_std_error(double value, double se, double dof, double level) noexcept
{
    Measured m;
    m.value = value;
    m.std_error = se;
    if (dof >= 1.0 && std::isfinite(se) && level > 0.0 && level < 1.0) {
        const double t = t_critical(level, dof);
        m.lower = value - t * se;
        m.upper = value + t * se;
        m.level = level;
    }
    return m;
}

Measured mean_of(std::span<const double> xs, double level) noexcept
{
    const std::size_t n = xs.size();
    if (n == 0)
        return {};
    double sum = 0.0;
    for (double x : xs)
        sum += x;
    const double mean = sum / static_cast<double>(n);
    if (n == 1)
        return Measured::exact(mean);
    double ss = 0.0;
    for (double x : xs)
        ss += (x - mean) * (x - mean);
    const double sd = std::sqrt(ss / static_cast<double>(n - 1));
    return Measured::from_std_error(mean, sd / std::sqrt(static_cast<double>(n)), static_cast<double>(n - 1), level);
}

Measured weighted_mean_of(std::span<const double> xs, std::span<const double> ws, double level) noexcept
{
    const std::size_t n = xs.size();
    if (n == 0 || ws.size() != n)
        return {};
    double sw = 0.0;
    double swx = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        sw += ws[i];
        swx += ws[i] * xs[i];
    }
    if (!(sw > 0.0))
        return {};
    const double mean = swx / sw;
    if (n == 1)
        return Measured::exact(mean);
    double ss = 0.0;
    for (std::size_t i = 0; i < n; ++i)
        ss += ws[i] * (xs[i] - mean) * (xs[i] - mean);
    const double se = std::sqrt(ss / (static_cast<double>(n - 1) * sw));
    return Measured::from_std_error(mean, se, static_cast<double>(n - 1), level);
}

double median_of(std::span<const double> xs)
{
    if (xs.empty())
        return Measured::nan;
    std::vector<double> v(xs.begin(), xs.end());
    const std::size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
    const double upper = v[mid];
    if (v.size() % 2 == 1)
        return upper;
    const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
    return 0.5 * (lower + upper);
}

} // namespace ngx::fit
