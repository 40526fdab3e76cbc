#include <models/loggp/loggp_quality.hpp>

#include <models/base/failure_text.hpp>

#include <array>
#include <cmath>

namespace ngx::fit {

namespace {

constexpr std::array<PrttCurve, 3> all_curves{PrttCurve::prtt_1_0, PrttCurve::prtt_n_0, PrttCurve::prtt_n_d};

double measured_of(const PrttSample& s, PrttCurve c)
{
    switch (c) {
    case PrttCurve::prtt_1_0:
        return s.prtt_1_0;
    case PrttCurve::prtt_n_0:
        return s.prtt_n_0;
    case PrttCurve::prtt_n_d:
        break;
    }
    return s.prtt_n_d;
}

// Hoefler et al. 2007: PRTT(1,0,s) by eq. (1), PRTT(n,0,s) and PRTT(n,d,s) by eq. (5).
double predicted_of(const LogGPParams& p, const PrttSample& s, double n, PrttCurve c)
{
    switch (c) {
    case PrttCurve::prtt_1_0:
        return p.rtt(s.size);
    case PrttCurve::prtt_n_0:
        return p.prtt(n, 0, s.size);
    case PrttCurve::prtt_n_d:
        break;
    }
    return p.prtt(n, s.delay, s.size);
}

struct Accumulators {
    std::array<ModelErrorAccumulator, 3> curve;
    ModelErrorAccumulator all;
    void add(std::size_t c, double measured, double predicted)
    {
        curve[c].add(measured, predicted);
        all.add(measured, predicted);
    }
    CurveErrors result() const { return {curve[0].result(), curve[1].result(), curve[2].result(), all.result()}; }
};

bool meets(const ModelError& e, const QualityGoal& goal)
{
    return e.mean_rel <= goal.mean_rel && e.max_rel <= goal.max_rel;
}

} // namespace

double misfit(const ModelError& e, const QualityGoal& goal)
{
    return std::max(e.mean_rel / goal.mean_rel, e.max_rel / goal.max_rel);
}

namespace {

double relative_error(double measured, double predicted)
{
    return measured != 0 ? std::fabs(predicted - measured) / std::fabs(measured) : 0.0;
}

// The last size before the first change point of `curve` inside [first,
// last], or NaN when the robust detector finds none there.
double switch_inside(std::span<const PrttSample> samples, std::size_t first, std::size_t last, PrttCurve curve,
                     const RobustDetectorOptions& detector)
{
    std::vector<double> x, y;
    for (std::size_t i = first; i <= last; ++i) {
        x.push_back(samples[i].size - 1);
        y.push_back(measured_of(samples[i], curve));
    }
    Result<std::vector<Range>> r = detect_protocol_ranges(x, y, detector);
    if (!r || r->size() < 2)
        return Measured::nan;
    return samples[first + r->front().last].size;
}

// Eq. (6)'s o(s) at least this many times y(s) of eq. (7): beyond the noise
// of either, the sender is slower with sends d apart than back to back.
constexpr double delay_dependence_ratio = 1.25;

bool overhead_grows_with_delay(const PrttSample& s, double n)
{
    const double o = (s.prtt_n_d - s.prtt_1_0) / (n - 1) - s.delay; // eq. (6)
    const double y = (s.prtt_n_0 - s.prtt_1_0) / (n - 1);           // eq. (7)
    return y > 0 && o > delay_dependence_ratio * y;
}

MissReason reason_for(const QualityMiss& m, const PrttSample& s, double n, std::size_t points,
                      const QualityOptions& opt)
{
    if (points < opt.min_points)
        return MissReason::too_few_points;
    if (m.curve == PrttCurve::prtt_n_d && overhead_grows_with_delay(s, n))
        return MissReason::overhead_grows_with_delay;
    if (!opt.rel_ci.empty() && (opt.rel_ci[m.index] > opt.max_rel_ci || opt.rel_ci[m.index] >= m.rel_error))
        return MissReason::noise_too_wide;
    if (std::isfinite(m.switch_after_bytes))
        return MissReason::switch_inside_range;
    return MissReason::unexplained;
}

// Every (size, curve) of one range above goal.mean_rel, with its reason.
std::vector<QualityMiss> misses_of(std::span<const PrttSample> samples, double n, const LogGPParams& p,
                                   std::span<const std::size_t> members, const QualityOptions& opt)
{
    std::vector<QualityMiss> out;
    std::array<double, 3> switch_at{Measured::nan, Measured::nan, Measured::nan};
    if (members.size() >= 2 * opt.detector.min_segment)
        for (std::size_t c = 0; c < 3; ++c)
            switch_at[c] = switch_inside(samples, members.front(), members.back(), all_curves[c], opt.detector);
    for (std::size_t i : members)
        for (std::size_t c = 0; c < 3; ++c) {
            QualityMiss m;
            m.index = i;
            m.size = samples[i].size;
            m.curve = all_curves[c];
            m.measured = measured_of(samples[i], m.curve);
            m.predicted = predicted_of(p, samples[i], n, m.curve);
            m.rel_error = relative_error(m.measured, m.predicted);
            if (!(m.rel_error > opt.goal.mean_rel))
                continue;
            m.switch_after_bytes = switch_at[c];
            m.reason = reason_for(m, samples[i], n, members.size(), opt);
            out.push_back(m);
        }
    return out;
}

Status validate(std::span<const PrttSample> samples, double n, const LogGPParams& p, const QualityOptions& opt)
{
    if (!(n >= 2))
        return invalid_input("n = " + detail::number(n) + " messages per train, PRTT(n,..) needs n >= 2");
    if (p.ranges.empty())
        return invalid_input("the LogGP parameters have no range to assess");
    if (!opt.rel_ci.empty() && opt.rel_ci.size() != samples.size())
        return invalid_input(std::to_string(opt.rel_ci.size()) + " relative intervals for " +
                             detail::count(samples.size(), "sample"));
    for (std::size_t i = 1; i < samples.size(); ++i)
        if (!(samples[i].size > samples[i - 1].size))
            return invalid_input("sizes are not increasing: " + detail::number(samples[i - 1].size) + " B, then " +
                                 detail::number(samples[i].size) + " B");
    return Status::ok();
}

} // namespace

std::string_view curve_name(PrttCurve c) noexcept
{
    switch (c) {
    case PrttCurve::prtt_1_0:
        return "prtt_1_0";
    case PrttCurve::prtt_n_0:
        return "prtt_n_0";
    case PrttCurve::prtt_n_d:
        break;
    }
    return "prtt_n_d";
}

std::string_view reason_name(MissReason r) noexcept
{
    switch (r) {
    case MissReason::too_few_points:
        return "too_few_points";
    case MissReason::noise_too_wide:
        return "noise_too_wide";
    case MissReason::switch_inside_range:
        return "switch_inside_range";
    case MissReason::overhead_grows_with_delay:
        return "overhead_grows_with_delay";
    case MissReason::unexplained:
        break;
    }
    return "unexplained";
}

Result<LogGPQuality> assess_loggp(std::span<const PrttSample> samples, double n, const LogGPParams& p,
                                  const QualityOptions& opt)
{
    NGX_TRY(validate(samples, n, p, opt));
    // Which samples each range predicts (range_for, as every prediction).
    std::vector<std::vector<std::size_t>> members(p.ranges.size());
    for (std::size_t i = 0; i < samples.size(); ++i)
        members[static_cast<std::size_t>(p.range_for(samples[i].size) - p.ranges.data())].push_back(i);

    LogGPQuality q;
    q.goal = opt.goal;
    Accumulators overall;
    for (std::size_t r = 0; r < p.ranges.size(); ++r) {
        Accumulators acc;
        for (std::size_t i : members[r])
            for (std::size_t c = 0; c < 3; ++c) {
                const double measured = measured_of(samples[i], all_curves[c]);
                const double predicted = predicted_of(p, samples[i], n, all_curves[c]);
                acc.add(c, measured, predicted);
                overall.add(c, measured, predicted);
            }
        RangeQuality rq;
        rq.from_bytes = p.ranges[r].from_bytes;
        rq.to_bytes = p.ranges[r].to_bytes;
        rq.points = members[r].size();
        rq.error = acc.result();
        rq.meets_goal = meets(rq.error.all, opt.goal);
        if (!rq.meets_goal)
            rq.misses = misses_of(samples, n, p, members[r], opt);
        q.meets_goal = q.meets_goal && rq.meets_goal;
        q.ranges.push_back(std::move(rq));
    }
    q.overall = overall.result();
    q.meets_goal = q.meets_goal && meets(q.overall.all, opt.goal);
    return q;
}

} // namespace ngx::fit
