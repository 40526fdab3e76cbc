// The per-size loop shared by the timing patterns (see sweep.hpp).
#include <ngx/measure/sweep.hpp>

#include <ngx/sizes.hpp>
#include <ngx/statistics.hpp>

#include <algorithm>

namespace ngx::patterns {

SizeRecord make_record(const PatternContext& ctx, uint64_t size, std::vector<double> samples_us)
{
    SizeRecord record;
    record.size_bytes = size;
    if (ctx.settings.keep_raw)
        record.raw_us = samples_us;
    std::sort(samples_us.begin(), samples_us.end());
    MedianInterval interval = median_ci95(samples_us);
    record.summary = summarize(std::move(samples_us), ctx.settings.percentiles);
    record.extra.emplace_back("median_ci95_lo_us", interval.low);
    record.extra.emplace_back("median_ci95_hi_us", interval.high);
    if (!ctx.transport.has(NGX_CAP_RELIABLE)) { // repetitions that lost a message and were retried
        const LossTally& losses = ctx.losses;
        record.extra.emplace_back("lost", double(losses.lost));
        record.extra.emplace_back("loss_rate",
                                  losses.attempted == 0 ? 0.0 : double(losses.lost) / double(losses.attempted));
    }
    return record;
}

void add_bandwidth_column(SizeRecord& record)
{
    if (record.summary.median > 0)
        record.extra.emplace_back("bandwidth_MBps", double(record.size_bytes) / record.summary.median);
}

Status sweep_sizes(PatternContext& ctx, const MeasureSize& measure)
{
    NGX_ASSIGN_OR_RETURN(Buffer buffer, ctx.transport.alloc(size_t(ctx.settings.sizes.back())));
    for (uint64_t size : ctx.settings.sizes) {
        mark_step(ctx.settings.progress, "waiting for the peer before the size", size);
        NGX_TRY(ctx.bootstrap.barrier("size " + format_bytes(size) + ": waiting for the peer"));
        ctx.losses = LossTally{};
        mark_step(ctx.settings.progress, "measuring");
        NGX_ASSIGN_OR_RETURN(SizeRecord record, measure(size, buffer));
        if (ctx.bootstrap.is_driver())
            ctx.sink.size_done(std::move(record));
    }
    return Status::ok();
}

} // namespace ngx::patterns
