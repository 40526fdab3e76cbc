#include <models/base/linear_model.hpp>
#include <models/maxrate/maxrate.hpp>

#include <models/base/failure_text.hpp>
#include <models/base/linear_impl.hpp>
#include <models/base/rounds.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

namespace ngx::fit {

namespace {

constexpr double inf = MaxRateParams::inf;

// The best split of the points for one rho: linear solve in (s, a, c).
struct RhoFit {
    bool ok = false;
    double rho = 1;
    double s = 0, a = 0, c = 0; // a = 1/R_Cb, c = 1/R_N (0 = infinite rate)
    Measured ms, ma, mc;
    double rss = inf;
    std::size_t net = 0;
    double threshold = inf; // v_k >= threshold: network-limited
};

// Gropp et al. 2016's four-parameter max-rate model T = s + k n / min(R_N, R_Cb +
// (k-1) R_Ci) in the (s, a, c, rho) form: T = s + n max(c k, a k / v_k).
double model(double s, double a, double c, double rho, double k, double n)
{
    const double v = 1 + (k - 1) * rho;
    return s + n * std::max(c * k, a * k / v);
}

double true_rss(std::span<const NodeCommPoint> pts, std::span<const double> w, const RhoFit& f)
{
    double rss = 0;
    for (std::size_t i = 0; i < pts.size(); ++i) {
        const double r = pts[i].t - model(f.s, f.a, f.c, f.rho, pts[i].k, pts[i].n);
        rss += (w.empty() ? 1.0 : w[i]) * r * r;
    }
    return rss;
}

// Linear least squares for one split: points with v_k >= threshold are
// network-limited (column c), the others core-limited (column a).
RhoFit solve_split(std::span<const NodeCommPoint> pts, std::span<const double> w, double rho, double threshold,
                   double level, bool intervals)
{
    RhoFit f;
    f.rho = rho;
    std::vector<bool> net(pts.size());
    bool any_core = false, any_net = false;
    for (std::size_t i = 0; i < pts.size(); ++i) {
        net[i] = 1 + (pts[i].k - 1) * rho >= threshold;
        any_net |= net[i];
        any_core |= !net[i];
    }
    const std::size_t p = 1 + any_core + any_net;
    std::vector<double> X, y;
    for (std::size_t i = 0; i < pts.size(); ++i) {
        const double v = 1 + (pts[i].k - 1) * rho;
        X.push_back(1.0);
        if (any_core)
            X.push_back(net[i] ? 0.0 : pts[i].n * pts[i].k / v);
        if (any_net)
            X.push_back(net[i] ? pts[i].n * pts[i].k : 0.0);
        y.push_back(pts[i].t);
    }
    Result<LinearFit> r = detail::fit_linear_impl(X, p, y, w, level, intervals);
    if (!r)
        return f;
    f.threshold = threshold;
    f.ms = r->coef[0];
    if (any_core)
        f.ma = r->coef[1];
    if (any_net)
        f.mc = r->coef[p - 1];
    f.s = f.ms.value;
    f.a = any_core ? f.ma.value : 0.0;
    f.c = any_net ? f.mc.value : 0.0;
    if (f.a < 0 || f.c < 0)
        return f;
    f.net = static_cast<std::size_t>(std::count(net.begin(), net.end(), true));
    f.rss = true_rss(pts, w, f);
    f.ok = true;
    return f;
}

RhoFit fit_for_rho(std::span<const NodeCommPoint> pts, std::span<const double> w, double rho, double level)
{
    std::vector<double> v;
    for (const NodeCommPoint& p : pts) {
        v.push_back(1 + (p.k - 1) * rho);
        if (!(v.back() > 0))
            return {};
    }
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    v.push_back(inf); // no point network-limited
    // From "none network-limited" towards "all": a split with more
    // network-limited points must fit clearly better (ties, as on exact data
    // without a network limit, keep R_N = inf).
    double scale = 0;
    for (std::size_t i = 0; i < pts.size(); ++i)
        scale += (w.empty() ? 1.0 : w[i]) * pts[i].t * pts[i].t;
    const double tie = 1e-20 * scale;
    RhoFit best;
    for (auto it = v.rbegin(); it != v.rend(); ++it) {
        RhoFit f = solve_split(pts, w, rho, *it, level, false);
        if (f.ok && (!best.ok || f.rss < best.rss - tie))
            best = f;
    }
    return best;
}

// Four-parameter model: profile rho on a grid, refine by golden section.
RhoFit fit_four(std::span<const NodeCommPoint> pts, std::span<const double> w, const MaxRateOptions& opt)
{
    double k_max = 1;
    for (const NodeCommPoint& p : pts)
        k_max = std::max(k_max, p.k);
    const double lo = -1.0 / (k_max - 1);
    const double span = opt.rho_max - lo;
    const double first = lo + 1e-3 * span;
    const std::size_t m = std::max<std::size_t>(opt.rho_grid, 3);
    auto rho_at = [&](std::size_t i) { return first + (opt.rho_max - first) * double(i) / double(m - 1); };
    auto cost = [&](double rho) {
        const RhoFit f = fit_for_rho(pts, w, rho, opt.level);
        return f.ok ? f.rss : inf;
    };
    std::size_t best_i = 0;
    double best_cost = inf;
    for (std::size_t i = 0; i < m; ++i)
        if (const double c = cost(rho_at(i)); c < best_cost) {
            best_cost = c;
            best_i = i;
        }
    double a = rho_at(best_i > 0 ? best_i - 1 : 0), b = rho_at(std::min(best_i + 1, m - 1));
    const double phi = (std::sqrt(5.0) - 1) / 2;
    double x1 = b - phi * (b - a), x2 = a + phi * (b - a);
    double f1 = cost(x1), f2 = cost(x2);
    for (int it = 0; it < 60; ++it) {
        if (f1 <= f2) {
            b = x2;
            x2 = x1;
            f2 = f1;
            x1 = b - phi * (b - a);
            f1 = cost(x1);
        } else {
            a = x1;
            x1 = x2;
            f1 = f2;
            x2 = a + phi * (b - a);
            f2 = cost(x2);
        }
    }
    double rho = f1 <= f2 ? x1 : x2;
    if (std::min(f1, f2) > best_cost)
        rho = rho_at(best_i);
    return fit_for_rho(pts, w, rho, opt.level);
}

// Rate 1/x with the interval of x inverted.
Measured inverse_rate(const Measured& x, bool present)
{
    if (!present || !(x.value > 0))
        return Measured::exact(inf);
    Measured r;
    r.value = 1 / x.value;
    r.std_error = x.std_error / (x.value * x.value);
    if (x.has_interval()) {
        r.lower = 1 / x.upper;
        r.upper = x.lower > 0 ? 1 / x.lower : inf;
        r.level = x.level;
    }
    return r;
}

// R_Ci = rho / a (rho = R_Ci / R_Cb, a = 1 / R_Cb) with its interval by the
// delta method. rho is profiled, not a coefficient of the final linear solve,
// so the covariance of (s, a, c, rho) is that of the model linearised at the
// optimum: the weighted regression of the residuals on the Jacobian J of
// T = s + n max(c k, a k / v_k) (the Gauss-Newton step), cov = sigma^2
// (J' W J)^-1; then var(R_Ci) = g' cov g with g = (0, -rho / a^2, 0, 1 / a),
// and the t interval has n - 4 degrees of freedom (n - 3 without c).
Measured increment_rate(std::span<const NodeCommPoint> pts, std::span<const double> w, const RhoFit& f, double level)
{
    const Measured bare = Measured::exact(f.rho / f.a);
    bool any_net = false;
    for (const NodeCommPoint& pt : pts)
        any_net |= 1 + (pt.k - 1) * f.rho >= f.threshold;
    const std::size_t p = any_net ? 4 : 3; // s, a, [c,] rho
    std::vector<double> J, r;
    for (const NodeCommPoint& pt : pts) {
        const double v = 1 + (pt.k - 1) * f.rho;
        const bool net = v >= f.threshold;
        J.push_back(1.0);
        J.push_back(net ? 0.0 : pt.n * pt.k / v);
        if (any_net)
            J.push_back(net ? pt.n * pt.k : 0.0);
        J.push_back(net ? 0.0 : -f.a * pt.n * pt.k * (pt.k - 1) / (v * v));
        r.push_back(pt.t - model(f.s, f.a, f.c, f.rho, pt.k, pt.n));
    }
    Result<LinearFit> step = detail::fit_linear_impl(J, p, r, w, level, true);
    if (!step || step->n <= p)
        return bare;
    const auto cov = [&](std::size_t i, std::size_t j) { return step->covariance[i * p + j]; };
    const double ga = -f.rho / (f.a * f.a), gr = 1 / f.a; // dR_Ci/da, dR_Ci/drho
    const double var = ga * ga * cov(1, 1) + 2 * ga * gr * cov(1, p - 1) + gr * gr * cov(p - 1, p - 1);
    if (!(var >= 0))
        return bare;
    return Measured::from_std_error(bare.value, std::sqrt(var), double(step->n - p), level);
}

Status validate(std::span<const NodeCommPoint> pts, MaxRateVariant variant, const MaxRateOptions& opt)
{
    for (const NodeCommPoint& p : pts)
        if (!std::isfinite(p.k) || p.k < 1 || !std::isfinite(p.n) || p.n < 0 || !std::isfinite(p.t) || !(p.t > 0))
            return invalid_input("the point k = " + detail::number(p.k) + ", n = " + detail::number(p.n) +
                                 " B, T = " + detail::number(p.t) + " needs k >= 1, n >= 0 and T > 0, all finite");
    if (!(opt.level > 0 && opt.level < 1) || !(opt.rho_max > 0))
        return invalid_input("confidence level " + detail::number(opt.level) + " is not in (0, 1) or rho_max " +
                             detail::number(opt.rho_max) + " is not positive");
    if (pts.size() < 3)
        return too_few_points(detail::count(pts.size(), "point") + ", max-rate needs more than 3");
    auto varies = [&](double NodeCommPoint::*field) {
        return std::any_of(pts.begin(), pts.end(),
                           [&](const NodeCommPoint& p) { return p.*field != pts.front().*field; });
    };
    if (!varies(&NodeCommPoint::k)) // one k: R_N and R_C cannot be told apart
        return degenerate("every point has k = " + detail::number(pts.front().k) + ", R_N and R_C need 2 pair counts");
    if (!varies(&NodeCommPoint::n)) // one size: the startup and the rates cannot be told apart
        return degenerate("every point has n = " + detail::number(pts.front().n) +
                          " B, the startup and the rates need 2 sizes");
    // More points than parameters, or the intervals have no degrees of freedom.
    const std::size_t parameters = variant == MaxRateVariant::three_parameter ? 3 : 4;
    if (pts.size() <= parameters)
        return too_few_points(detail::count(pts.size(), "point") + " for " + detail::count(parameters, "parameter") +
                              ", the intervals need one more");
    return Status::ok();
}

} // namespace

double MaxRateParams::rate(double k) const noexcept
{
    const double core = std::isinf(R_Cb) ? inf : R_Cb + (k - 1) * R_Ci;
    return std::min(R_N, core);
}

double MaxRateParams::time(double k, double n) const noexcept
{
    const double r = rate(k);
    if (!(k >= 1) || !(r > 0))
        return Measured::nan;
    return s + k * n / r; // Gropp et al. 2016: T = s + k n / min(R_N, R_Cb + (k-1) R_Ci)
}

double MaxRateParams::k_star() const noexcept
{
    if (std::isinf(R_N))
        return inf;
    if (R_Cb >= R_N)
        return 1;
    if (!(R_Ci > 0))
        return inf;
    return 1 + (R_N - R_Cb) / R_Ci; // = R_N / R_C when R_Ci = R_Cb (Gropp et al. 2016)
}

double MaxRateParams::linear_bcast(double P, double n) const noexcept
{
    if (!(P >= 1))
        return Measured::nan;
    return (P - 1) * time(1, n);
}

double MaxRateParams::tree_bcast(double P, double n) const noexcept
{
    if (!(P >= 1))
        return Measured::nan;
    return detail::binomial_rounds(P) * time(1, n);
}

Result<MaxRateFit> fit_maxrate(std::span<const NodeCommPoint> pts, MaxRateVariant variant, const MaxRateOptions& opt)
{
    NGX_TRY(validate(pts, variant, opt));
    std::vector<double> w;
    if (opt.relative_weights)
        for (const NodeCommPoint& p : pts)
            w.push_back(1 / (p.t * p.t));

    const RhoFit found =
        variant == MaxRateVariant::three_parameter ? fit_for_rho(pts, w, 1.0, opt.level) : fit_four(pts, w, opt);
    if (!found.ok)
        return degenerate("no split of the " + detail::count(pts.size(), "point") + " gave a solvable max-rate system");
    // The chosen split once more, now with its confidence intervals.
    const RhoFit best = solve_split(pts, w, found.rho, found.threshold, opt.level, true);
    if (!best.ok)
        return degenerate("the chosen split (rho = " + detail::number(found.rho) + ") has no confidence intervals");

    MaxRateFit f;
    f.variant = variant;
    f.rho = best.rho;
    f.rss = best.rss;
    f.network_limited = best.net;
    f.s = best.ms;
    f.R_Cb = inverse_rate(best.ma, best.a > 0);
    f.R_N = inverse_rate(best.mc, best.c > 0);
    f.params.s = best.s;
    f.params.R_Cb = f.R_Cb.value;
    if (std::isinf(f.R_Cb.value))
        f.R_Ci = Measured::exact(inf);
    else if (variant == MaxRateVariant::three_parameter)
        f.R_Ci = f.R_Cb; // R_Ci = R_Cb = R_C
    else
        f.R_Ci = increment_rate(pts, w, best, opt.level);
    f.params.R_Ci = f.R_Ci.value;
    f.params.R_N = f.R_N.value;
    ModelErrorAccumulator err;
    for (const NodeCommPoint& p : pts)
        err.add(p.t, f.params.time(p.k, p.n));
    f.error = err.result();
    return f;
}

} // namespace ngx::fit
