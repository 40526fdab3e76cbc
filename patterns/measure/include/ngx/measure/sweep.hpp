// The loop most patterns share: for each message size, meet the peer at a
// barrier, measure a series of samples, and hand the summary to the sink.
//
//     return sweep_sizes(ctx, [&](uint64_t size, Buffer& buffer) -> Result<SizeRecord> { ... });
#ifndef NGX_MEASURE_SWEEP_HPP
#define NGX_MEASURE_SWEEP_HPP

#include <ngx/pattern.hpp>

#include <functional>

namespace ngx::patterns {

// Measures one size; returns the record to keep (ignored on the responder).
using MeasureSize = std::function<Result<SizeRecord>(uint64_t size, Buffer& buffer)>;

Status sweep_sizes(PatternContext& ctx, const MeasureSize& measure);

// A SizeRecord from samples, honouring --raw and --percentiles, with the
// columns median_ci95_lo_us and median_ci95_hi_us (the 95% interval of the
// median by order statistics, ngx/statistics.hpp); for a module
// without NGX_CAP_RELIABLE also the columns "lost" (repetitions of the size
// that lost a message and were retried) and "loss_rate" (lost / attempted
// repetitions, warm-up included; a ping-pong repetition carries 2 messages).
SizeRecord make_record(const PatternContext& ctx, uint64_t size, std::vector<double> samples_us);

// The column bandwidth_MBps of a record whose samples are the time of one
// message of its size: size / median (bytes per microsecond = MB/s); none
// when the median is not positive.
void add_bandwidth_column(SizeRecord& record);

} // namespace ngx::patterns

#endif
