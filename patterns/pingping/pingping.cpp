// Pattern "pingping": PRTT(n, d, s) of paper 001, Listing 1, per size: n
// messages with d microseconds of busy-waiting between sends, one reply.
#include "pingping.hpp"

#include "../common/prtt.hpp"
#include "../common/sweep.hpp"

#include <charconv>
#include <cmath>

namespace ngx::patterns {
namespace {

constexpr uint64_t max_messages = 100000;
constexpr double max_delay_us = 1e6;

class PingPing final : public Pattern {
public:
    Status configure(const po::variables_map& values) override
    {
        std::string n = values["pingping-n"].as<std::string>();
        auto [end, error] = std::from_chars(n.data(), n.data() + n.size(), messages_);
        if (n.empty() || end != n.data() + n.size() || error != std::errc() || messages_ < 1 ||
            messages_ > max_messages)
            return Status::usage("--pingping-n '" + n + "': expected a whole number in 1.." +
                                 std::to_string(max_messages));
        std::string d = values["pingping-delay"].as<std::string>();
        auto [dend, derror] = std::from_chars(d.data(), d.data() + d.size(), delay_us_);
        if (d.empty() || dend != d.data() + d.size() || derror != std::errc() ||
            !(delay_us_ >= 0 && delay_us_ <= max_delay_us))
            return Status::usage("--pingping-delay '" + d + "': expected microseconds in 0..1000000");
        return Status::ok();
    }

    Json options_json() const override { return {{"n", messages_}, {"delay_us", delay_us_}}; }

    Status run(PatternContext& ctx) override
    {
        return sweep_sizes(ctx, [&](uint64_t size, Buffer& buffer) -> Result<SizeRecord> {
            PrttSpec spec{size, messages_, delay_us_, ctx.settings.count, ctx.settings.warmup};
            Result<std::vector<double>> prtt = run_prtt(ctx, buffer, spec);
            if (!prtt)
                return prtt.status();
            ctx.sink.count_messages(prtt_message_count(spec));
            return make_record(ctx, size, std::move(*prtt));
        });
    }

private:
    uint64_t messages_ = 16;
    double delay_us_ = 0;
};

} // namespace

PatternInfo pingping_pattern()
{
    return {"pingping",
            "PRTT(n, d, s): n messages with delay d between sends, one reply (paper 001)",
            "PRTT(n, d, s)",
            "1-64Ki",
            [] {
                po::options_description options("Pattern pingping");
                options.add_options()("pingping-n", po::value<std::string>()->default_value("16"),
                                      "messages n per round trip")("pingping-delay",
                                                                   po::value<std::string>()->default_value("0"),
                                                                   "busy-wait d between sends, microseconds");
                return options;
            },
            [] { return std::make_unique<PingPing>(); }};
}

} // namespace ngx::patterns
