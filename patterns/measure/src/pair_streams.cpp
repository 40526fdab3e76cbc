// Timed streams between the ranks of a layout round (see pair_streams.hpp).
#include <ngx/measure/pair_streams.hpp>

#include <ngx/statistics.hpp>

#include <algorithm>

namespace ngx::patterns {

std::vector<std::vector<Transfer>> phases_of(const Round& round)
{
    std::vector<std::vector<Transfer>> phases;
    for (const Transfer& t : round.transfers) {
        auto free_of = [&](const std::vector<Transfer>& phase) {
            return std::none_of(phase.begin(), phase.end(), [&](const Transfer& o) {
                return o.from == t.from || o.to == t.from || o.from == t.to || o.to == t.to;
            });
        };
        auto where = std::find_if(phases.begin(), phases.end(), free_of);
        if (where == phases.end())
            phases.push_back({t});
        else
            where->push_back(t);
    }
    return phases;
}

Status stream_window(Transport& transport, uint8_t* data, uint64_t bytes, uint64_t messages, size_t slot, bool sender)
{
    for (uint64_t m = 0; m < messages; ++m)
        NGX_TRY(sender ? transport.send(data + m * slot, bytes) : transport.recv(data + m * slot, bytes));
    return sender ? transport.recv(data, stream_ack_bytes) : transport.send(data, stream_ack_bytes);
}

Result<double> stream_time(PatternContext& ctx, Buffer& buffer, const StreamSpec& spec, uint64_t messages, bool sender)
{
    const Timer& timer = ctx.timer;
    std::vector<double> times;
    for (uint64_t k = 0; k < spec.streams + 1; ++k) { // the first stream warms up
        uint64_t start = timer.now();
        NGX_TRY(stream_window(ctx.transport, buffer.data(), spec.bytes, messages, 0, sender));
        if (k > 0)
            times.push_back(timer.to_us(timer.now() - start));
        if (ctx.interrupted())
            return Status::interrupted();
    }
    return median(times);
}

double window_bandwidth(const StreamSpec& spec, double t_one_us, double t_window_us)
{
    double per_message = (t_window_us - t_one_us) / double(spec.window - 1);
    return per_message > 0 ? double(spec.bytes) / per_message : missing_value; // bytes per us = MB/s
}

Result<double> stream_bandwidth(PatternContext& ctx, Buffer& buffer, const StreamSpec& spec, bool sender)
{
    NGX_ASSIGN_OR_RETURN(double one, stream_time(ctx, buffer, spec, 1, sender));
    NGX_ASSIGN_OR_RETURN(double many, stream_time(ctx, buffer, spec, spec.window, sender));
    return window_bandwidth(spec, one, many);
}

uint64_t stream_messages(const StreamSpec& spec)
{
    return (spec.streams + 1) * (spec.window + 3);
}

} // namespace ngx::patterns
