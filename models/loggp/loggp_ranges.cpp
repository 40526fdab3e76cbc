// The LogGP fit's protocol ranges (see loggp_ranges.hpp).
#include <models/loggp/loggp_ranges.hpp>

#include <algorithm>
#include <cmath>

namespace ngx::fit::detail {

namespace {

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

} // namespace

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

} // namespace ngx::fit::detail
