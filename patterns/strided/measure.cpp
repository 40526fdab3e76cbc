// The timed loops of the strided pattern (see measure.hpp).
#include "measure.hpp"

#include <ngx/measure/prtt.hpp>

#include <ngx/statistics.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ngx::patterns {
namespace {

Status interrupted_at(size_t size, uint64_t rep)
{
    return Status::interrupted(where(size, rep) + ": interrupted");
}

// One repetition of the driver: pack, send, receive, unpack.
Status drive_once(PatternContext& ctx, StridedBuffers& b, const Layout& layout, size_t size)
{
    Transport& t = ctx.transport;
    if (layout.stride == 1) {
        NGX_TRY(t.send(b.a.data(), size));
        return t.recv(b.b.data(), size);
    }
    pack(layout, b.a.data(), b.packed.data(), size);
    NGX_TRY(t.send(b.packed.data(), size));
    NGX_TRY(t.recv(b.packed.data(), size));
    unpack(layout, b.packed.data(), b.b.data(), size);
    return Status::ok();
}

// One repetition of the responder: receive, unpack, pack, answer.
Status answer_once(PatternContext& ctx, StridedBuffers& b, const Layout& layout, size_t size)
{
    Transport& t = ctx.transport;
    if (layout.stride == 1) {
        NGX_TRY(t.recv(b.b.data(), size));
        return t.send(b.b.data(), size);
    }
    NGX_TRY(t.recv(b.packed.data(), size));
    unpack(layout, b.packed.data(), b.b.data(), size);
    pack(layout, b.b.data(), b.packed.data(), size);
    return t.send(b.packed.data(), size);
}

// isend, recv, wait where the module has non-blocking calls (MPI: a large
// blocking send to self would wait for its own receive); otherwise the
// module keeps the message until the recv (sim).
Status send_to_self(Transport& t, const uint8_t* from, uint8_t* to, size_t size)
{
    if (!t.has(NGX_CAP_NONBLOCKING)) {
        NGX_TRY(t.send(from, size));
        return t.recv(to, size);
    }
    ngx_request request = 0;
    NGX_TRY(t.isend(from, size, request));
    NGX_TRY(t.recv(to, size));
    return t.wait(request);
}

// One send to self; packed (a byte module, stride > 1): with the user's pack and unpack.
Status self_once(Transport& t, StridedBuffers& b, const Layout& layout, size_t size, bool packed)
{
    if (!packed || layout.stride == 1)
        return send_to_self(t, b.a.data(), b.b.data(), size);
    pack(layout, b.a.data(), b.packed.data(), size);
    NGX_TRY(send_to_self(t, b.packed.data(), b.packed2.data(), size));
    unpack(layout, b.packed2.data(), b.b.data(), size);
    return Status::ok();
}

} // namespace

Result<std::vector<double>> remote_manual(PatternContext& ctx, StridedBuffers& b, const Layout& layout, size_t size)
{
    const RunSettings& s = ctx.settings;
    const bool driver = ctx.bootstrap.is_driver();
    std::vector<double> samples;
    samples.reserve(s.count);
    mark_step(s.progress, driver ? "strided series (driver: pack, send, recv, unpack)"
                                 : "strided series (responder: recv, unpack, pack, send)");
    for (uint64_t rep = 0; rep < s.warmup + s.count; ++rep) {
        if (ctx.interrupted())
            return interrupted_at(size, rep);
        mark_repetition(s.progress, rep);
        if (!driver) {
            NGX_TRY(answer_once(ctx, b, layout, size).with_context(where(size, rep)));
            continue;
        }
        uint64_t t0 = ctx.timer.now();
        NGX_TRY(drive_once(ctx, b, layout, size).with_context(where(size, rep)));
        uint64_t t1 = ctx.timer.now();
        if (rep >= s.warmup)
            samples.push_back(ctx.timer.to_us(t1 - t0) / 2); // half round trip
    }
    return samples;
}

Result<std::vector<double>> self_through_module(PatternContext& ctx, StridedBuffers& b, const Layout& layout,
                                                size_t size, bool packed)
{
    Transport& t = ctx.transport;
    const RunSettings& s = ctx.settings;
    const Layout moved = packed ? Layout{1, 1} : layout; // what the module is told it moves
    NGX_TRY(t.set_layout(moved.element, moved.stride, true));
    mark_step(s.progress, "send to self");
    std::vector<double> samples;
    samples.reserve(s.count);
    Status status = Status::ok();
    for (uint64_t rep = 0; rep < s.warmup + s.count && status; ++rep) {
        if (ctx.interrupted()) {
            status = interrupted_at(size, rep);
            break;
        }
        mark_repetition(s.progress, rep);
        uint64_t t0 = ctx.timer.now();
        status = self_once(t, b, layout, size, packed);
        uint64_t t1 = ctx.timer.now();
        if (rep >= s.warmup)
            samples.push_back(ctx.timer.to_us(t1 - t0));
        if (!status)
            status = status.with_context("send to self, " + where(size, rep));
    }
    Status restored = t.set_layout(moved.element, moved.stride, false);
    NGX_TRY(status);
    NGX_TRY(restored);
    return samples;
}

double min_of_means(const std::vector<double>& samples)
{
    if (samples.empty())
        return std::nan("");
    const size_t blocks = std::max<size_t>(1, samples.size() / 5);
    const size_t n = samples.size() / blocks;
    double best = INFINITY;
    for (size_t b = 0; b < blocks; ++b) {
        double sum = 0;
        for (size_t i = b * n; i < (b + 1) * n; ++i)
            sum += samples[i];
        best = std::min(best, sum / double(n));
    }
    return best;
}

double local_time(const PatternContext& ctx, const char* step, const std::function<void()>& work)
{
    const RunSettings& s = ctx.settings;
    std::vector<double> samples;
    samples.reserve(s.count);
    mark_step(s.progress, step);
    for (uint64_t rep = 0; rep < s.warmup + s.count; ++rep) {
        mark_repetition(s.progress, rep);
        uint64_t t0 = ctx.timer.now();
        work();
        uint64_t t1 = ctx.timer.now();
        if (rep >= s.warmup)
            samples.push_back(ctx.timer.to_us(t1 - t0));
    }
    return min_of_means(samples);
}

} // namespace ngx::patterns
