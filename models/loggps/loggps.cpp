#include <models/loggps/loggps.hpp>

#include <models/base/failure_text.hpp>
#include <models/base/linear_impl.hpp>
#include <models/base/rounds.hpp>

#include <algorithm>
#include <array>
#include <cmath>

namespace ngx::fit {

namespace {

constexpr double inf = LogGPSParams::inf;
constexpr double nan_v = Measured::nan;

// End of a blocking receive called at t_r for a message whose send was
// called at t_s: t_r + recv_cost(k, t_r - t_s), Ino et al. 2001 Table 4 eq. (7)-(9), written
// so that t_r = -inf (receiver long waiting) works.
double recv_end(const LogGPSParams& p, double k, double t_s, double t_r)
{
    if (k <= p.S) // Ino et al. 2001, eq. (7), (8): max{T1 + T2 - (t_r - t_s), 0} + T3
        return std::max(t_s + p.t1(k) + p.t2(k), t_r) + p.t3(k);
    // Ino et al. 2001, eq. (9): max{o' + L - (t_r - t_s), 0} + o' + T5 + T1 + T2' + T3
    return std::max(t_s + p.o_prime + p.L, t_r) + p.o_prime + p.t5() + p.t1(k) + p.t2(k) + p.t3(k);
}

} // namespace

// ---- Ino et al. 2001, Table 3 ----------------------------------------------------

// Ino et al. 2001, Table 3: T1 = o' + k O_s, T2 = k G_s + L, T2' = s G_s + (k-s) G_l + L,
// T3 = o' + k O_r, T4 = max{o' + L, t_r - t_s} + o', T5 = o' + L + o'.
double LogGPSParams::t1(double k) const noexcept
{
    return o_prime + k * O_s;
}

double LogGPSParams::t2(double k) const noexcept
{
    if (k <= s)
        return k * G_s + L;             // T2
    return s * G_s + (k - s) * G_l + L; // T2'
}

double LogGPSParams::t3(double k) const noexcept
{
    return o_prime + k * O_r;
}
double LogGPSParams::t4(double wait) const noexcept
{
    return std::max(o_prime + L, wait) + o_prime;
}
double LogGPSParams::t5() const noexcept
{
    return o_prime + L + o_prime;
}

double LogGPSParams::comm_cost(double k, double wait) const noexcept
{
    if (k <= S)
        return t1(k) + t2(k) + t3(k);               // Ino et al. 2001, eq. (1), (2)
    return t4(wait) + t5() + t1(k) + t2(k) + t3(k); // Ino et al. 2001, eq. (3)
}

// ---- Ino et al. 2001, Table 4 ----------------------------------------------------

double LogGPSParams::send_cost(double k, double wait) const noexcept
{
    if (k <= S)
        return t1(k);               // Ino et al. 2001, eq. (4)
    return t4(wait) + t5() + t1(k); // Ino et al. 2001, eq. (5)
}

double LogGPSParams::isend_cost() const noexcept
{
    return o_prime;
} // Ino et al. 2001, eq. (6)

double LogGPSParams::recv_cost(double k, double wait) const noexcept
{
    if (k <= S)
        return std::max(t1(k) + t2(k) - wait, 0.0) + t3(k);                            // Ino et al. 2001, eq. (7), (8)
    return std::max(o_prime + L - wait, 0.0) + o_prime + t5() + t1(k) + t2(k) + t3(k); // Ino et al. 2001, eq. (9)
}

double LogGPSParams::irecv_cost() const noexcept
{
    return o_prime;
} // Ino et al. 2001, eq. (10)

double LogGPSParams::wait_cost(double t_blk, double elapsed) const noexcept
{
    return std::max(t_blk - elapsed, o_prime); // Ino et al. 2001, eq. (11)
}

// ---- Ino et al. 2001, Table 6 and derived predictions ----------------------------

double LogGPSParams::rtt(double k, double w) const noexcept
{
    if (!(k >= 0) || !(w >= 0))
        return nan_v;
    if (k <= S) // Ino et al. 2001, eq. (12), (13)
        return std::max(t1(k) + 2 * t2(k) + t3(k) - w, 0.0) + w + t1(k) + t3(k);
    // Ino et al. 2001, eq. (14), with T4 = 2o' + L (the receiver is waiting for both REQs).
    const double T4 = t4(-inf);
    return std::max(t2(k) + t3(k) + o_prime + L - w, 0.0) + w + 2 * t1(k) + t2(k) + t3(k) + 2 * T4 + 2 * t5() -
           (o_prime + L);
}

double LogGPSParams::prtt(double n, double d, double k) const noexcept
{
    if (!(n >= 1) || !(d >= 0) || !(k >= 0))
        return nan_v;
    double send_end = 0;
    double last_recv_end = -inf; // P1 sits in its first receive from the start
    for (double i = 0; i < n; ++i) {
        const double t_s = i == 0 ? 0.0 : send_end + d;
        const double t_r = last_recv_end; // P1 calls receive i when receive i-1 ends
        send_end = t_s + send_cost(k, t_r - t_s);
        last_recv_end = recv_end(*this, k, t_s, t_r);
    }
    // The reply: P1 sends when its last receive ends, P0 receives after its last send.
    return recv_end(*this, k, last_recv_end, send_end);
}

double LogGPSParams::linear_bcast(double P, double k) const noexcept
{
    if (!(P >= 1) || !(k >= 0))
        return nan_v;
    if (P < 2)
        return 0;
    return (P - 2) * send_cost(k) + comm_cost(k);
}

double LogGPSParams::tree_bcast(double P, double k) const noexcept
{
    if (!(P >= 1) || !(k >= 0))
        return nan_v;
    const double h = detail::binomial_rounds(P);
    if (h == 0)
        return 0;
    // Cameron et al. 2007 section 4.3.3: h (2o + L + kG) + (h-1) g, with the LogGPS
    // message cost (Ino et al. 2001, Table 3) for 2o + L + kG.
    return h * comm_cost(k) + (h - 1) * g;
}

// ---- Fitting ---------------------------------------------------------------

namespace {

// A quantity linear in theta = (L, o', O_s, O_r, G_s, G_l) plus a constant.
enum Param { pL, pO, pOs, pOr, pGs, pGl, n_params };

struct Lin {
    std::array<double, n_params> c{};
    double k0 = 0;
    Lin operator+(const Lin& b) const
    {
        Lin r = *this;
        for (int i = 0; i < n_params; ++i)
            r.c[i] += b.c[i];
        r.k0 += b.k0;
        return r;
    }
    Lin operator-(const Lin& b) const { return *this + b * -1.0; }
    Lin operator*(double f) const
    {
        Lin r = *this;
        for (double& x : r.c)
            x *= f;
        r.k0 *= f;
        return r;
    }
    double eval(const std::array<double, n_params>& th) const
    {
        double v = k0;
        for (int i = 0; i < n_params; ++i)
            v += c[i] * th[i];
        return v;
    }
};

Lin term(Param p, double coef)
{
    Lin r;
    r.c[p] = coef;
    return r;
}

Lin constant(double v)
{
    Lin r;
    r.k0 = v;
    return r;
}

// Ino et al. 2001, Table 6 for one point, as a linear form, on the branch `a_branch` of the
// max{} (true: its first argument is positive). `arg` receives the form of
// that first argument (whose sign decides the branch).
Lin rtt_form(double k, double w, double s, double S, bool a_branch, Lin& arg)
{
    const Lin T1 = term(pO, 1) + term(pOs, k);
    const Lin T2 = k <= s ? term(pL, 1) + term(pGs, k)                     // T2
                          : term(pL, 1) + term(pGs, s) + term(pGl, k - s); // T2'
    const Lin T3 = term(pO, 1) + term(pOr, k);
    if (k <= S) { // Ino et al. 2001, eq. (12), (13)
        arg = T1 + T2 * 2 + T3 - constant(w);
        return a_branch ? (T1 + T2 + T3) * 2 : T1 + T3 + constant(w);
    }
    const Lin oL = term(pO, 1) + term(pL, 1);
    const Lin T45 = term(pO, 2) + term(pL, 1); // T4 (receiver waiting) = T5 = 2o' + L
    arg = T2 + T3 + oL - constant(w);          // Ino et al. 2001, eq. (14)
    return a_branch ? (T1 + T2 + T3) * 2 + T45 * 4 : constant(w) + T1 * 2 + T2 + T3 + T45 * 4 - oL;
}

struct Candidate {
    double s = inf, S = inf;
    bool tie_O = false;  // no rendezvous point: O_s = O_r
    bool has_Gl = false; // some point above s
    LinearFit fit;
    std::array<double, n_params> theta{};
    std::array<Measured, n_params> measured{};
    std::vector<bool> a_branch;
    double rss = inf; // residual of the true Table 6 model
    double bic = inf;
};

// Columns actually estimated, as (first param, second param or -1 if alone).
std::vector<std::array<int, 2>> columns_of(const Candidate& c)
{
    std::vector<std::array<int, 2>> cols{{pL, -1}, {pO, -1}};
    if (c.tie_O)
        cols.push_back({pOs, pOr});
    else {
        cols.push_back({pOs, -1});
        cols.push_back({pOr, -1});
    }
    cols.push_back({pGs, -1});
    if (c.has_Gl)
        cols.push_back({pGl, -1});
    return cols;
}

// The design of one linear solve for the current branches of c.
void build_design(std::span<const RttPoint> pts, const Candidate& c, const std::vector<std::array<int, 2>>& cols,
                  std::vector<double>& X, std::vector<double>& y)
{
    X.clear();
    y.clear();
    for (std::size_t i = 0; i < pts.size(); ++i) {
        Lin arg;
        const Lin f = rtt_form(pts[i].size, pts[i].w, c.s, c.S, c.a_branch[i], arg);
        for (const auto& col : cols)
            X.push_back(f.c[col[0]] + (col[1] >= 0 ? f.c[col[1]] : 0.0));
        y.push_back(pts[i].rtt - f.k0);
    }
}

void unpack(const LinearFit& fit, const std::vector<std::array<int, 2>>& cols, Candidate& c)
{
    c.theta.fill(0.0);
    c.measured.fill(Measured{});
    for (std::size_t j = 0; j < cols.size(); ++j)
        for (int q : cols[j])
            if (q >= 0) {
                c.theta[q] = fit.coef[j].value;
                c.measured[q] = fit.coef[j];
            }
}

// Re-derives each w > 0 point's Table 6 branch from theta; true if any changed.
bool update_branches(std::span<const RttPoint> pts, Candidate& c)
{
    bool changed = false;
    for (std::size_t i = 0; i < pts.size(); ++i) {
        if (!(pts[i].w > 0))
            continue;
        Lin arg;
        rtt_form(pts[i].size, pts[i].w, c.s, c.S, c.a_branch[i], arg);
        const bool a = arg.eval(c.theta) > 0;
        changed |= a != c.a_branch[i];
        c.a_branch[i] = a;
    }
    return changed;
}

LogGPSParams params_of(const Candidate& c)
{
    LogGPSParams p;
    p.L = c.theta[pL];
    p.o_prime = c.theta[pO];
    p.O_s = c.theta[pOs];
    p.O_r = c.theta[pOr];
    p.G_s = c.theta[pGs];
    p.G_l = c.theta[pGl];
    p.s = c.s;
    p.S = c.S;
    return p;
}

// Fits the six parameters for fixed thresholds: linear least squares with
// the max{} branches of Table 6 iterated to a fixed point (at most 12
// rounds). c.rss is the residual of the true (max) model, so a candidate
// whose branches did not settle is still judged fairly.
bool solve_candidate(std::span<const RttPoint> pts, std::span<const double> w, Candidate& c, double level,
                     bool intervals)
{
    const auto cols = columns_of(c);
    c.a_branch.assign(pts.size(), false);
    for (std::size_t i = 0; i < pts.size(); ++i)
        c.a_branch[i] = !(pts[i].w > 0);
    std::vector<double> X, y;
    for (int iter = 0; iter < 12; ++iter) {
        build_design(pts, c, cols, X, y);
        Result<LinearFit> r = detail::fit_linear_impl(X, cols.size(), y, w, level, intervals);
        if (!r)
            return false;
        unpack(*r, cols, c);
        c.fit = std::move(*r);
        if (!update_branches(pts, c))
            break;
    }
    const LogGPSParams p = params_of(c);
    c.rss = 0;
    for (std::size_t i = 0; i < pts.size(); ++i) {
        const double res = pts[i].rtt - p.rtt(pts[i].size, pts[i].w);
        c.rss += (w.empty() ? 1.0 : w[i]) * res * res;
    }
    return true;
}

std::vector<double> point_weights(std::span<const RttPoint> pts, Weighting weights)
{
    if (weights == Weighting::none)
        return {};
    double m = 0;
    for (const RttPoint& p : pts)
        m = std::max(m, p.rtt - p.w);
    std::vector<double> w;
    for (const RttPoint& p : pts) {
        const double c = std::max(p.rtt - p.w, 1e-6 * m);
        w.push_back(1.0 / (c * c));
    }
    return w;
}

// Bayesian information criterion n ln(RSS/n) + p ln n of one candidate,
// plus threshold_penalty ln n per threshold with measured sizes above it
// (its position is a fitted quantity too, chosen among many).
double bic_of(const Candidate& c, double floor, double threshold_penalty)
{
    const double n = static_cast<double>(c.fit.n);
    const double thresholds = (c.has_Gl ? 1.0 : 0.0) + (c.tie_O ? 0.0 : 1.0);
    return n * std::log(std::max(c.rss, floor) / n) +
           (static_cast<double>(c.fit.p) + threshold_penalty * thresholds) * std::log(n);
}

std::size_t sizes_above(const std::vector<double>& sizes, double t)
{
    return static_cast<std::size_t>(std::count_if(sizes.begin(), sizes.end(), [t](double s) { return s > t; }));
}

// A searched threshold needs min_sizes_above sizes above it (or none: no
// threshold within the measured sizes).
bool enough_above(const std::vector<double>& sizes, double t, bool given, std::size_t min_above)
{
    const std::size_t above = sizes_above(sizes, t);
    return given || above == 0 || above >= min_above;
}

Status validate(std::span<const RttPoint> pts, const LogGPSOptions& opt)
{
    for (const RttPoint& p : pts)
        if (!std::isfinite(p.size) || p.size < 0 || !std::isfinite(p.w) || p.w < 0 || !std::isfinite(p.rtt))
            return invalid_input("the point at " + detail::number(p.size) + " B, w = " + detail::number(p.w) +
                                 " has a negative or non-finite size, w or RTT");
    if (opt.s && !(*opt.s >= 0))
        return invalid_input("threshold s = " + detail::number(*opt.s) + " is below 0");
    if (opt.S && !(*opt.S >= 0))
        return invalid_input("threshold S = " + detail::number(*opt.S) + " is below 0");
    if (opt.s && opt.S && *opt.S < *opt.s)
        return invalid_input("threshold S = " + detail::number(*opt.S) + " is below s = " + detail::number(*opt.s));
    if (!(opt.level > 0 && opt.level < 1) || !(opt.threshold_penalty >= 0))
        return invalid_input("confidence level " + detail::number(opt.level) +
                             " is not in (0, 1) or threshold penalty " + detail::number(opt.threshold_penalty) +
                             " is below 0");
    if (pts.size() < 4)
        return too_few_points(detail::count(pts.size(), "point") + ", LogGPS needs 4");
    return Status::ok();
}

// Threshold candidates: the given value, or every distinct size from the
// second one on (a threshold at the largest size means "none measured above").
std::vector<double> threshold_candidates(const std::optional<double>& given, const std::vector<double>& sizes)
{
    if (given)
        return {*given};
    if (sizes.size() < 2)
        return {};
    return std::vector<double>(sizes.begin() + 1, sizes.end());
}

double next_size_above(const std::vector<double>& sizes, double t)
{
    for (double s : sizes)
        if (s > t)
            return s;
    return inf;
}

LogGPSFit finish(std::span<const RttPoint> pts, Candidate& best, const std::vector<double>& sizes)
{
    LogGPSFit f;
    f.params = params_of(best);
    LogGPSParams& p = f.params;
    if (!best.has_Gl)
        p.G_l = nan_v;
    p.s = next_size_above(sizes, best.s) < inf ? best.s : inf;
    p.S = next_size_above(sizes, best.S) < inf ? best.S : inf;
    f.s_next = next_size_above(sizes, best.s);
    f.S_next = next_size_above(sizes, best.S);
    f.L = best.measured[pL];
    f.o_prime = best.measured[pO];
    f.O_s = best.measured[pOs];
    f.O_r = best.measured[pOr];
    f.G_s = best.measured[pGs];
    f.G_l = best.has_Gl ? best.measured[pGl] : Measured{};
    f.O_split_assumed = best.tie_O;
    f.G_l_measured = best.has_Gl;
    ModelErrorAccumulator err;
    for (std::size_t i = 0; i < pts.size(); ++i) {
        if (pts[i].w > 0 && best.a_branch[i])
            f.not_overlapped.push_back(i);
        err.add(pts[i].rtt, p.rtt(pts[i].size, pts[i].w));
    }
    f.error = err.result();
    return f;
}

// Whether no cost of Table 3 but G_l is clearly below 0 (95% interval
// wholly negative). A threshold pair that can only be fitted with, say,
// L = -10 ms trades one term against another across too few sizes and
// explains nothing. G_l may be: Ino et al. 2001 itself fits G_l = -0.74 ns/B on
// Myrinet (a correction to G_s above s).
bool physical(const Candidate& c)
{
    for (const Param p : {pL, pO, pOs, pOr, pGs}) {
        const Measured& m = c.measured[p];
        if (m.value < 0 && !(m.has_interval() && m.upper >= 0))
            return false;
    }
    return true;
}

} // namespace

Result<LogGPSFit> fit_loggps(std::span<const RttPoint> pts, const LogGPSOptions& opt)
{
    NGX_TRY(validate(pts, opt));
    std::vector<double> sizes;
    for (const RttPoint& p : pts)
        sizes.push_back(p.size);
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());

    const std::vector<double> w = point_weights(pts, opt.weights);
    double scale = 0;
    for (std::size_t i = 0; i < pts.size(); ++i)
        scale += (w.empty() ? 1.0 : w[i]) * pts[i].rtt * pts[i].rtt;
    const double floor = scale * 1e-24; // residuals at rounding level are all "zero"

    // The lowest BIC among the physical candidates; the lowest of all only
    // where none is physical (then the negative costs show in the output).
    Candidate best, best_unphysical;
    bool found = false, found_unphysical = false;
    for (double s : threshold_candidates(opt.s, sizes)) {
        for (double S : threshold_candidates(opt.S, sizes)) {
            if (S < s || !enough_above(sizes, s, opt.s.has_value(), opt.min_sizes_above) ||
                !enough_above(sizes, S, opt.S.has_value(), opt.min_sizes_above))
                continue;
            Candidate c;
            c.s = s;
            c.S = S;
            c.tie_O = next_size_above(sizes, S) == inf;
            c.has_Gl = next_size_above(sizes, s) < inf;
            if (!solve_candidate(pts, w, c, opt.level, true))
                continue;
            c.bic = bic_of(c, floor, opt.threshold_penalty);
            if (!physical(c)) {
                if (!found_unphysical || c.bic < best_unphysical.bic) {
                    best_unphysical = std::move(c);
                    found_unphysical = true;
                }
            } else if (!found || c.bic < best.bic) {
                best = std::move(c);
                found = true;
            }
        }
    }
    if (!found && !found_unphysical)
        return degenerate("no pair of thresholds s <= S over " + detail::count(sizes.size(), "size") +
                          " gave a solvable LogGPS system");
    if (!found)
        best = std::move(best_unphysical); // solved with intervals in the search
    LogGPSFit f = finish(pts, best, sizes);
    f.bic = best.bic;
    return f;
}

Result<LogGPSFit> fit_loggps(std::span<const double> sizes, std::span<const double> rtt_w0,
                             std::span<const double> rtt_wW, double W, const LogGPSOptions& opt)
{
    if (sizes.size() != rtt_w0.size() || sizes.size() != rtt_wW.size() || !(W > 0) || !std::isfinite(W))
        return invalid_input(std::to_string(sizes.size()) + " sizes, " + std::to_string(rtt_w0.size()) +
                             " RTTs at w = 0 and " + std::to_string(rtt_wW.size()) +
                             " at w = W = " + detail::number(W) + " (equal counts and W > 0 needed)");
    std::vector<RttPoint> pts;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        pts.push_back({sizes[i], 0.0, rtt_w0[i]});
        pts.push_back({sizes[i], W, rtt_wW[i]});
    }
    return fit_loggps(pts, opt);
}

Result<LogGPSParams> derive_loggps_paper(std::span<const double> sizes, std::span<const double> rtt_w0,
                                         std::span<const double> rtt_wW, double W, double s, double S)
{
    const std::size_t n = sizes.size();
    if (rtt_w0.size() != n || rtt_wW.size() != n || !(W > 0) || !(S >= s) || !(s >= 0))
        return invalid_input(std::to_string(n) + " sizes, " + std::to_string(rtt_w0.size()) + " and " +
                             std::to_string(rtt_wW.size()) + " RTTs, W = " + detail::number(W) +
                             ", s = " + detail::number(s) + ", S = " + detail::number(S) +
                             " (equal counts, W > 0 and 0 <= s <= S needed)");
    for (std::size_t i = 1; i < n; ++i)
        if (!(sizes[i] > sizes[i - 1]))
            return invalid_input("sizes are not increasing: " + detail::number(sizes[i - 1]) + " B, then " +
                                 detail::number(sizes[i]) + " B");

    auto segment_line = [&](std::span<const double> y, auto in) -> Result<LineFit> {
        std::vector<double> xs, ys;
        for (std::size_t i = 0; i < n; ++i)
            if (in(sizes[i])) {
                xs.push_back(sizes[i]);
                ys.push_back(y[i]);
            }
        return fit_line(xs, ys);
    };
    // Ino et al. 2001, section 4.3: two intercepts and four gradients.
    const auto short_w0 = segment_line(rtt_w0, [&](double k) { return k <= s; });    // 4o'+2L, 2(Os+Or+Gs)
    const auto async_wW = segment_line(rtt_wW, [&](double k) { return k <= S; });    // 2o'+W, Os+Or
    auto multi_w0 = segment_line(rtt_w0, [&](double k) { return k > s && k <= S; }); // 2(Os+Or+Gl)
    if (!multi_w0)
        multi_w0 = segment_line(rtt_w0, [&](double k) { return k > S; });
    const auto sync_wW = segment_line(rtt_wW, [&](double k) { return k > S; }); // 2Os+Or+Gl
    const std::pair<const Result<LineFit>*, const char*> segments[] = {{&short_w0, "RTT at w = 0 up to s"},
                                                                       {&async_wW, "RTT at w = W up to S"},
                                                                       {&multi_w0, "RTT at w = 0 above s"},
                                                                       {&sync_wW, "RTT at w = W above S"}};
    for (const auto& [r, segment] : segments)
        if (!*r)
            return (r->status().reason() == Reason::degenerate ? too_few_points(r->status().message()) : r->status())
                .with_context(std::string("the line of ") + segment);

    LogGPSParams p;
    p.s = s;
    p.S = S;
    p.o_prime = (async_wW->intercept.value - W) / 2;       // 2o' + W
    p.L = (short_w0->intercept.value - 4 * p.o_prime) / 2; // 4o' + 2L
    const double O_sum = async_wW->slope.value;            // O_s + O_r
    p.G_s = short_w0->slope.value / 2 - O_sum;             // 2(O_s + O_r + G_s)
    p.G_l = multi_w0->slope.value / 2 - O_sum;             // 2(O_s + O_r + G_l)
    p.O_s = sync_wW->slope.value - O_sum - p.G_l;          // 2O_s + O_r + G_l
    p.O_r = O_sum - p.O_s;
    return p;
}

} // namespace ngx::fit
