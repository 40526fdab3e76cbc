#include <ngx/fit/loggp.hpp>

#include "rounds.hpp"

#include <algorithm>
#include <cmath>

namespace ngx::fit {

namespace {

constexpr double nan_v = Measured::nan;

Status validate(std::span<const PrttSample> samples, double n)
{
    if (!std::isfinite(n) || n < 2)
        return Status::invalid_input;
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const PrttSample& s = samples[i];
        if (!std::isfinite(s.size) || s.size < 1 || !std::isfinite(s.prtt_1_0) || !std::isfinite(s.prtt_n_0) ||
            !std::isfinite(s.prtt_n_d) || !std::isfinite(s.delay) || s.delay < 0)
            return Status::invalid_input;
        if (s.o_r && !std::isfinite(*s.o_r))
            return Status::invalid_input;
        if (i > 0 && !(s.size > samples[i - 1].size))
            return Status::invalid_input;
    }
    if (samples.size() < 2)
        return Status::too_few_points;
    return Status::ok;
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

Result<std::vector<Range>> detect(std::span<const double> x, std::span<const double> y, const LogGPOptions& opt)
{
    switch (opt.method) {
    case ChangePointMethod::paper:
        return detect_protocol_ranges_paper(x, y, opt.paper);
    case ChangePointMethod::none:
        return std::vector<Range>{{0, x.size() - 1}};
    case ChangePointMethod::robust:
        break;
    }
    return detect_protocol_ranges(x, y, opt.robust);
}

// One-point ranges carry no line: merge them into a neighbour.
std::vector<Range> merge_single_points(std::vector<Range> ranges)
{
    std::vector<Range> out;
    for (const Range& r : ranges) {
        if (!out.empty() && (r.count() < 2 || out.back().count() < 2))
            out.back().last = r.last;
        else
            out.push_back(r);
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

struct PerSize {
    std::vector<double> x, o, y;
};

PerSize per_size(std::span<const PrttSample> samples, double n)
{
    PerSize p;
    for (const PrttSample& s : samples) {
        p.x.push_back(s.size - 1);
        // Paper 001, eq. (6): (PRTT(n,d,s) - PRTT(1,0,s)) / (n-1) = o + d.
        p.o.push_back((s.prtt_n_d - s.prtt_1_0) / (n - 1) - s.delay);
        // Paper 001, eq. (7): (PRTT(n,0,s) - PRTT(1,0,s)) / (n-1) = g + G (s-1).
        p.y.push_back((s.prtt_n_0 - s.prtt_1_0) / (n - 1));
    }
    return p;
}

// Fits one protocol range; appends L(s) of its sizes to fit.L_per_size.
Status fit_range(std::span<const PrttSample> samples, const PerSize& ps, Range r, const LogGPOptions& opt,
                 LogGPFit& fit)
{
    const bool rel = opt.relative_weights;
    const std::span<const double> xs(ps.x.data() + r.first, r.count());
    const std::span<const double> ys(ps.y.data() + r.first, r.count());
    const std::span<const double> os(ps.o.data() + r.first, r.count());
    const auto prtt1 = slice(samples, r, [](const PrttSample& s, std::size_t) { return s.prtt_1_0; });
    const auto prttd = slice(samples, r, [](const PrttSample& s, std::size_t) { return s.prtt_n_d; });

    // Paper 001 section 3.3: least squares over eq. (7), intercept g, slope G.
    Result<LineFit> gap = line(xs, ys, guarded_relative_weights(ys), rel, opt.level);
    if (!gap)
        return gap.status();

    LogGPRange range;
    LogGPRangeDetail detail;
    range.from_bytes = samples[r.first].size;
    range.to_bytes = samples[r.last].size;
    range.g = gap->intercept;
    range.G = gap->slope;

    // o per range from paper 001 eq. (6): weights 1/PRTT(n,d,s)^2 (its noise scale).
    const auto w_o = guarded_relative_weights(prttd);
    range.o = average(os, w_o, rel, opt.level);
    detail.o_median = median_of(os);
    if (Result<LineFit> ol = line(xs, os, w_o, rel, opt.level)) {
        range.o_intercept = ol->intercept.value;
        range.o_slope = ol->slope.value;
        detail.o_line = std::move(*ol);
    }

    // L of paper 001 eq. (1): PRTT(1,0,s)/2 - 2 o(s) - (s-1) G, weights
    // 1/PRTT(1,0,s)^2. Where the receiver measured o_r(s), the two overheads
    // of eq. (1) are o_s + o_r rather than 2o (ngx's refinement: a network
    // whose receive side costs more than its send side keeps its true L).
    std::vector<double> Ls;
    for (std::size_t i = 0; i < r.count(); ++i) {
        const std::optional<double>& o_r = samples[r.first + i].o_r;
        const double overheads = o_r ? os[i] + *o_r : 2 * os[i];
        Ls.push_back(prtt1[i] / 2 - overheads - xs[i] * range.G.value);
    }
    range.L = average(Ls, guarded_relative_weights(prtt1), rel, opt.level);
    detail.L_median = median_of(Ls);
    fit.L_per_size.insert(fit.L_per_size.end(), Ls.begin(), Ls.end());

    std::vector<double> ors;
    for (std::size_t i = r.first; i <= r.last; ++i)
        if (samples[i].o_r)
            ors.push_back(*samples[i].o_r);
    range.o_r = mean_of(ors, opt.level);

    detail.indices = r;
    detail.gap_line = std::move(*gap);
    fit.params.ranges.push_back(range);
    fit.details.push_back(std::move(detail));
    return Status::ok;
}

void flag_and_score(std::span<const PrttSample> samples, double n, LogGPFit& fit)
{
    ModelErrorAccumulator err;
    const LogGPParams& p = fit.params;
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const PrttSample& s = samples[i];
        const LogGPRange& r = *p.range_for(s.size);
        const double g_all = r.g.value + (s.size - 1) * r.G.value; // Paper 001, eq. (2)
        if (!(s.delay > g_all))
            fit.delay_too_small.push_back(i);
        if (fit.o_per_size[i] > g_all)
            fit.overhead_above_gap.push_back(i);
        err.add(s.prtt_1_0, p.rtt(s.size));
        err.add(s.prtt_n_0, p.prtt(n, 0, s.size));
        err.add(s.prtt_n_d, p.prtt(n, s.delay, s.size));
    }
    fit.error = err.result();
}

} // namespace

double LogGPRange::o_at(double s) const noexcept
{
    if (std::isfinite(o_intercept) && std::isfinite(o_slope))
        return o_intercept + o_slope * (s - 1);
    return o.value;
}

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

double LogGPRange::overheads_at(double s) const noexcept
{
    return std::isfinite(o_r.value) ? o_at(s) + o_r.value : 2 * o_at(s);
}

double LogGPParams::rtt(double s) const noexcept
{
    const LogGPRange* r = range_for(s);
    if (!r || !(s >= 1))
        return nan_v;
    // Paper 001, eq. (1): PRTT(1,0,s) = 2 (L + 2o + (s-1)G), with o_s + o_r for 2o when o_r was measured.
    return 2 * (r->L.value + r->overheads_at(s) + (s - 1) * r->G.value);
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
    const double g_all = r->g.value + (s - 1) * r->G.value; // Paper 001, eq. (2)
    // Paper 001, eq. (5): PRTT(n,d,s) = PRTT(1,0,s) + (n-1) max{o + d, G_all}.
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
    const double g_all = r->g.value + (s - 1) * r->G.value; // Paper 001, eq. (2)
    // Send starts spaced by max{o, G_all} (eq. (5), d = 0); the last message
    // is one o + (s-1)G + L + o transfer (eq. (1) halved).
    return (P - 2) * std::max(g_all, o) + r->overheads_at(s) + r->L.value + (s - 1) * r->G.value;
}

double LogGPParams::tree_bcast(double P, double s) const noexcept
{
    if (!(P >= 1))
        return nan_v;
    return detail::binomial_rounds(P) * half_rtt(s);
}

Result<LogGPFit> fit_loggp(std::span<const PrttSample> samples, double n, const LogGPOptions& opt)
{
    if (const Status s = validate(samples, n); s != Status::ok)
        return s;
    if (!(opt.level > 0 && opt.level < 1))
        return Status::invalid_input;

    LogGPFit fit;
    const PerSize ps = per_size(samples, n);
    fit.o_per_size = ps.o;
    fit.gap_per_size = ps.y;

    Result<std::vector<Range>> ranges = detect(ps.x, ps.y, opt);
    if (!ranges)
        return ranges.status();
    for (const Range& r : merge_single_points(std::move(*ranges)))
        if (const Status s = fit_range(samples, ps, r, opt, fit); s != Status::ok)
            return s;

    // Paper 001, section 3.4: L reported as PRTT(1,0,1)/2 (here: smallest size).
    fit.params.eel = Measured::exact(samples.front().prtt_1_0 / 2);
    fit.params.eel_size = samples.front().size;
    fit.eel_from_size_one = samples.front().size == 1;

    flag_and_score(samples, n, fit);
    return fit;
}

} // namespace ngx::fit
