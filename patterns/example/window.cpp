// An example pattern built out of tree: "window", streaming bandwidth. Per
// size the driver sends a window of W messages back to back and the
// responder answers the last one with one byte; the time per window over W
// is the cost per message when the link is kept busy (OSU's osu_bw idea).
// It uses only the installed headers: ngx/pattern_plugin.hpp and what it
// includes.
#include "size_loop.hpp"

#include <ngx/pattern_plugin.hpp>
#include <ngx/statistics.hpp>

#include <vector>

namespace {

using namespace ngx;

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
        return example::each_size(ctx, [&](Buffer& buffer, uint64_t size) -> Status {
            Result<std::vector<double>> samples = measure(ctx, buffer, size);
            if (!samples)
                return samples.status().with_context("window of " + std::to_string(size) + " B");
            ctx.sink.count_messages((messages_ + 1) * (ctx.settings.warmup + ctx.settings.count));
            if (ctx.bootstrap.is_driver())
                ctx.sink.size_done(record(ctx, size, std::move(*samples)));
            return Status::ok();
        });
    }

private:
    // Microseconds per message of each window, on the driver.
    Result<std::vector<double>> measure(PatternContext& ctx, Buffer& buffer, uint64_t size)
    {
        std::vector<double> per_message;
        for (uint64_t rep = 0; rep < ctx.settings.warmup + ctx.settings.count; ++rep) {
            uint64_t start = ctx.timer.now();
            Status status =
                ctx.bootstrap.is_driver() ? send_window(ctx, buffer, size) : answer_window(ctx, buffer, size);
            uint64_t end = ctx.timer.now();
            if (!status)
                return status;
            if (rep >= ctx.settings.warmup)
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

    SizeRecord record(const PatternContext& ctx, uint64_t size, std::vector<double> samples)
    {
        SizeRecord record;
        record.size_bytes = size;
        if (ctx.settings.keep_raw)
            record.raw_us = samples;
        record.summary = summarize(std::move(samples), ctx.settings.percentiles);
        if (record.summary.median > 0)
            record.extra.emplace_back("bandwidth_MBps", double(size) / record.summary.median);
        return record;
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
