#include <models/base/change_points.hpp>
#include <models/base/measured.hpp>
#include <models/base/student_t.hpp>

#include <models/base/failure_text.hpp>

#include <algorithm>
#include <cmath>

namespace ngx::fit {

namespace {

// How a point's squared deviation is weighted: 1, or 1/ref^2 (relative to
// `ref`, the curve itself or a given noise scale) with |ref| floored at
// `floor` (no infinite weights at ref ~ 0).
struct Weighting {
    std::span<const double> ref;
    bool relative = false;
    double floor = 0.0;
    double operator()(std::size_t i) const
    {
        if (!relative)
            return 1.0;
        const double v = std::max(std::fabs(ref[i]), floor);
        return 1.0 / (v * v);
    }
};

// Weighted residual sum of squares of the line through points k..l.
struct SegmentFit {
    bool ok = false;
    double wrss = 0.0;
};

SegmentFit segment_rss(std::span<const double> size, std::span<const double> val, std::size_t k, std::size_t l,
                       const Weighting& weight)
{
    SegmentFit r;
    if (k > l || l >= size.size() || l >= val.size())
        return r;
    double sw = 0.0, sx = 0.0, sy = 0.0;
    for (std::size_t i = k; i <= l; ++i) {
        sw += weight(i);
        sx += weight(i) * size[i];
        sy += weight(i) * val[i];
    }
    const double xbar = sx / sw, ybar = sy / sw;
    double sxx = 0.0, sxy = 0.0;
    for (std::size_t i = k; i <= l; ++i) {
        sxx += weight(i) * (size[i] - xbar) * (size[i] - xbar);
        sxy += weight(i) * (size[i] - xbar) * (val[i] - ybar);
    }
    if (!(sxx > 0.0))
        return r;
    const double G = sxy / sxx;
    const double g = ybar - G * xbar;
    for (std::size_t i = k; i <= l; ++i) {
        const double d = G * size[i] + g - val[i];
        r.wrss += weight(i) * d * d;
    }
    r.ok = true;
    return r;
}

double denominator_of(std::size_t k, std::size_t l, Eq8Denominator d)
{
    const double n = static_cast<double>(l - k + 1);
    return d == Eq8Denominator::as_printed ? n - 3.0 : n - 2.0;
}

std::optional<double> mean_deviation(std::span<const double> size, std::span<const double> val, std::size_t k,
                                     std::size_t l, Eq8Denominator d, const Weighting& weight)
{
    if (k > l)
        return std::nullopt;
    const double den = denominator_of(k, l, d);
    if (!(den > 0.0))
        return std::nullopt;
    const SegmentFit f = segment_rss(size, val, k, l, weight);
    if (!f.ok)
        return std::nullopt;
    return f.wrss / den;
}

double max_abs(std::span<const double> v)
{
    double m = 0.0;
    for (double x : v)
        m = std::max(m, std::fabs(x));
    return m;
}

// |val| below this counts as this in relative weights (guards val ~ 0).
double relative_val_floor(std::span<const double> val)
{
    return 1e-6 * max_abs(val);
}

// Deviations relative to `scale` (when given) or to the curve itself.
Weighting weighting_of(std::span<const double> val, std::span<const double> scale, bool relative)
{
    const std::span<const double> ref = scale.empty() ? val : scale;
    return {ref, relative, relative ? relative_val_floor(ref) : 0.0};
}

Status validate(std::span<const double> size, std::span<const double> val)
{
    if (size.size() != val.size())
        return invalid_input(std::to_string(size.size()) + " sizes but " + std::to_string(val.size()) + " values");
    for (std::size_t i = 0; i < size.size(); ++i) {
        if (!std::isfinite(size[i]) || !std::isfinite(val[i]))
            return invalid_input("point " + std::to_string(i) + " is not finite");
        if (i > 0 && !(size[i] > size[i - 1]))
            return invalid_input("sizes are not increasing at point " + std::to_string(i) + " (" +
                                 detail::number(size[i - 1]) + ", then " + detail::number(size[i]) + ")");
    }
    return Status::ok();
}

// Median of chi^2_k / k by the Wilson-Hilferty approximation (k >= 1).
double chi2_median_over_k(double k)
{
    return std::pow(1.0 - 2.0 / (9.0 * k), 3.0);
}

// Among splits cur-1, cur, cur+1 (each leaving >= min_left points on the left
// and >= 2 on the right of [lc, end]), the one with the smallest total
// residual sum of squares of two separate lines.
std::size_t refine_split(std::span<const double> size, std::span<const double> val, std::size_t lc, std::size_t cur,
                         std::size_t end, std::size_t min_left, const Weighting& weight)
{
    auto total_rss = [&](std::size_t split) {
        if (split + 1 < lc + min_left || split + 2 > end)
            return std::numeric_limits<double>::infinity();
        const SegmentFit left = segment_rss(size, val, lc, split, weight);
        const SegmentFit right = segment_rss(size, val, split + 1, end, weight);
        if (!left.ok || !right.ok)
            return std::numeric_limits<double>::infinity();
        return left.wrss + right.wrss;
    };
    // The look-ahead's own answer wins ties; a neighbour must be clearly better.
    std::size_t best = cur;
    double best_rss = total_rss(cur);
    for (std::size_t split : {cur - 1, cur + 1}) {
        if (split == cur - 1 && cur == 0)
            continue;
        const double t = total_rss(split);
        if (t < best_rss * (1.0 - 1e-9)) {
            best = split;
            best_rss = t;
        }
    }
    return best;
}

// Is a split of [lc, end] after `split` significant? F test of one line
// against two separate lines (2 extra coefficients):
//   F = ((RSS_1 - RSS_2) / 2) / (RSS_2 / (n - 4)),  p = P(F(2, n-4) > F).
// With a measured noise variance (known_noise finite) the noise is not
// estimated from the residuals: chi^2 test with 2 degrees of freedom,
//   p = P(chi^2_2 > (RSS_1 - RSS_2) / noise) = exp(-(RSS_1 - RSS_2) / (2 noise)),
// so a change stands out against the measured noise even where two lines
// do not describe the points either (a step followed by a curved stretch).
bool split_is_significant(std::span<const double> size, std::span<const double> val, std::size_t lc, std::size_t split,
                          std::size_t end, double alpha, const Weighting& weight, double numeric_floor,
                          double known_noise)
{
    if (!(alpha > 0.0))
        return true;
    const std::size_t n = end - lc + 1;
    if (n < 5)
        return true;
    const SegmentFit one = segment_rss(size, val, lc, end, weight);
    const SegmentFit left = segment_rss(size, val, lc, split, weight);
    const SegmentFit right = split + 1 < end ? segment_rss(size, val, split + 1, end, weight) : SegmentFit{true, 0.0};
    if (!one.ok || !left.ok || !right.ok)
        return true;
    if (std::isfinite(known_noise) && known_noise > 0.0)
        return std::exp(-std::max(one.wrss - (left.wrss + right.wrss), 0.0) / (2.0 * known_noise)) < alpha;
    const double d2 = static_cast<double>(n - 4);
    const double rss2 = std::max(left.wrss + right.wrss, numeric_floor * d2);
    const double f = std::max(one.wrss - rss2, 0.0) / 2.0 / (rss2 / d2);
    const double p = incomplete_beta(d2 / 2.0, 1.0, d2 / (d2 + 2.0 * f));
    return p < alpha;
}

} // namespace

std::optional<double> lsq(std::span<const double> size, std::span<const double> val, std::size_t k, std::size_t l,
                          Eq8Denominator denominator)
{
    // Hoefler et al. 2007, eq. (8).
    return mean_deviation(size, val, k, l, denominator, Weighting{});
}

std::optional<double> lsq_relative(std::span<const double> size, std::span<const double> val, std::size_t k,
                                   std::size_t l, Eq8Denominator denominator)
{
    // Hoefler et al. 2007, eq. (8), with relative deviations (ngx addition).
    return mean_deviation(size, val, k, l, denominator, weighting_of(val, {}, true));
}

Result<std::vector<Range>> detect_protocol_ranges_paper(std::span<const double> size, std::span<const double> val,
                                                        const PaperDetectorOptions& opt)
{
    NGX_TRY(validate(size, val));
    if (opt.lookahead == 0 || !(opt.pfact > 0.0))
        return invalid_input("the detector needs a look-ahead >= 1 and pfact > 0 (got " +
                             std::to_string(opt.lookahead) + ", " + detail::number(opt.pfact) + ")");
    std::vector<Range> ranges;
    const std::size_t n = size.size();
    if (n == 0)
        return ranges;

    // Numerical guard only (see header): rounding-level deviations are equal.
    const double guard = std::pow(1e-12 * max_abs(val), 2.0);
    auto dev = [&](std::size_t k, std::size_t l) {
        return std::max(lsq(size, val, k, l, opt.denominator).value_or(0.0), guard);
    };
    // Smallest interval with a positive eq. (8) denominator: 4 points as
    // printed, 3 with n - 2.
    const std::size_t min_points = opt.denominator == Eq8Denominator::as_printed ? 4 : 3;

    // Hoefler et al. 2007, section 3.5: x-point look-ahead with factor pfact.
    std::size_t lastchange = 0;
    std::size_t current = lastchange + min_points - 1;
    while (current + opt.lookahead <= n - 1) {
        const double base = dev(lastchange, current);
        bool rises = true;
        for (std::size_t j = 1; j <= opt.lookahead && rises; ++j)
            rises = dev(lastchange, current + j) > opt.pfact * base;
        if (rises) {
            ranges.push_back({lastchange, current});
            lastchange = current + 1;
            current = lastchange + min_points - 1;
        } else {
            ++current;
        }
    }
    ranges.push_back({lastchange, n - 1});
    return ranges;
}

double estimate_noise_variance(std::span<const double> size, std::span<const double> val, std::size_t window,
                               bool relative, std::span<const double> scale)
{
    const std::size_t n = std::min(size.size(), val.size());
    if (n < 3 || (!scale.empty() && scale.size() < n))
        return Measured::nan;
    window = std::clamp<std::size_t>(window, 3, n);
    const Weighting weight = weighting_of(val, scale, relative);
    std::vector<double> devs;
    for (std::size_t i = 0; i + window <= n; ++i)
        if (auto d = mean_deviation(size, val, i, i + window - 1, Eq8Denominator::degrees_of_freedom, weight))
            devs.push_back(*d);
    if (devs.empty())
        return Measured::nan;
    return median_of(devs) / chi2_median_over_k(static_cast<double>(window - 2));
}

Result<std::vector<Range>> detect_protocol_ranges(std::span<const double> size, std::span<const double> val,
                                                  const RobustDetectorOptions& opt, std::span<const double> scale)
{
    NGX_TRY(validate(size, val));
    if (opt.lookahead == 0 || !(opt.pfact > 0.0) || opt.min_segment < 3 || opt.noise_window < 3 ||
        !(opt.floor_factor >= 0.0) || !(opt.confirm_alpha >= 0.0))
        return invalid_input("detector options out of range (look-ahead >= 1, pfact > 0, min_segment >= 3, "
                             "noise_window >= 3, floor_factor >= 0, confirm_alpha >= 0)");
    if (!scale.empty() && scale.size() != val.size())
        return invalid_input(std::to_string(scale.size()) + " scale values for " + detail::count(val.size(), "point"));
    for (double v : scale)
        if (!std::isfinite(v))
            return invalid_input("a scale value is not finite");
    std::vector<Range> ranges;
    const std::size_t n = size.size();
    if (n == 0)
        return ranges;

    const Weighting weight = weighting_of(val, scale, opt.relative);
    double noise = opt.noise_variance;
    if (std::isnan(noise))
        noise = estimate_noise_variance(size, val, opt.noise_window, opt.relative, scale);
    const double numeric = opt.relative ? 1e-24 : std::pow(1e-12 * max_abs(val), 2.0);
    const double floor = std::max(std::isfinite(noise) ? opt.floor_factor * noise : 0.0, numeric);
    auto dev = [&](std::size_t k, std::size_t l) {
        auto d = mean_deviation(size, val, k, l, Eq8Denominator::degrees_of_freedom, weight);
        return std::max(d.value_or(0.0), floor);
    };

    const std::size_t m = opt.min_segment;
    std::size_t lastchange = 0;
    std::size_t current = lastchange + m - 1;
    // A change after `current` must leave room for a new range of m points.
    while (current + m <= n - 1) {
        const std::size_t x = std::min(opt.lookahead, n - 1 - current);
        const double base = dev(lastchange, current);
        bool rises = true;
        for (std::size_t j = 1; j <= x && rises; ++j)
            rises = dev(lastchange, current + j) > opt.pfact * base;
        if (rises) {
            std::size_t split = refine_split(size, val, lastchange, current, current + x, m, weight);
            if (split + m > n - 1)
                split = current; // keep room for the next range
            if (!split_is_significant(size, val, lastchange, split, current + x, opt.confirm_alpha, weight, numeric,
                                      opt.noise_variance)) {
                ++current;
                continue;
            }
            ranges.push_back({lastchange, split});
            lastchange = split + 1;
            current = lastchange + m - 1;
        } else {
            ++current;
        }
    }
    ranges.push_back({lastchange, n - 1});
    return ranges;
}

namespace {

struct Candidate {
    std::size_t split = 0; // last index of the range before the change
    std::size_t curve = 0;
};

// Sum over the curves of how much two lines split after `c` shrink the
// residual of one line over [lo, hi] (each curve normalised by its own
// one-line residual, so curves of any unit weigh alike). Smaller is better.
double split_cost(std::span<const double> size, std::span<const DetectorCurve> curves, std::size_t lo, std::size_t c,
                  std::size_t hi, bool relative)
{
    double cost = 0.0;
    for (const DetectorCurve& curve : curves) {
        const Weighting weight = weighting_of(curve.val, curve.scale, relative);
        const SegmentFit one = segment_rss(size, curve.val, lo, hi, weight);
        const SegmentFit left = c > lo ? segment_rss(size, curve.val, lo, c, weight) : SegmentFit{true, 0.0};
        const SegmentFit right = c + 1 < hi ? segment_rss(size, curve.val, c + 1, hi, weight) : SegmentFit{true, 0.0};
        if (one.ok && left.ok && right.ok && one.wrss > 0.0)
            cost += (left.wrss + right.wrss) / one.wrss;
        else
            cost += 1.0;
    }
    return cost;
}

} // namespace

Result<CurveRanges> detect_protocol_ranges_any(std::span<const double> size, std::span<const DetectorCurve> curves,
                                               const RobustDetectorOptions& opt)
{
    if (curves.empty())
        return invalid_input("no curve to detect protocol changes on");
    std::vector<Candidate> candidates;
    for (std::size_t k = 0; k < curves.size(); ++k) {
        RobustDetectorOptions own = opt;
        if (std::isfinite(curves[k].noise_variance))
            own.noise_variance = curves[k].noise_variance;
        NGX_ASSIGN_OR_RETURN(const std::vector<Range> r,
                             detect_protocol_ranges(size, curves[k].val, own, curves[k].scale));
        for (std::size_t i = 0; i + 1 < r.size(); ++i)
            candidates.push_back({r[i].last, k});
    }
    std::sort(candidates.begin(), candidates.end(),
              [](const Candidate& a, const Candidate& b) { return a.split < b.split; });

    // Changes closer than min_segment points are one change seen by several
    // curves: keep the split that suits all curves best. Groups are >=
    // min_segment apart, so every range keeps >= min_segment points.
    CurveRanges out;
    const std::size_t n = size.size(), m = opt.min_segment;
    std::size_t first = 0;
    for (std::size_t g = 0; g < candidates.size();) {
        std::size_t end = g + 1;
        while (end < candidates.size() && candidates[end].split - candidates[end - 1].split < m)
            ++end;
        const std::size_t lo = std::max(first, candidates[g].split + 1 >= m ? candidates[g].split + 1 - m : 0);
        const std::size_t hi = std::min(n - 1, candidates[end - 1].split + m);
        std::size_t best = candidates[g].split;
        double best_cost = std::numeric_limits<double>::infinity();
        std::vector<std::size_t> found_by;
        for (std::size_t i = g; i < end; ++i) {
            if (std::find(found_by.begin(), found_by.end(), candidates[i].curve) == found_by.end())
                found_by.push_back(candidates[i].curve);
            const double cost = split_cost(size, curves, lo, candidates[i].split, hi, opt.relative);
            if (cost < best_cost * (1.0 - 1e-9)) {
                best = candidates[i].split;
                best_cost = cost;
            }
        }
        std::sort(found_by.begin(), found_by.end());
        std::vector<std::size_t> splits;
        for (std::size_t i = g; i < end; ++i)
            if (splits.empty() || splits.back() != candidates[i].split)
                splits.push_back(candidates[i].split);
        out.ranges.push_back({first, best});
        out.found_by.push_back(std::move(found_by));
        out.candidates.push_back(std::move(splits));
        first = best + 1;
        g = end;
    }
    if (n > 0)
        out.ranges.push_back({first, n - 1});
    return out;
}

} // namespace ngx::fit
