// The LogGP fit (fit_loggp, loggp.hpp): the samples validated, the per-size
// curves and their protocol ranges (loggp_ranges.cpp), the ranges as the
// model judges them (loggp_splits.cpp), each range's parameters
// (loggp_estimates.cpp), then the validity flags and the fit's error. The
// equations the fit is judged by are in loggp_equations.cpp.
#include <models/loggp/loggp.hpp>
#include <models/loggp/loggp_estimates.hpp>
#include <models/loggp/loggp_ranges.hpp>
#include <models/loggp/loggp_splits.hpp>

#include <models/base/failure_text.hpp>

#include <cmath>
#include <utility>

namespace ngx::fit {

namespace {

using detail::choose_splits_by_model;
using detail::detect;
using detail::Detected;
using detail::fit_range;
using detail::merge_single_points;
using detail::per_size;
using detail::PerSize;
using detail::split_misfits;

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
