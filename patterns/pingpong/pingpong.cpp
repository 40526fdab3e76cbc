// Pattern "pingpong": half the round-trip time of one message per size
// (Netgauge's one_one, OSU's osu_latency): PRTT(1, 0, s) / 2 of paper 001.
#include <ngx/pattern_plugin.hpp>

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
        return sweep_sizes(ctx, [&](uint64_t size, Buffer& buffer) -> Result<SizeRecord> {
            PrttSpec spec{size, 1, 0.0, ctx.settings.count, ctx.settings.warmup};
            Result<std::vector<double>> prtt = run_prtt(ctx, buffer, spec);
            if (!prtt)
                return prtt.status();
            ctx.sink.count_messages(prtt_message_count(spec));
            for (double& sample : *prtt)
                sample /= 2.0; // half round trip
            SizeRecord record = make_record(ctx, size, std::move(*prtt));
            if (record.summary.median > 0) // bytes per microsecond = MB/s
                record.extra.emplace_back("bandwidth_MBps", double(size) / record.summary.median);
            return record;
        });
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
