// Pattern "pingping": PRTT(n, d, s) of Hoefler et al. 2007, Listing 1, per size: n
// messages with d microseconds of busy-waiting between sends, one reply.
#include <ngx/pattern_plugin.hpp>

#include "../common/passes.hpp"
#include "../common/prtt.hpp"
#include "../common/sweep.hpp"

#include <cmath>

namespace ngx::patterns {
namespace {

constexpr uint64_t max_messages = 100000;
constexpr double max_delay_us = 1e6;

class PingPing final : public Pattern {
public:
    Status configure(const OptionValues& values) override
    {
        opt::OptionReader read(values);
        messages_ = read.whole_number("pingping-n", 1, max_messages);
        delay_us_ = read.number("pingping-delay", 0, max_delay_us);
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
    info.options = {{"pingping-n", "16", "messages n per round trip"},
                    {"pingping-delay", "0", "busy-wait d between sends, microseconds"}};
    info.create = [] { return std::make_unique<PingPing>(); };
    return info;
}

} // namespace ngx::patterns

NGX_PATTERN_EXPORT(ngx::patterns::pingping_pattern)
