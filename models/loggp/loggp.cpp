#include <models/loggp/loggp.hpp>
#include <models/loggp/loggp_joint.hpp>
#include <models/loggp/loggp_quality.hpp>
#include <models/base/model_choice.hpp>

#include <models/base/failure_text.hpp>
#include <models/base/rounds.hpp>

#include <algorithm>
#include <cmath>
#include <optional>

namespace ngx::fit {

namespace {

constexpr double nan_v = Measured::nan;

Status validate(std::span<const PrttSample> samples, double n)
{
    if (!std::isfinite(n) || n < 2)
        return invalid_input("n = " + detail::number(n) + " messages per train, PRTT(n,..) needs n >= 2");
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const PrttSample& s = samples[i];
        const std::string at = "the sample at " + detail::number(s.size) + " B";
        if (!std::isfinite(s.size) || s.size < 1 || !std::isfinite(s.prtt_1_0) || !std::isfinite(s.prtt_n_0) ||
            !std::isfinite(s.prtt_n_d) || !std::isfinite(s.delay) || s.delay < 0)
            return invalid_input(at + " has a size below 1, a time that is not finite or a negative delay");
        if (s.o_r && !std::isfinite(*s.o_r))
            return invalid_input(at + " has an o_r that is not finite");
        if (i > 0 && !(s.size > samples[i - 1].size))
            return invalid_input("sizes are not increasing: " + detail::number(samples[i - 1].size) + " B, then " +
                                 detail::number(s.size) + " B");
    }
    if (samples.size() < 2)
        return too_few_points(detail::count(samples.size(), "size") + ", LogGP needs 2");
    return Status::ok();
}

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

struct Detected {
    std::vector<Range> ranges;
    std::vector<std::vector<LogGPCurve>> split_by; // per range, empty for the first
    // per change (between ranges i and i + 1): the splits the curves proposed
    // (CurveRanges::candidates); empty where the detector gives none.
    std::vector<std::vector<std::size_t>> candidates;
};

struct PerSize {
    std::vector<double> x, o, y;
};

bool all_have_o_r(std::span<const PrttSample> samples)
{
    return std::all_of(samples.begin(), samples.end(), [](const PrttSample& s) { return s.o_r.has_value(); });
}

// Measured noise of each curve, from the relative standard error r of the
// PRTT medians, in the detector's unit (squared deviation relative to the
// curve's reference): r^2 for PRTT(1,0,s) and o_r(s); for the differences
// y(s) of eq. (7) and o(s) of eq. (6), r^2 (a^2 + b^2) / ((n-1) ref)^2 of
// their two PRTTs a, b; the median over the sizes. NaN without r.
struct CurveNoise {
    double prtt1 = Measured::nan, y = Measured::nan, o = Measured::nan, o_r = Measured::nan;
};

CurveNoise curve_noise(std::span<const PrttSample> samples, const PerSize& ps, double n, double r)
{
    CurveNoise c;
    if (!(r > 0) || !std::isfinite(r))
        return c;
    std::vector<double> vy, vo;
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const PrttSample& s = samples[i];
        const double ay = (n - 1) * std::max(std::fabs(ps.y[i]), 1e-300);
        const double ao = (n - 1) * (std::fabs(s.prtt_n_d) + std::fabs(s.prtt_1_0));
        vy.push_back(r * r * (s.prtt_n_0 * s.prtt_n_0 + s.prtt_1_0 * s.prtt_1_0) / (ay * ay));
        vo.push_back(r * r * (s.prtt_n_d * s.prtt_n_d + s.prtt_1_0 * s.prtt_1_0) / (ao * ao));
    }
    // o_r(s) is one timed receive call, not a PRTT median: its noise (timer
    // granularity of ~10 ns on a 2 us value) is far above r, and with r it
    // split the sim's straight o_r at 8 B. Its noise stays estimated.
    c.prtt1 = r * r;
    c.y = median_of(vy);
    c.o = median_of(vo);
    return c;
}

// The robust search over every measured curve: y(s) and PRTT(1,0,s)
// relative to themselves, o(s) of eq. (6) relative to the times it is the
// difference of, o_r(s) (when measured at every size) relative to itself.
Result<Detected> detect_any(std::span<const PrttSample> samples, const PerSize& ps, double n, const LogGPOptions& opt)
{
    std::vector<double> prtt1, o_scale, o_r;
    for (const PrttSample& s : samples) {
        prtt1.push_back(s.prtt_1_0);
        o_scale.push_back(std::fabs(s.prtt_n_d) + std::fabs(s.prtt_1_0));
        o_r.push_back(s.o_r.value_or(0.0));
    }
    const CurveNoise noise = curve_noise(samples, ps, n, opt.relative_noise);
    std::vector<DetectorCurve> curves{{ps.y, {}, noise.y}, {prtt1, {}, noise.prtt1}, {ps.o, o_scale, noise.o}};
    std::vector<LogGPCurve> names{LogGPCurve::gap, LogGPCurve::prtt_1_0, LogGPCurve::send_overhead};
    if (all_have_o_r(samples)) {
        curves.push_back({o_r, {}, noise.o_r});
        names.push_back(LogGPCurve::receive_overhead);
    }
    NGX_ASSIGN_OR_RETURN(CurveRanges found, detect_protocol_ranges_any(ps.x, curves, opt.robust));
    Detected d;
    d.ranges = std::move(found.ranges);
    d.candidates = std::move(found.candidates);
    d.split_by.resize(d.ranges.size());
    for (std::size_t i = 0; i < found.found_by.size(); ++i)
        for (std::size_t k : found.found_by[i])
            d.split_by[i + 1].push_back(names[k]);
    return d;
}

// The detectors that search y(s) of eq. (7) only.
Result<std::vector<Range>> detect_on_gap(const PerSize& ps, const LogGPOptions& opt)
{
    if (opt.method == ChangePointMethod::paper)
        return detect_protocol_ranges_paper(ps.x, ps.y, opt.paper);
    if (opt.method == ChangePointMethod::none)
        return std::vector<Range>{{0, ps.x.size() - 1}};
    return detect_protocol_ranges(ps.x, ps.y, opt.robust);
}

Result<Detected> detect(std::span<const PrttSample> samples, const PerSize& ps, double n, const LogGPOptions& opt)
{
    if (opt.method == ChangePointMethod::robust)
        return detect_any(samples, ps, n, opt);
    Detected d;
    NGX_ASSIGN_OR_RETURN(d.ranges, detect_on_gap(ps, opt));
    d.split_by.resize(d.ranges.size());
    return d;
}

// One-point ranges carry no line: merge them into a neighbour.
Detected merge_single_points(Detected in)
{
    Detected out;
    for (std::size_t i = 0; i < in.ranges.size(); ++i) {
        const Range& r = in.ranges[i];
        if (!out.ranges.empty() && (r.count() < 2 || out.ranges.back().count() < 2)) {
            out.ranges.back().last = r.last;
        } else {
            out.ranges.push_back(r);
            out.split_by.push_back(std::move(in.split_by[i]));
        }
    }
    return out;
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

PerSize per_size(std::span<const PrttSample> samples, double n)
{
    PerSize p;
    for (const PrttSample& s : samples) {
        p.x.push_back(s.size - 1);
        // Hoefler et al. 2007, eq. (6): (PRTT(n,d,s) - PRTT(1,0,s)) / (n-1) = o + d.
        p.o.push_back((s.prtt_n_d - s.prtt_1_0) / (n - 1) - s.delay);
        // Hoefler et al. 2007, eq. (7): (PRTT(n,0,s) - PRTT(1,0,s)) / (n-1) = g + G (s-1).
        p.y.push_back((s.prtt_n_0 - s.prtt_1_0) / (n - 1));
    }
    return p;
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
    const std::vector<double> Ls = paper_L(samples, r, range); // with the final parameters
    detail.L_median = median_of(Ls);
    fit.L_per_size.insert(fit.L_per_size.end(), Ls.begin(), Ls.end());

    detail.indices = r;
    fit.params.ranges.push_back(range);
    fit.details.push_back(std::move(detail));
    return Status::ok();
}

struct RangeFitError {
    ModelError error{
        Measured::nan, Measured::nan, Measured::nan, 0, Measured::nan, 0}; // NaN: the range could not be fitted
    bool inadmissible = false; // a parameter below 0 (L of eq. (1) or a cost): not LogGP, LogGOPSim cannot run it
    std::size_t params = 0;    // LogGPRange::parameter_count of the fitted range
};

// The model's error over one range fitted alone.
RangeFitError fitted_model_error(std::span<const PrttSample> samples, const PerSize& ps, Range r, double n,
                                 const LogGPOptions& opt)
{
    LogGPFit scratch;
    if (!fit_range(samples, ps, r, n, opt, scratch))
        return {};
    const LogGPRange& range = scratch.params.ranges.front();
    RangeFitError out{range_error(samples.subspan(r.first, r.count()), n, range), !range.admissible(),
                      range.parameter_count()};
    // The model choice tests the least-squares objective of the range's model,
    // not that of the parameters kept for their misfit().
    if (const std::optional<JointFit>& joint = scratch.details.front().joint)
        out.error.sum_sq_rel = std::fmin(out.error.sum_sq_rel, joint->least_rss);
    return out;
}

constexpr std::size_t min_split_sizes = 3; // each side keeps a line with a residual
constexpr std::size_t max_ranges = 8;

// Two neighbouring ranges, each fitted alone.
struct SplitFit {
    double misfit = Measured::nan;   // misfit() (loggp_quality.hpp) of both halves; NaN: a half cannot be fitted
    bool left_inadmissible = false;  // the left half has a parameter below 0 (L < 0)
    bool right_inadmissible = false; // the right half has one
    FitEvidence evidence;            // both halves' residual sum of squares, points and parameters
    bool inadmissible() const noexcept { return left_inadmissible || right_inadmissible; }
};

SplitFit split_fit(std::span<const PrttSample> samples, const PerSize& ps, Range left, Range right, double n,
                   const LogGPOptions& opt)
{
    const RangeFitError fa = fitted_model_error(samples, ps, left, n, opt);
    const RangeFitError fb = fitted_model_error(samples, ps, right, n, opt);
    const ModelError &a = fa.error, &b = fb.error;
    if (a.count + b.count == 0 || !std::isfinite(a.max_rel) || !std::isfinite(b.max_rel))
        return {};
    ModelError both;
    both.max_rel = std::max(a.max_rel, b.max_rel);
    both.mean_rel = (a.mean_rel * double(a.count) + b.mean_rel * double(b.count)) / double(a.count + b.count);
    const FitEvidence evidence{a.sum_sq_rel + b.sum_sq_rel, a.count_rel + b.count_rel, fa.params + fb.params};
    return {misfit(both), fa.inadmissible, fb.inadmissible, evidence};
}

// ngx: switches closer than three sizes (each range keeps three) reach the
// robust detector as one change with several candidate splits, and it puts
// the change where lines per curve fit best. With shm's vCPUs far apart the
// 56-byte inline switch (in y(s), 48 | 64 B) and the receive copy's (in
// o_r(s), 96 | 128 B) are two sizes apart; the curves may choose the second
// and leave the first, a 70% step of PRTT(n,0,s), inside the range below.
// Where the detector's split leaves either neighbouring range missing the
// goal, the model decides among the candidates: the one whose two ranges
// leave the least weighted residual sum of squares (the least-squares
// position of the change; none that gives a new range of L < 0) replaces
// the detector's when that drop is significant (model_choice.hpp, at
// model_choice_alpha, the position counted as one parameter more: the
// detector's position lies outside the likelihood-ratio confidence set of
// the change's position) and its misfit() is smaller too. A range that
// still misses is then split by split_misfits. A change whose ranges meet
// the goal is never moved (Open MPI over vader: its 4 KiB eager switch
// stays where the curves put it).
bool choose_split(std::span<const PrttSample> samples, const PerSize& ps, double n, const LogGPOptions& opt,
                  Detected& d, std::size_t i)
{
    Range& left = d.ranges[i];
    Range& right = d.ranges[i + 1];
    if (d.candidates[i].size() < 2)
        return false;
    const SplitFit detector = split_fit(samples, ps, left, right, n, opt);
    if (!(detector.misfit > 1))
        return false;
    std::size_t best_at = left.last;
    SplitFit best;
    for (std::size_t split : d.candidates[i]) {
        if (split == left.last || split + 1 < left.first + min_split_sizes || split + min_split_sizes > right.last)
            continue;
        const SplitFit f = split_fit(samples, ps, {left.first, split}, {split + 1, right.last}, n, opt);
        if ((f.left_inadmissible && !detector.left_inadmissible) ||
            (f.right_inadmissible && !detector.right_inadmissible))
            continue;
        if (std::isfinite(f.misfit) && (!std::isfinite(best.misfit) || f.evidence.rss < best.evidence.rss)) {
            best = f;
            best_at = split;
        }
    }
    if (best_at == left.last || !(best.misfit < detector.misfit))
        return false;
    FitEvidence moved = best.evidence;
    moved.params = detector.evidence.params + 1; // the position, estimated here, fixed by the curves there
    if (!richer_fit_wins(detector.evidence, moved, opt.relative_noise))
        return false;
    left.last = best_at;
    right.first = best_at + 1;
    return true;
}

// Moving a change changes the ranges its neighbours are judged with (Open
// MPI over vader: its first change, judged against 32 B..2 KiB, moved to
// 16 B; once the next change had cut that range at 512 B, 32 B fit better),
// so the changes are judged again until none moves (at most three passes).
constexpr std::size_t choose_passes = 3;
Detected choose_splits_by_model(std::span<const PrttSample> samples, const PerSize& ps, double n,
                                const LogGPOptions& opt, Detected d)
{
    for (std::size_t pass = 0; pass < choose_passes; ++pass) {
        bool moved = false;
        for (std::size_t i = 0; i + 1 < d.ranges.size() && i < d.candidates.size(); ++i)
            moved = choose_split(samples, ps, n, opt, d, i) || moved;
        if (!moved)
            break;
    }
    return d;
}

// ngx: where the fitted model of a range misses the quality goal (misfit()
// above 1: a mean relative error above 5% or a max above 15%), a protocol or
// cache regime may change inside it that no single curve showed beyond its
// noise. The range is split at the size where the two halves leave the
// least weighted residual sum of squares (the least-squares position; by
// misfit() a heavy-tailed run put it one size late), when their misfit() is
// smaller than the whole range's and the halves are the richer model the
// data demand: their weighted residual sum of squares drops
// below the whole range's by more than the measured noise explains
// (model_choice.hpp), at model_choice_alpha / K for the K sizes the split
// was sought at (Bonferroni), so that a range of pure noise is split with a
// probability of at most model_choice_alpha. This repeats on the halves.
// Each side keeps >= 3 sizes. Ranges are only ever split here, so every
// change point found before stays.
//
// Halves of L >= 0 are preferred: a split with a half of L < 0 (a model no
// simulator can run) is taken only where the test prefers its position to
// the best one of L >= 0 or no other split will do, and only where the
// range's mean misses the goal or its own L is < 0 (a regime
// change worth a range of its own: Open MPI over vader, whose small sizes'
// range has L < 0), never for one point's sake (in shm runs such splits of
// ranges missing on their max alone gave ranges of negative L). A range
// that meets the goal only with L < 0 (LogGPOptions::signed_when_missing)
// is split where two halves of L >= 0 meet it: a constraint (a model
// LogGOPSim can run), not a choice by the fit, so not tested.
Detected split_misfits(std::span<const PrttSample> samples, const PerSize& ps, double n, const LogGPOptions& opt,
                       Detected in)
{
    Detected out;
    std::vector<std::pair<Range, std::vector<LogGPCurve>>> todo;
    for (std::size_t i = in.ranges.size(); i-- > 0;)
        todo.emplace_back(in.ranges[i], std::move(in.split_by[i]));
    while (!todo.empty()) {
        auto [r, by] = std::move(todo.back());
        todo.pop_back();
        const RangeFitError fitted = fitted_model_error(samples, ps, r, n, opt);
        const double whole = misfit(fitted.error);
        const FitEvidence whole_evidence = fit_evidence(fitted.error, fitted.params);
        const bool allow_negative_L = fitted.inadmissible || fitted.error.mean_rel > QualityGoal{}.mean_rel;
        const bool room = out.ranges.size() + todo.size() + 2 <= max_ranges;
        const bool misses = whole > 1;
        // A range that meets the goal only with L < 0 is split too where
        // two halves of L >= 0 meet it.
        const bool unrunnable = !(whole > 1) && fitted.inadmissible;
        // The best split of L >= 0 halves, and the best of any.
        std::size_t runnable_at = 0, any_at = 0;
        SplitFit runnable, any;
        const bool search = room && r.count() >= 2 * min_split_sizes && (misses || unrunnable);
        const std::size_t positions = search ? r.count() - 2 * min_split_sizes + 1 : 1;
        if (search)
            for (std::size_t k = r.first + min_split_sizes; k + min_split_sizes <= r.last + 1; ++k) {
                const SplitFit f = split_fit(samples, ps, {r.first, k - 1}, {k, r.last}, n, opt);
                if (!std::isfinite(f.misfit))
                    continue;
                if (!f.inadmissible() && !(f.evidence.rss >= runnable.evidence.rss && std::isfinite(runnable.misfit)))
                    runnable = f, runnable_at = k;
                if (!(f.evidence.rss >= any.evidence.rss && std::isfinite(any.misfit)))
                    any = f, any_at = k;
            }
        const auto acceptable = [&](const SplitFit& f) {
            if (unrunnable)
                return f.misfit <= 1;
            return f.misfit < whole && richer_fit_wins(whole_evidence, f.evidence, opt.relative_noise,
                                                       model_choice_alpha / double(positions));
        };
        // The least-squares position wins over the best one with halves of
        // L >= 0 only where the data prefer it beyond the measured noise
        // (the position counted as one parameter more, as in
        // choose_splits_by_model): Open MPI over vader, 512 B..64 KiB, whose
        // halves at its 4 KiB eager limit leave a tenth of the sum of
        // squares that those at 8 KiB (both L >= 0) leave.
        const bool any_first =
            !unrunnable && allow_negative_L && any_at != runnable_at &&
            (!std::isfinite(runnable.misfit) ||
             richer_fit_wins(runnable.evidence, {any.evidence.rss, any.evidence.points, runnable.evidence.params + 1},
                             opt.relative_noise));
        const std::size_t at = any_first && acceptable(any)                         ? any_at
                               : acceptable(runnable)                               ? runnable_at
                               : !unrunnable && allow_negative_L && acceptable(any) ? any_at
                                                                                    : 0;
        if (at != 0) {
            todo.emplace_back(Range{at, r.last}, std::vector<LogGPCurve>{LogGPCurve::model});
            todo.emplace_back(Range{r.first, at - 1}, std::move(by));
            continue;
        }
        out.ranges.push_back(r);
        out.split_by.push_back(std::move(by));
    }
    return out;
}

void flag_and_score(std::span<const PrttSample> samples, double n, LogGPFit& fit)
{
    ModelErrorAccumulator err;
    const LogGPParams& p = fit.params;
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const PrttSample& s = samples[i];
        const LogGPRange& r = *p.range_for(s.size);
        const double g_all = r.g.value + (s.size - 1) * r.G.value; // Hoefler et al. 2007, eq. (2)
        if (!(s.delay > g_all))
            fit.delay_too_small.push_back(i);
        // Eq. (7) assumes the gap paces the n messages: o_s(s), o_r(s) <= G_all.
        const bool send_above = fit.o_per_size[i] > g_all;
        const bool recv_above = s.o_r && *s.o_r > g_all;
        if (send_above)
            fit.send_overhead_above_gap.push_back(i);
        if (recv_above)
            fit.receive_overhead_above_gap.push_back(i);
        if (send_above || recv_above)
            fit.overhead_above_gap.push_back(i);
        err.add(s.prtt_1_0, p.rtt(s.size));
        err.add(s.prtt_n_0, p.prtt(n, 0, s.size));
        err.add(s.prtt_n_d, p.prtt(n, s.delay, s.size));
    }
    fit.error = err.result();
}

} // namespace

const LogGPRange* LogGPParams::range_for(double s) const noexcept
{
    if (ranges.empty())
        return nullptr;
    const LogGPRange* r = &ranges.front();
    for (const LogGPRange& candidate : ranges)
        if (candidate.from_bytes <= s)
            r = &candidate;
    return r;
}

std::vector<std::string> LogGPRange::negative_parameters() const
{
    std::vector<std::string> out;
    for (const auto& [name, value] :
         {std::pair{"L_us", L.value}, std::pair{"o_us", send_line.at_one.value},
          std::pair{"O_us_per_byte", send_line.per_byte.value}, std::pair{"o_r_us", recv_line.at_one.value},
          std::pair{"O_r_us_per_byte", recv_line.per_byte.value}, std::pair{"g_us", g.value},
          std::pair{"G_us_per_byte", G.value}})
        if (value < 0)
            out.push_back(name);
    return out;
}

double LogGPRange::overheads_at(double s) const noexcept
{
    const double o_r_s = o_r_at(s);
    return std::isfinite(o_r_s) ? o_at(s) + o_r_s : 2 * o_at(s);
}

double LogGPRange::transfer_at(double s) const noexcept
{
    const double x = s - 1;
    if (!overlapped)
        return overheads_at(s) + x * G.value; // eq. (1): 2o + (s-1)G
    // LogGOPSim's one message: 2o + L + (s-1) max(O, G), with o_s + o_r for 2o.
    return o_at(1) + recv_at_one() + x * std::max({send_slope(), recv_slope(), G.value});
}

double LogGPParams::rtt(double s) const noexcept
{
    const LogGPRange* r = range_for(s);
    if (!r || !(s >= 1))
        return nan_v;
    // Hoefler et al. 2007, eq. (1): PRTT(1,0,s) = 2 (L + 2o + (s-1)G), with o_s + o_r for 2o when o_r was measured.
    return 2 * (r->L.value + r->transfer_at(s));
}

double LogGPParams::half_rtt(double s) const noexcept
{
    return rtt(s) / 2;
}

double LogGPParams::prtt(double n, double d, double s) const noexcept
{
    const LogGPRange* r = range_for(s);
    if (!r || !(s >= 1) || !(n >= 1))
        return nan_v;
    const double g_all = r->g.value + (s - 1) * r->G.value; // Hoefler et al. 2007, eq. (2)
    // Hoefler et al. 2007, eq. (5): PRTT(n,d,s) = PRTT(1,0,s) + (n-1) max{o + d, G_all}.
    return rtt(s) + (n - 1) * std::max(r->o_at(s) + d, g_all);
}

double LogGPParams::linear_bcast(double P, double s) const noexcept
{
    const LogGPRange* r = range_for(s);
    if (!r || !(s >= 1) || !(P >= 1))
        return nan_v;
    if (P < 2)
        return 0;
    const double o = r->o_at(s);
    const double g_all = r->g.value + (s - 1) * r->G.value; // Hoefler et al. 2007, eq. (2)
    // Send starts spaced by max{o, G_all} (eq. (5), d = 0); the last message
    // is one o + (s-1)G + L + o transfer (eq. (1) halved).
    return (P - 2) * std::max(g_all, o) + r->transfer_at(s) + r->L.value;
}

double LogGPParams::tree_bcast(double P, double s) const noexcept
{
    const LogGPRange* r = range_for(s);
    if (!r || !(s >= 1) || !(P >= 1))
        return nan_v;
    const double h = detail::binomial_rounds(P);
    if (h == 0)
        return 0;
    // Cameron et al. 2007 section 4.3.3: h (2o + L + kG) + (h-1) g with k = s - 1,
    // 2o + L + kG = half_rtt(s) (eq. (1) of Hoefler et al. 2007, o_s + o_r for 2o).
    return h * half_rtt(s) + (h - 1) * r->g.value;
}

namespace {

// The terms of a window of messages of s bytes (stream_window, exchange_window).
struct WindowTerms {
    double o_s = 0;    // o_s(s)
    double o_r = 0;    // o_r(s), or o_s(s) where the receive overhead was not measured (eq. (1)'s 2o)
    double g_all = 0;  // g + (s-1)G, Hoefler et al. 2007, eq. (2)
    double first = 0;  // L + o_s(s) + (s-1)G + o_r(s): one message, eq. (1) halved
    double flight = 0; // L + (s-1)G: the first without its two overheads
    double ack = 0;    // the 1-byte acknowledgement, eq. (1) halved at s = 1
};

std::optional<WindowTerms> window_terms(const LogGPParams& p, double W, double s) noexcept
{
    const LogGPRange* r = p.range_for(s);
    const LogGPRange* ack = p.range_for(1);
    if (!r || !(s >= 1) || !(W >= 1))
        return std::nullopt;
    WindowTerms t;
    t.o_s = r->o_at(s);
    t.o_r = std::isfinite(r->o_r_at(s)) ? r->o_r_at(s) : t.o_s;
    t.g_all = r->g.value + (s - 1) * r->G.value;
    t.first = r->L.value + r->transfer_at(s);
    t.flight = t.first - t.o_s - t.o_r;
    t.ack = ack->L.value + ack->transfer_at(1);
    return t;
}

} // namespace

double LogGPParams::stream_window(double W, double s) const noexcept
{
    const std::optional<WindowTerms> t = window_terms(*this, W, s);
    if (!t)
        return nan_v;
    // The first message, W - 1 periods of the busiest of sender, wire and receiver, the acknowledgement.
    return t->first + (W - 1) * std::max({t->o_s, t->o_r, t->g_all}) + t->ack;
}

double LogGPParams::exchange_window(double W, double s) const noexcept
{
    const std::optional<WindowTerms> t = window_terms(*this, W, s);
    if (!t)
        return nan_v;
    // W receives posted, then W sends spaced by max(o_s, G_all): the last one leaves here.
    const double last_injection = W * t->o_r + t->o_s + (W - 1) * std::max(t->o_s, t->g_all);
    return last_injection + t->flight + t->ack;
}

double LogGPParams::put_window(double W, double s) const noexcept
{
    const std::optional<WindowTerms> t = window_terms(*this, W, s);
    if (!t)
        return nan_v;
    // The last put leaves after W - 1 periods, lands a flight later; the target's NIC acknowledges it.
    return t->o_s + (W - 1) * std::max(t->o_s, t->g_all) + t->flight + range_for(1)->L.value;
}

double LogGPParams::get_window(double W, double s) const noexcept
{
    const std::optional<WindowTerms> t = window_terms(*this, W, s);
    if (!t)
        return nan_v;
    // The first request reaches the target after o_s(1) + L, its NIC answers one per period.
    const double request = range_for(1)->o_at(1);
    return request + range_for(1)->L.value + (W - 1) * std::max(request, t->g_all) + t->flight;
}

ModelError range_error(std::span<const PrttSample> samples, double n, const LogGPRange& range)
{
    LogGPParams p;
    p.ranges.push_back(range);
    p.ranges.front().from_bytes = 0; // every sample belongs to it
    ModelErrorAccumulator err;
    for (const PrttSample& s : samples) {
        err.add(s.prtt_1_0, p.rtt(s.size));
        err.add(s.prtt_n_0, p.prtt(n, 0, s.size));
        err.add(s.prtt_n_d, p.prtt(n, s.delay, s.size));
    }
    return err.result();
}

Result<LogGPFit> fit_loggp(std::span<const PrttSample> samples, double n, const LogGPOptions& opt)
{
    NGX_TRY(validate(samples, n));
    if (!(opt.level > 0 && opt.level < 1) || !(std::isnan(opt.relative_noise) || opt.relative_noise > 0))
        return invalid_input("confidence level " + detail::number(opt.level) + " is not in (0, 1) or relative noise " +
                             detail::number(opt.relative_noise) + " is not positive");

    LogGPFit fit;
    const PerSize ps = per_size(samples, n);
    fit.o_per_size = ps.o;
    fit.gap_per_size = ps.y;

    NGX_ASSIGN_OR_RETURN(Detected ranges, detect(samples, ps, n, opt));
    if (opt.split_misfits && opt.method == ChangePointMethod::robust)
        ranges = choose_splits_by_model(samples, ps, n, opt, std::move(ranges));
    ranges = merge_single_points(std::move(ranges));
    if (opt.split_misfits && opt.method == ChangePointMethod::robust)
        ranges = split_misfits(samples, ps, n, opt, std::move(ranges));
    for (std::size_t i = 0; i < ranges.ranges.size(); ++i) {
        NGX_TRY(fit_range(samples, ps, ranges.ranges[i], n, opt, fit));
        fit.details.back().split_by = std::move(ranges.split_by[i]);
    }

    // Hoefler et al. 2007, section 3.4: L reported as PRTT(1,0,1)/2 (here: smallest size).
    fit.params.eel = Measured::exact(samples.front().prtt_1_0 / 2);
    fit.params.eel_size = samples.front().size;
    fit.eel_from_size_one = samples.front().size == 1;

    flag_and_score(samples, n, fit);
    return fit;
}

} // namespace ngx::fit
