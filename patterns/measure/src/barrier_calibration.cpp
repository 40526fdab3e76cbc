// The delay calibration from the barrier (see barrier_calibration.hpp).
#include <ngx/measure/barrier_calibration.hpp>

#include <ngx/statistics.hpp>

#include <algorithm>

namespace ngx::patterns {
namespace {

constexpr uint64_t calibration_warmup = 10;
constexpr uint64_t calibration_samples = 60;
constexpr uint64_t check_samples = 60;
constexpr double delay_factor = 2.0;
constexpr double delay_margin_us = 5.0;
constexpr double tail_rank = 90;
constexpr double delay_rank = 95;
constexpr double max_tail_delay_us = 1000;

// Arrivals after the barrier with one root (driver), or the sends that make them (responder).
Result<std::vector<double>> arrivals(PatternContext& ctx, BarrierRoot root, const CalibrationCalls& calls,
                                     uint64_t warmup, uint64_t samples)
{
    std::vector<double> out;
    for (uint64_t rep = 0; rep < warmup + samples; ++rep) {
        NGX_TRY(rooted_barrier(ctx.bootstrap, root));
        Timers t;
        if (!ctx.bootstrap.is_driver()) {
            NGX_TRY(calls.send(&t));
            continue;
        }
        uint64_t start = ctx.timer.now();
        NGX_TRY(calls.recv(&t));
        if (rep >= warmup)
            out.push_back(ctx.timer.to_us(ctx.timer.now() - start));
    }
    return out;
}

} // namespace

Result<BarrierCalibration> calibrate_delay(PatternContext& ctx, RootChoice roots, const CalibrationCalls& calls)
{
    BarrierCalibration result;
    for (BarrierRoot root : roots_of(roots)) {
        NGX_ASSIGN_OR_RETURN(std::vector<double> times,
                             arrivals(ctx, root, calls, calibration_warmup, calibration_samples));
        result.messages += calibration_warmup + calibration_samples;
        if (times.empty())
            continue;
        std::sort(times.begin(), times.end());
        result.arrival_median_us = std::max(result.arrival_median_us, percentile_of_sorted(times, 50));
        result.arrival_p90_us = std::max(result.arrival_p90_us, percentile_of_sorted(times, tail_rank));
        result.arrival_p95_us = std::max(result.arrival_p95_us, percentile_of_sorted(times, delay_rank));
    }
    double by_median = delay_factor * result.arrival_median_us + delay_margin_us;
    double by_tail = std::min(result.arrival_p95_us, max_tail_delay_us);
    result.delay_from_p95 = by_tail > by_median;
    result.delay_us = ctx.bootstrap.is_driver() ? std::max(by_median, by_tail) : 0.0;
    // The check, on arrivals the delay was not taken from.
    uint64_t late = 0, checked = 0;
    for (BarrierRoot root : roots_of(roots)) {
        NGX_ASSIGN_OR_RETURN(std::vector<double> times, arrivals(ctx, root, calls, 0, check_samples));
        result.messages += check_samples;
        checked += times.size();
        late += uint64_t(std::count_if(times.begin(), times.end(), [&](double t) { return t > result.delay_us; }));
    }
    result.late_share = checked > 0 ? double(late) / double(checked) : 0.0;
    return result;
}

} // namespace ngx::patterns
