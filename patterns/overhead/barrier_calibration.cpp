// The delay calibration from the barrier (see barrier_calibration.hpp).
#include "barrier_calibration.hpp"

#include <ngx/statistics.hpp>

#include <algorithm>

namespace ngx::patterns {
namespace {

constexpr uint64_t calibration_warmup = 10;
constexpr uint64_t calibration_samples = 60;
constexpr double delay_factor = 2.0;
constexpr double delay_margin_us = 5.0;
constexpr double tail_rank = 90;

// Arrivals after the barrier with one root (driver), or the sends that make them (responder).
Result<std::vector<double>> arrivals(PatternContext& ctx, BarrierRoot root, const CalibrationCalls& calls)
{
    std::vector<double> out;
    for (uint64_t rep = 0; rep < calibration_warmup + calibration_samples; ++rep) {
        NGX_TRY(rooted_barrier(ctx.bootstrap, root));
        Timers t;
        if (!ctx.bootstrap.is_driver()) {
            NGX_TRY(calls.send(&t));
            continue;
        }
        uint64_t start = ctx.timer.now();
        NGX_TRY(calls.recv(&t));
        if (rep >= calibration_warmup)
            out.push_back(ctx.timer.to_us(ctx.timer.now() - start));
    }
    return out;
}

} // namespace

Result<BarrierCalibration> calibrate_delay(PatternContext& ctx, RootChoice roots, const CalibrationCalls& calls)
{
    BarrierCalibration result;
    for (BarrierRoot root : roots_of(roots)) {
        Result<std::vector<double>> times = arrivals(ctx, root, calls);
        if (!times)
            return times.status();
        result.messages += calibration_warmup + calibration_samples;
        if (times->empty())
            continue;
        std::sort(times->begin(), times->end());
        result.arrival_median_us = std::max(result.arrival_median_us, percentile_of_sorted(*times, 50));
        result.arrival_p90_us = std::max(result.arrival_p90_us, percentile_of_sorted(*times, tail_rank));
    }
    result.delay_us = ctx.bootstrap.is_driver() ? delay_factor * result.arrival_median_us + delay_margin_us : 0.0;
    return result;
}

} // namespace ngx::patterns
