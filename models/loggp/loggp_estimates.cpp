// The LogGP fit's estimates of one range (see loggp_estimates.hpp).
#include <models/loggp/loggp_estimates.hpp>
#include <models/loggp/loggp_joint.hpp>
#include <models/loggp/loggp_quality.hpp>

#include <models/base/failure_text.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace ngx::fit::detail {

namespace {

constexpr double nan_v = Measured::nan;

// 1/v^2 with |v| floored at 1e-6 max|v| (no infinite weights at v ~ 0).
std::vector<double> guarded_relative_weights(std::span<const double> v)
{
    double vmax = 0;
    for (double x : v)
        vmax = std::max(vmax, std::fabs(x));
    std::vector<double> w(v.size(), 1.0);
    if (!(vmax > 0))
        return w;
    for (std::size_t i = 0; i < v.size(); ++i) {
        const double a = std::max(std::fabs(v[i]), 1e-6 * vmax);
        w[i] = 1.0 / (a * a);
    }
    return w;
}

template <class F>
std::vector<double> slice(std::span<const PrttSample> samples, Range r, F field)
{
    std::vector<double> v;
    for (std::size_t i = r.first; i <= r.last; ++i)
        v.push_back(field(samples[i], i));
    return v;
}

Result<LineFit> line(std::span<const double> x, std::span<const double> y, std::span<const double> w, bool weighted,
                     double level)
{
    return weighted ? fit_line_weighted(x, y, w, level) : fit_line(x, y, level);
}

Measured average(std::span<const double> v, std::span<const double> w, bool weighted, double level)
{
    return weighted ? weighted_mean_of(v, w, level) : mean_of(v, level);
}

OverheadLine overhead_line(const LineFit& f)
{
    return {f.intercept, f.slope};
}

// A line of costs, y = a + b x with a, b >= 0 (a time or a time per byte
// below 0 has no physical reading), and the names of what was held at 0.
// Where the least-squares line (Hoefler et al. 2007 section 3.3; section 4's
// overhead lines) has both >= 0 it is the fit; else the constrained least
// squares (with two coefficients the optimum lies on a bound: Lawson and
// Hanson 1974, ch. 23): the slope held at 0 (a the weighted mean of y) or
// the intercept held at 0 (b through the origin, the mean of y/x weighted
// by w x^2, whose spread is the residual's), whichever is >= 0 and leaves
// the smaller weighted sum of squares; both 0 where neither is.
struct CostLine {
    OverheadLine line;
    std::vector<std::string> held;
};

double weighted_sum_sq(std::span<const double> x, std::span<const double> y, std::span<const double> w, double a,
                       double b)
{
    double sum = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
        sum += w[i] * (y[i] - a - b * x[i]) * (y[i] - a - b * x[i]);
    return sum;
}

CostLine cost_line(const LineFit& fitted, std::span<const double> x, std::span<const double> y,
                   std::span<const double> w, double level, const char* intercept_name, const char* slope_name)
{
    if (fitted.intercept.value >= 0 && fitted.slope.value >= 0)
        return {{fitted.intercept, fitted.slope}, {}};
    const Measured flat = weighted_mean_of(y, w, level);
    std::vector<double> ratio, ratio_w;
    for (std::size_t i = 0; i < x.size(); ++i)
        if (x[i] > 0) {
            ratio.push_back(y[i] / x[i]);
            ratio_w.push_back(w[i] * x[i] * x[i]);
        }
    const Measured through_origin = weighted_mean_of(ratio, ratio_w, level);
    const double flat_ss = flat.value >= 0 ? weighted_sum_sq(x, y, w, flat.value, 0) : nan_v;
    const double origin_ss = through_origin.value >= 0 ? weighted_sum_sq(x, y, w, 0, through_origin.value) : nan_v;
    if (std::isfinite(flat_ss) && !(origin_ss < flat_ss))
        return {{flat, Measured::exact(0)}, {slope_name}};
    if (std::isfinite(origin_ss))
        return {{Measured::exact(0), through_origin}, {intercept_name}};
    return {OverheadLine::exact(0, 0), {intercept_name, slope_name}};
}

// How the paper's estimates of a range are taken: each cost line held >= 0
// (cost_line), or as fitted, a cost below 0 kept.
enum class Costs { admissible, as_fitted };

// The line through (x, y) with weights w (relative or 1, as `rel`), as `costs` says.
Result<CostLine> line_of_costs(std::span<const double> x, std::span<const double> y, std::span<const double> w,
                               bool rel, double level, Costs costs, const char* intercept_name, const char* slope_name,
                               std::optional<LineFit>& fitted)
{
    NGX_ASSIGN_OR_RETURN(LineFit f, line(x, y, w, rel, level));
    fitted = f;
    if (costs == Costs::as_fitted)
        return CostLine{overhead_line(f), {}};
    const std::vector<double> ones(x.size(), 1.0);
    return cost_line(f, x, y, rel ? w : std::span<const double>(ones), level, intercept_name, slope_name);
}

// A constant overhead (a range of one size): held at 0 where it is below.
OverheadLine constant_cost(const Measured& mean, Costs costs, const char* name, std::vector<std::string>& held)
{
    if (costs == Costs::as_fitted || !(mean.value < 0))
        return {mean, {}};
    held.push_back(name);
    return {Measured::exact(0), {}};
}

void append(std::vector<std::string>& to, const std::vector<std::string>& names)
{
    to.insert(to.end(), names.begin(), names.end());
}

// Hoefler et al. 2007 section 4: the receive overhead as a line o_r(s) = o_r + (s-1) O_r
// through the sizes that measured it, weights 1/o_r(s)^2; also its mean.
void fit_receive_overhead(std::span<const PrttSample> samples, Range r, const LogGPOptions& opt, Costs costs,
                          LogGPRange& range, LogGPRangeDetail& detail)
{
    std::vector<double> xs, ors;
    for (std::size_t i = r.first; i <= r.last; ++i)
        if (samples[i].o_r) {
            xs.push_back(samples[i].size - 1);
            ors.push_back(*samples[i].o_r);
        }
    detail.o_r_mean = mean_of(ors, opt.level);
    const bool rel = opt.weights == Weighting::relative;
    if (Result<CostLine> line_r = line_of_costs(xs, ors, guarded_relative_weights(ors), rel, opt.level, costs, "o_r_us",
                                                "O_r_us_per_byte", detail.o_r_line)) {
        range.recv_line = line_r->line;
        append(detail.held_at_zero, line_r->held);
    } else if (!ors.empty()) {
        range.recv_line = constant_cost(detail.o_r_mean, costs, "o_r_us", detail.held_at_zero);
    }
}

// L(s) = PRTT(1,0,s)/2 - o_s(s) - o_r(s) - (s-1) G per size of the range
// (Hoefler et al. 2007 eq. (1) with the overhead lines; 2 o_s(s) without o_r; the
// pipelined form when the range is overlapped).
std::vector<double> paper_L(std::span<const PrttSample> samples, Range r, const LogGPRange& range)
{
    std::vector<double> Ls;
    for (std::size_t i = 0; i < r.count(); ++i) {
        const PrttSample& s = samples[r.first + i];
        Ls.push_back(s.prtt_1_0 / 2 - range.transfer_at(s.size));
    }
    return Ls;
}

// Hoefler et al. 2007's estimates of one range, each from its own equation:
// g and G of eq. (7), the overhead lines (eq. (6) and the measured o_r), L
// of eq. (1) with them; `costs` says whether each line is held >= 0.
Result<LogGPRange> paper_estimates(std::span<const PrttSample> samples, const PerSize& ps, Range r,
                                   const LogGPOptions& opt, Costs costs, LogGPRangeDetail& detail)
{
    const bool rel = opt.weights == Weighting::relative;
    const std::span<const double> xs(ps.x.data() + r.first, r.count());
    const std::span<const double> ys(ps.y.data() + r.first, r.count());
    const std::span<const double> os(ps.o.data() + r.first, r.count());
    const auto prtt1 = slice(samples, r, [](const PrttSample& s, std::size_t) { return s.prtt_1_0; });
    const auto prttd = slice(samples, r, [](const PrttSample& s, std::size_t) { return s.prtt_n_d; });

    LogGPRange range;
    range.from_bytes = samples[r.first].size;
    range.to_bytes = samples[r.last].size;
    // Hoefler et al. 2007 section 3.3: least squares over eq. (7), intercept g, slope G.
    // A time per byte below 0 has no reading: over a few small sizes the
    // slope is noise around 0; eq. (7) with G held at 0 leaves g the mean
    // of y(s). This one hold is the paper's fit's even as fitted.
    std::optional<LineFit> gap_line;
    Result<CostLine> gap =
        line_of_costs(xs, ys, guarded_relative_weights(ys), rel, opt.level, costs, "g_us", "G_us_per_byte", gap_line);
    if (!gap)
        return gap.status().with_context("the range " + detail::number(samples[r.first].size) + ".." +
                                         detail::number(samples[r.last].size) + " B");
    detail.gap_line = *gap_line;
    range.g = gap->line.at_one;
    range.G = gap->line.per_byte;
    append(detail.held_at_zero, gap->held);
    if (costs == Costs::as_fitted && range.G.value < 0) {
        range.G = Measured::exact(0);
        range.g = average(ys, guarded_relative_weights(ys), rel, opt.level);
        detail.held_at_zero.push_back("G_us_per_byte");
    }

    // o_s from Hoefler et al. 2007 eq. (6), as a mean and (section 4) as the line
    // o_s(s) = o_s + (s-1) O_s; weights 1/PRTT(n,d,s)^2 (its noise scale).
    const auto w_o = guarded_relative_weights(prttd);
    detail.o_mean = average(os, w_o, rel, opt.level);
    detail.o_median = median_of(os);
    if (Result<CostLine> ol =
            line_of_costs(xs, os, w_o, rel, opt.level, costs, "o_us", "O_us_per_byte", detail.o_line)) {
        range.send_line = ol->line;
        append(detail.held_at_zero, ol->held);
    } else {
        range.send_line = constant_cost(detail.o_mean, costs, "o_us", detail.held_at_zero); // one size
    }
    fit_receive_overhead(samples, r, opt, costs, range, detail);

    // L of Hoefler et al. 2007 eq. (1) with the overhead lines, the mean of L(s)
    // weighted by 1/PRTT(1,0,s)^2, so that rtt() reproduces PRTT(1,0,s).
    range.L = average(paper_L(samples, r, range), guarded_relative_weights(prtt1), rel, opt.level);
    return range;
}

// ngx: every cost of a LogGP range is >= 0, so the paper's estimates are
// taken with their lines held >= 0 and the joint fit holds its costs (and
// L, but where no L >= 0 meets the goal) at 0 too (loggp_joint.hpp). Where
// no such admissible model meets the goal and the paper's estimates as
// fitted do, a cost below 0 is what the data demand (o and L overlap; a
// stream's gap that grows faster than its messages): those are taken, and
// the range says it is not LogGP (LogGPRange::negative_parameters).
void as_fitted_where_alone_meeting(std::span<const PrttSample> samples, const PerSize& ps, Range r, double n,
                                   const LogGPOptions& opt, LogGPRange& range, LogGPRangeDetail& detail)
{
    const std::span<const PrttSample> part = samples.subspan(r.first, r.count());
    if (!opt.signed_when_missing || !(misfit(range_error(part, n, range)) > 1))
        return;
    LogGPRangeDetail as_fitted_detail;
    Result<LogGPRange> as_fitted = paper_estimates(samples, ps, r, opt, Costs::as_fitted, as_fitted_detail);
    if (!as_fitted || as_fitted->admissible() || !(misfit(range_error(part, n, *as_fitted)) <= 1))
        return;
    range = *as_fitted;
    as_fitted_detail.joint = std::move(detail.joint);
    if (as_fitted_detail.joint)
        as_fitted_detail.joint->improved = false;
    detail = std::move(as_fitted_detail);
}

// Where neither the joint fit (a range of fewer than three sizes, or
// `--loggp-fit paper`) nor a form of L >= 0 replaced the paper's L of eq. (1)
// below 0: L is the weighted mean of L(s), so its least-squares value under
// L >= 0 is 0 (Lawson and Hanson 1974: the optimum of one coefficient lies
// on its bound). The costs are held >= 0 already (Costs::admissible).
void hold_L_at_zero_if_below(LogGPRange& range, LogGPRangeDetail& detail)
{
    if (!(range.L.value < 0))
        return;
    range.L = Measured::exact(0);
    detail.held_at_zero.push_back("L_us");
}

} // namespace

// Fits one protocol range; appends L(s) of its sizes to fit.L_per_size.
Status fit_range(std::span<const PrttSample> samples, const PerSize& ps, Range r, double n, const LogGPOptions& opt,
                 LogGPFit& fit)
{
    LogGPRangeDetail detail;
    NGX_ASSIGN_OR_RETURN(LogGPRange range, paper_estimates(samples, ps, r, opt, Costs::admissible, detail));
    if (opt.joint && r.count() >= 3)
        if (Result<JointFit> joint =
                refine_range_jointly(samples.subspan(r.first, r.count()), n, opt.weights, opt.level, range,
                                     opt.signed_when_missing, opt.relative_noise))
            detail.joint = std::move(*joint);
    as_fitted_where_alone_meeting(samples, ps, r, n, opt, range, detail);
    if (!opt.signed_when_missing)
        hold_L_at_zero_if_below(range, detail);
    const std::vector<double> Ls = paper_L(samples, r, range); // with the final parameters
    detail.L_median = median_of(Ls);
    fit.L_per_size.insert(fit.L_per_size.end(), Ls.begin(), Ls.end());

    detail.indices = r;
    fit.params.ranges.push_back(range);
    fit.details.push_back(std::move(detail));
    return Status::ok();
}

} // namespace ngx::fit::detail
