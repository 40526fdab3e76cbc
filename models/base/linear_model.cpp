#include <models/base/linear_model.hpp>
#include <models/base/student_t.hpp>

#include <models/base/failure_text.hpp>
#include <models/base/linear_impl.hpp>

#include <algorithm>
#include <cmath>

namespace ngx::fit {

namespace {

// Column-major n x p matrix of the weighted, column-scaled design.
struct Work {
    std::size_t n, p;
    std::vector<double> a;     // a[j * n + i]
    std::vector<double> b;     // weighted right-hand side
    std::vector<double> scale; // column norms used to scale the design
    double& at(std::size_t i, std::size_t j) { return a[j * n + i]; }
};

Status check(std::span<const double> design, std::size_t p, std::span<const double> y, std::span<const double> w,
             double level)
{
    if (p == 0 || design.size() != y.size() * p)
        return invalid_input("a design of " + std::to_string(design.size()) + " values is not " +
                             std::to_string(y.size()) + " rows of " + detail::count(p, "parameter"));
    if (!w.empty() && w.size() != y.size())
        return invalid_input(std::to_string(w.size()) + " weights for " + detail::count(y.size(), "point"));
    if (!(level > 0.0 && level < 1.0))
        return invalid_input("confidence level " + detail::number(level) + " is not in (0, 1)");
    for (double v : design)
        if (!std::isfinite(v))
            return invalid_input("a value of the design matrix is not finite");
    for (double v : y)
        if (!std::isfinite(v))
            return invalid_input("a measured value is not finite");
    for (double v : w)
        if (!std::isfinite(v) || !(v > 0.0))
            return invalid_input("weight " + detail::number(v) + " is not finite and positive");
    if (y.size() < p)
        return too_few_points(detail::count(y.size(), "point") + " for " + detail::count(p, "parameter"));
    return Status::ok();
}

Work weighted_scaled(std::span<const double> design, std::size_t p, std::span<const double> y,
                     std::span<const double> w)
{
    const std::size_t n = y.size();
    Work m{n, p, std::vector<double>(n * p), std::vector<double>(n), std::vector<double>(p)};
    for (std::size_t i = 0; i < n; ++i) {
        const double sw = w.empty() ? 1.0 : std::sqrt(w[i]);
        m.b[i] = sw * y[i];
        for (std::size_t j = 0; j < p; ++j)
            m.at(i, j) = sw * design[i * p + j];
    }
    for (std::size_t j = 0; j < p; ++j) {
        double ss = 0.0;
        for (std::size_t i = 0; i < n; ++i)
            ss += m.at(i, j) * m.at(i, j);
        m.scale[j] = std::sqrt(ss);
        if (m.scale[j] > 0.0)
            for (std::size_t i = 0; i < n; ++i)
                m.at(i, j) /= m.scale[j];
    }
    return m;
}

// In-place Householder QR: leaves R in the upper triangle of m.a and Q^T b in
// m.b. Returns false when a column is (numerically) dependent on the others.
bool householder(Work& m)
{
    constexpr double rank_tol = 1e-10; // columns have unit norm
    for (std::size_t k = 0; k < m.p; ++k) {
        double norm2 = 0.0;
        for (std::size_t i = k; i < m.n; ++i)
            norm2 += m.at(i, k) * m.at(i, k);
        const double norm = std::sqrt(norm2);
        if (!(norm > rank_tol))
            return false;
        const double alpha = m.at(k, k) > 0.0 ? -norm : norm;
        // v = x - alpha e1, stored in place below the diagonal (v_k separately).
        const double vk = m.at(k, k) - alpha;
        const double vnorm2 = norm2 - m.at(k, k) * m.at(k, k) + vk * vk;
        m.at(k, k) = vk;
        auto reflect = [&](auto&& elem) {
            double dot = 0.0;
            for (std::size_t i = k; i < m.n; ++i)
                dot += m.at(i, k) * elem(i);
            const double f = 2.0 * dot / vnorm2;
            for (std::size_t i = k; i < m.n; ++i)
                elem(i) -= f * m.at(i, k);
        };
        for (std::size_t j = k + 1; j < m.p; ++j)
            reflect([&](std::size_t i) -> double& { return m.at(i, j); });
        reflect([&](std::size_t i) -> double& { return m.b[i]; });
        m.at(k, k) = alpha;
        for (std::size_t i = k + 1; i < m.n; ++i)
            m.at(i, k) = 0.0;
    }
    return true;
}

// Inverse of the upper-triangular p x p R held in m.a.
std::vector<double> invert_r(Work& m)
{
    const std::size_t p = m.p;
    std::vector<double> inv(p * p, 0.0); // row-major
    for (std::size_t c = 0; c < p; ++c) {
        for (std::size_t rr = c + 1; rr-- > 0;) {
            double s = (rr == c) ? 1.0 : 0.0;
            for (std::size_t k = rr + 1; k <= c; ++k)
                s -= m.at(rr, k) * inv[k * p + c];
            inv[rr * p + c] = s / m.at(rr, rr);
        }
    }
    return inv;
}

} // namespace

Result<LinearFit> detail::fit_linear_impl(std::span<const double> design, std::size_t p, std::span<const double> y,
                                          std::span<const double> w, double level, bool with_intervals)
{
    NGX_TRY(check(design, p, y, w, level));
    Work m = weighted_scaled(design, p, y, w);
    for (std::size_t j = 0; j < p; ++j)
        if (!(m.scale[j] > 0.0))
            return degenerate("column " + std::to_string(j) + " of the design is all zero");
    if (!householder(m))
        return degenerate("the " + detail::count(p, "parameter") + " are not independent in these " +
                          detail::count(y.size(), "point"));

    const std::size_t n = y.size();
    std::vector<double> z(p);
    for (std::size_t k = p; k-- > 0;) {
        double s = m.b[k];
        for (std::size_t j = k + 1; j < p; ++j)
            s -= m.at(k, j) * z[j];
        z[k] = s / m.at(k, k);
    }
    LinearFit f;
    f.n = n;
    f.p = p;
    std::vector<double> theta(p);
    for (std::size_t j = 0; j < p; ++j)
        theta[j] = z[j] / m.scale[j];
    f.residuals.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        double pred = 0.0;
        for (std::size_t j = 0; j < p; ++j)
            pred += design[i * p + j] * theta[j];
        f.residuals[i] = y[i] - pred;
        f.rss += (w.empty() ? 1.0 : w[i]) * f.residuals[i] * f.residuals[i];
    }
    f.coef.resize(p);
    f.covariance.assign(p * p, Measured::nan);
    if (n == p) {
        for (std::size_t j = 0; j < p; ++j)
            f.coef[j] = Measured::exact(theta[j]);
        return f;
    }
    const double dof = static_cast<double>(n - p);
    const double s2 = f.rss / dof;
    f.sigma = std::sqrt(s2);
    const std::vector<double> rinv = invert_r(m);
    for (std::size_t i = 0; i < p; ++i)
        for (std::size_t j = 0; j < p; ++j) {
            double c = 0.0;
            for (std::size_t k = std::max(i, j); k < p; ++k)
                c += rinv[i * p + k] * rinv[j * p + k];
            f.covariance[i * p + j] = s2 * c / (m.scale[i] * m.scale[j]);
        }
    // One quantile for all coefficients; searches that only compare
    // residuals skip it (it costs more than the solve).
    const double t = with_intervals ? t_critical(level, dof) : Measured::nan;
    for (std::size_t j = 0; j < p; ++j) {
        Measured& c = f.coef[j];
        c.value = theta[j];
        c.std_error = std::sqrt(f.covariance[j * p + j]);
        if (with_intervals) {
            c.lower = c.value - t * c.std_error;
            c.upper = c.value + t * c.std_error;
            c.level = level;
        }
    }
    return f;
}

Result<LinearFit> fit_linear(std::span<const double> design, std::size_t p, std::span<const double> y,
                             std::span<const double> w, double level)
{
    return detail::fit_linear_impl(design, p, y, w, level, true);
}

} // namespace ngx::fit
