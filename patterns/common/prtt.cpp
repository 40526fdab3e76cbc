// PRTT(n, d, s) measurement, paper 001 Listing 1 (see prtt.hpp). The timed
// loop holds only the module calls, the busy-wait and two timer reads; ticks
// become microseconds after the loop.
#include "prtt.hpp"

#include <ngx/sizes.hpp>

namespace ngx::patterns {

std::string where(uint64_t size, uint64_t repetition)
{
    return "size " + format_bytes(size) + ", repetition " + std::to_string(repetition);
}

Result<std::vector<double>> measure_prtt(PatternContext& ctx, Buffer& buffer, const PrttSpec& spec)
{
    Transport& transport = ctx.transport;
    const Timer& timer = ctx.timer;
    uint8_t* data = buffer.data();
    uint64_t total = spec.warmup + spec.samples;
    uint64_t delay_ticks = timer.us_to_ticks(spec.delay_us);
    uint64_t compute_ticks = timer.us_to_ticks(spec.compute_us);
    std::vector<uint64_t> ticks(spec.samples);
    for (uint64_t rep = 0; rep < total; ++rep) {
        if (ctx.interrupted())
            return Status::interrupted(where(spec.size, rep) + ": interrupted");
        uint64_t start = timer.now();
        Status status = transport.send(data, spec.size);
        for (uint64_t i = 1; i < spec.messages && status.is_ok(); ++i) {
            uint64_t until = timer.now() + delay_ticks; // wait(d), Listing 1 line 15
            while (delay_ticks != 0 && timer.now() < until) {
            }
            status = transport.send(data, spec.size);
        }
        if (compute_ticks != 0) { // compute(w), paper 004 Figure 3
            uint64_t until = timer.now() + compute_ticks;
            while (timer.now() < until) {
            }
        }
        if (status.is_ok())
            status = transport.recv(data, spec.size);
        uint64_t end = timer.now();
        if (!status)
            return status.with_context(where(spec.size, rep));
        if (rep >= spec.warmup)
            ticks[rep - spec.warmup] = end - start;
    }
    std::vector<double> prtt_us(spec.samples);
    for (size_t i = 0; i < ticks.size(); ++i)
        prtt_us[i] = timer.to_us(ticks[i]);
    return prtt_us;
}

Status answer_prtt(PatternContext& ctx, Buffer& buffer, const PrttSpec& spec)
{
    Transport& transport = ctx.transport;
    uint8_t* data = buffer.data();
    uint64_t total = spec.warmup + spec.samples;
    for (uint64_t rep = 0; rep < total; ++rep) {
        if (ctx.interrupted())
            return Status::interrupted(where(spec.size, rep) + ": interrupted");
        Status status;
        for (uint64_t i = 0; i < spec.messages && status.is_ok(); ++i)
            status = transport.recv(data, spec.size);
        if (status.is_ok())
            status = transport.send(data, spec.size);
        if (!status)
            return status.with_context(where(spec.size, rep));
    }
    return Status::ok();
}

Result<std::vector<double>> run_prtt(PatternContext& ctx, Buffer& buffer, const PrttSpec& spec)
{
    if (ctx.bootstrap.is_driver())
        return measure_prtt(ctx, buffer, spec);
    NGX_TRY(answer_prtt(ctx, buffer, spec));
    return std::vector<double>();
}

} // namespace ngx::patterns
