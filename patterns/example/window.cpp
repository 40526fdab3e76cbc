// An example pattern built out of tree: "window", streaming bandwidth. Per
// size the driver sends a window of W messages back to back and the
// responder answers the last one with one byte; the time per window over W
// is the cost per message when the link is kept busy (OSU's osu_bw idea).
// It uses only the installed headers and libraries: ngx/pattern_plugin.hpp
// (libngxplugin) and the measuring library libngxmeasure, whose interleaved
// passes (ngx/measure/passes.hpp) run its own window loop size by size and
// pass by pass, so --passes, --adaptive and the extra passes of --max-rel-ci
// hold for it as for the in-tree patterns. (Its loop takes no retries: a
// lost message ends the run. A pattern built on the PRTT loop,
// ngx/measure/prtt.hpp, as echo is, gets them.)
#include <ngx/pattern_plugin.hpp>

#include <ngx/measure/passes.hpp>
#include <ngx/measure/sweep.hpp>

#include <vector>

namespace {

using namespace ngx;
using namespace ngx::patterns; // the measuring library

// Each option is a typed row, declared once: its type and range decide how
// it is parsed and checked, and --help shows them.
constexpr auto window_messages = opt::row::whole_number("window-messages", "64", 1, 4096, "messages W per window");

// The pattern's table: what --help lists and what its reader accepts.
opt::Table window_options()
{
    return {"window", {window_messages}};
}

class Window final : public Pattern {
public:
    Status configure(const OptionValues& values) override
    {
        opt::Reader read(window_options(), values);
        messages_ = read(window_messages);
        return read.ok() ? Status::ok() : Status::usage(read.error());
    }

    Json options_json() const override { return {{"messages", messages_}}; }

    Status run(PatternContext& ctx) override
    {
        PassedSweep sweep;
        sweep.measure = [&](const PassSlice& slice, Buffer& buffer) -> Result<Series> {
            Result<std::vector<double>> samples = measure(ctx, buffer, slice);
            if (!samples)
                return samples.status().with_context("window of " + std::to_string(slice.size) + " B");
            ctx.sink.count_messages((messages_ + 1) * (slice.warmup + slice.samples));
            return Series{std::move(*samples)};
        };
        sweep.record = [&](const PassSlice& last, Series& pooled) -> Result<SizeRecord> {
            SizeRecord record = make_record(ctx, last.size, std::move(pooled[0]));
            add_bandwidth_column(record);
            return record;
        };
        return sweep_passes(ctx, sweep);
    }

private:
    // One size in one pass: microseconds per message of each kept window, on
    // the driver (the responder returns none).
    Result<std::vector<double>> measure(PatternContext& ctx, Buffer& buffer, const PassSlice& slice)
    {
        std::vector<double> per_message;
        for (uint64_t rep = 0; rep < slice.warmup + slice.samples; ++rep) {
            uint64_t start = ctx.timer.now();
            Status status = ctx.bootstrap.is_driver() ? send_window(ctx, buffer, slice.size)
                                                      : answer_window(ctx, buffer, slice.size);
            uint64_t end = ctx.timer.now();
            if (!status)
                return status;
            if (rep >= slice.warmup && ctx.bootstrap.is_driver())
                per_message.push_back(ctx.timer.to_us(end - start) / double(messages_));
        }
        return per_message;
    }

    Status send_window(PatternContext& ctx, Buffer& buffer, uint64_t size)
    {
        for (uint64_t i = 0; i < messages_; ++i)
            if (Status sent = ctx.transport.send(buffer.data(), size); !sent)
                return sent;
        return ctx.transport.recv(buffer.data(), 1);
    }

    Status answer_window(PatternContext& ctx, Buffer& buffer, uint64_t size)
    {
        for (uint64_t i = 0; i < messages_; ++i)
            if (Status received = ctx.transport.recv(buffer.data(), size); !received)
                return received;
        return ctx.transport.send(buffer.data(), 1);
    }

    uint64_t messages_ = 64;
};

PatternInfo window_pattern()
{
    PatternInfo info;
    info.name = "window";
    info.description = "streaming bandwidth: W messages back to back, one 1-byte reply (example, out of tree)";
    info.metric = "time per message in a window";
    info.default_sizes = "1-1Mi";
    info.options = window_options().specs();
    info.create = [] { return std::make_unique<Window>(); };
    info.default_count = 100;
    info.default_warmup = 10;
    return info;
}

} // namespace

NGX_PATTERN_EXPORT(window_pattern)
