// Pattern "pingpong": half the round-trip time of one message per size
// (Netgauge's one_one, OSU's osu_latency): PRTT(1, 0, s) / 2 of paper 001.
#include <ngx/pattern_plugin.hpp>

#include "../common/passes.hpp"
#include "../common/prtt.hpp"
#include "../common/sweep.hpp"

namespace ngx::patterns {
namespace {

class PingPong final : public Pattern {
public:
    Status configure(const OptionValues&) override { return Status::ok(); }
    Json options_json() const override { return Json::object(); }

    Status run(PatternContext& ctx) override
    {
        PassedSweep sweep;
        sweep.measure = [&](const PassSlice& slice, Buffer& buffer) -> Result<Series> {
            PrttSpec spec{slice.size, 1, 0.0, slice.samples, slice.warmup};
            Result<std::vector<double>> prtt = run_prtt(ctx, buffer, spec);
            if (!prtt)
                return prtt.status();
            ctx.sink.count_messages(prtt_message_count(spec));
            for (double& sample : *prtt)
                sample /= 2.0; // half round trip
            return Series{std::move(*prtt)};
        };
        sweep.record = [&](const PassSlice& last, Series& pooled) -> Result<SizeRecord> {
            SizeRecord record = make_record(ctx, last.size, std::move(pooled[0]));
            if (record.summary.median > 0) // bytes per microsecond = MB/s
                record.extra.emplace_back("bandwidth_MBps", double(last.size) / record.summary.median);
            return record;
        };
        return sweep_passes(ctx, sweep);
    }
};

} // namespace

PatternInfo pingpong_pattern()
{
    PatternInfo info;
    info.name = "pingpong";
    info.description = "half round-trip time per message size (PRTT(1,0,s)/2)";
    info.metric = "half round trip";
    info.default_sizes = "1-1Mi";
    info.create = [] { return std::make_unique<PingPong>(); };
    return info;
}

} // namespace ngx::patterns

NGX_PATTERN_EXPORT(ngx::patterns::pingpong_pattern)
