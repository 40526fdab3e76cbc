// Pattern "pingping": PRTT(n, d, s) of Hoefler et al. 2007, Listing 1, per size: n
// messages with d microseconds of busy-waiting between sends, one reply.
#include <ngx/pattern_plugin.hpp>

#include <ngx/measure/passes.hpp>
#include <ngx/measure/prtt.hpp>
#include <ngx/measure/sweep.hpp>

#include <cmath>

namespace ngx::patterns {
namespace {

constexpr uint64_t max_messages = 100000;
constexpr double max_delay_us = 1e6;

constexpr auto pingping_n = opt::row::whole_number("pingping-n", "16", 1, max_messages, "messages n per round trip");
constexpr auto pingping_delay =
    opt::row::number("pingping-delay", "0", 0, max_delay_us, "busy-wait d between sends, microseconds");

opt::Table pingping_options()
{
    return {"pingping", {pingping_n, pingping_delay}};
}

class PingPing final : public Pattern {
public:
    Status configure(const OptionValues& values) override
    {
        opt::Reader read(pingping_options(), values);
        messages_ = read(pingping_n);
        delay_us_ = read(pingping_delay);
        return read.ok() ? Status::ok() : Status::usage(read.error());
    }

    Json options_json() const override { return {{"n", messages_}, {"delay_us", delay_us_}}; }

    Status run(PatternContext& ctx) override
    {
        PassedSweep sweep;
        sweep.measure = [&](const PassSlice& slice, Buffer& buffer) -> Result<Series> {
            PrttSpec spec{slice.size, messages_, delay_us_, slice.samples, slice.warmup};
            NGX_ASSIGN_OR_RETURN(std::vector<double> prtt, run_prtt(ctx, buffer, spec));
            ctx.sink.count_messages(prtt_message_count(spec));
            return Series{std::move(prtt)};
        };
        sweep.record = [&](const PassSlice& last, Series& pooled) -> Result<SizeRecord> {
            return make_record(ctx, last.size, std::move(pooled[0]));
        };
        return sweep_passes(ctx, sweep);
    }

private:
    uint64_t messages_ = 16;
    double delay_us_ = 0;
};

} // namespace

PatternInfo pingping_pattern()
{
    PatternInfo info;
    info.name = "pingping";
    info.description = "PRTT(n, d, s): n messages with delay d between sends, one reply (Hoefler et al. 2007)";
    info.metric = "PRTT(n, d, s)";
    info.default_sizes = "1-64Ki";
    info.options = pingping_options().specs();
    info.create = [] { return std::make_unique<PingPing>(); };
    return info;
}

} // namespace ngx::patterns

NGX_PATTERN_EXPORT(ngx::patterns::pingping_pattern)
