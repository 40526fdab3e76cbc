// Pattern "pingpong": half the round-trip time of one message per size
// (Netgauge's one_one, OSU's osu_latency): PRTT(1, 0, s) / 2 of Hoefler et al. 2007.
//
// --pingpong-timing per-sample (default) reads the timer around every round
// trip; batch reads it once per --pingpong-batch round trips and keeps the
// batch's mean as the sample, for paths below a microsecond where one timer
// read is a noticeable part of the interval. The run's options in
// the JSON say which, and that the statistics are then over batch means.
#include <ngx/pattern_plugin.hpp>

#include <ngx/measure/passes.hpp>
#include <ngx/measure/prtt.hpp>
#include <ngx/measure/sweep.hpp>

namespace ngx::patterns {
namespace {

constexpr auto pingpong_timing =
    opt::row::choice("pingpong-timing", "per-sample", {"per-sample", "batch"},
                     "per-sample: timer read around every round trip; batch: once per --pingpong-batch round trips, "
                     "each sample a batch mean (for sub-microsecond paths)");
constexpr auto pingpong_batch = opt::row::whole_number("pingpong-batch", "64", 1, 1u << 20,
                                                       "round trips per timed sample with --pingpong-timing batch");

opt::Table pingpong_options()
{
    return {"pingpong", {pingpong_timing, pingpong_batch}};
}

class PingPong final : public Pattern {
public:
    Status configure(const OptionValues& values) override
    {
        opt::Reader read(pingpong_options(), values);
        batched_ = read(pingpong_timing) == "batch";
        batch_ = read(pingpong_batch);
        return read.ok() ? Status::ok() : Status::usage(read.error());
    }

    Json options_json() const override
    {
        if (!batched_)
            return {{"timing", "per-sample"}};
        return {{"timing", "batch"},
                {"batch", batch_},
                {"statistics", "over batch means: each sample is the mean half round trip of " +
                                   std::to_string(batch_) + " round trips timed together"}};
    }

    Status run(PatternContext& ctx) override
    {
        PassedSweep sweep;
        sweep.measure = [&](const PassSlice& slice, Buffer& buffer) -> Result<Series> {
            PrttSpec spec{slice.size, 1, 0.0, slice.samples, slice.warmup};
            spec.batch = batched_ ? batch_ : 1;
            NGX_ASSIGN_OR_RETURN(std::vector<double> prtt, run_prtt(ctx, buffer, spec));
            ctx.sink.count_messages(prtt_message_count(spec));
            for (double& sample : prtt)
                sample /= 2.0; // half round trip
            return Series{std::move(prtt)};
        };
        sweep.record = [&](const PassSlice& last, Series& pooled) -> Result<SizeRecord> {
            SizeRecord record = make_record(ctx, last.size, std::move(pooled[0]));
            add_bandwidth_column(record);
            return record;
        };
        return sweep_passes(ctx, sweep);
    }

private:
    bool batched_ = false;
    uint64_t batch_ = 64;
};

} // namespace

PatternInfo pingpong_pattern()
{
    PatternInfo info;
    info.name = "pingpong";
    info.description = "half round-trip time per message size (PRTT(1,0,s)/2)";
    info.metric = "half round trip";
    info.default_sizes = "1-1Mi";
    info.options = pingpong_options().specs();
    info.create = [] { return std::make_unique<PingPong>(); };
    return info;
}

} // namespace ngx::patterns

NGX_PATTERN_EXPORT(ngx::patterns::pingpong_pattern)
