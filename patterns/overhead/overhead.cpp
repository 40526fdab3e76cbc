// Pattern "overhead": the send overhead o_s and the receive overhead o_r per
// message size for the transport's send mode (for mpi: --mpi-mode), measured
// as in paper 003, Figure 2 and section 3.1 ("Experimental Methodology").
//
// One repetition, P1 = the driver (rank i), P2 = its peer; all timing on P1:
//
//   P1: Barrier; start timer11; Send to P2; stop timer11     -> o_s sample
//   P2: Barrier; Receive from P1                             (posted at once)
//   P1: Barrier; wait delta; start timer12; Receive from P2; stop timer12 -> o_r sample
//   P2: Barrier; Send to P1
//
// o_s (timer11) is the time the send call holds the CPU. For local sends
// (standard, ready, buffered) that is the pure overhead; the synchronous send
// is non-local: it waits for the matching receive, which P2 posts right
// after the barrier, so its o_s includes the handshake (paper 003 Figure 3:
// "the network latency is part of the blocking send overhead").
// o_r (timer12): P1 waits delta after the barrier, long enough for P2's
// message to have arrived, so the receive costs only its own work and no
// waiting ("we delayed the receive to make sure that the idle time
// (synchronization) delay is not included in the receive overhead").
// delta is --overhead-delay microseconds, or automatically 2 x the measured
// round trip of this size + 5 us (a short ping-pong before the repetitions),
// which covers P2 leaving the barrier up to one latency later than P1 plus
// its send and the transfer (eq. (2) of paper 003: T_{s-r} = o_s + L + o_r).
//
// --overhead-call=nonblocking (transports with NGX_CAP_NONBLOCKING) times
// isend() alone for o_s (the post; wait() follows untimed, "test_completion"
// in Figure 2), and irecv() + wait() for o_r (the message is already there).
//
// Not done: repeating with the barrier's root moved to the receiver (the
// paper's check against barrier skew); ngx's barriers have no root.
//
// Measured in passes (patterns/common/passes.hpp): delta is chosen in a
// size's first pass and kept for its later ones.
//
// Output per size: the o_s samples as the summary (metric "send overhead
// o_s"), and extra columns o_s_us (median), o_r_us (median), o_r_min_us,
// delay_us. A per-mode table (paper 003 Table 3): one run per mode, e.g.
// `for m in standard synchronous ...; do mpirun -np 2 ngx -m mpi --mpi-mode $m -x overhead; done`.
#include <ngx/pattern_plugin.hpp>

#include "../common/passes.hpp"
#include "../common/prtt.hpp"
#include "../common/sweep.hpp"

#include <ngx/sizes.hpp>
#include <ngx/statistics.hpp>

namespace ngx::patterns {
namespace {

constexpr double max_delay_us = 1e6;
constexpr uint64_t calibration_samples = 50;
constexpr uint64_t calibration_warmup = 10;
constexpr double auto_delay_margin_us = 5.0;

struct Samples {
    std::vector<uint64_t> send_ticks;
    std::vector<uint64_t> recv_ticks;
};

class Overhead final : public Pattern {
public:
    Status configure(const OptionValues& values) override;
    Json options_json() const override
    {
        return {{"call", nonblocking_ ? "nonblocking" : "blocking"},
                {"delay_us", delay_us_ < 0 ? Json("auto") : Json(delay_us_)}};
    }
    Status run(PatternContext& ctx) override;

private:
    Result<double> choose_delay(PatternContext& ctx, Buffer& buffer, uint64_t size);
    Status send_timed(PatternContext& ctx, Buffer& buffer, uint64_t size, uint64_t* ticks);
    Status recv_timed(PatternContext& ctx, Buffer& buffer, uint64_t size, uint64_t* ticks);
    Status drive_once(PatternContext& ctx, Buffer& buffer, uint64_t size, uint64_t delay_ticks, uint64_t* o_s,
                      uint64_t* o_r);
    Status answer_once(PatternContext& ctx, Buffer& buffer, uint64_t size);
    Result<Series> measure(PatternContext& ctx, Buffer& buffer, const PassSlice& slice);
    SizeRecord record(PatternContext& ctx, const PassSlice& last, Series& pooled) const;

    bool nonblocking_ = false;
    double delay_us_ = -1;               // < 0: automatic
    std::vector<double> size_delays_us_; // delta per size, from its first pass
};

Status Overhead::configure(const OptionValues& values)
{
    opt::OptionReader read(values);
    nonblocking_ = read.choice("overhead-call", {"blocking", "nonblocking"}) == "nonblocking";
    if (!read.ok())
        return Status::usage(read.error());
    if (read.text("overhead-delay") == "auto")
        return Status::ok();
    delay_us_ = read.number("overhead-delay", 0, max_delay_us);
    return read.ok() ? Status::ok() : Status::usage(read.error() + " (or auto)");
}

// delta: the option, or 2 x the median round trip of this size + a margin;
// the driver decides (only it waits).
Result<double> Overhead::choose_delay(PatternContext& ctx, Buffer& buffer, uint64_t size)
{
    if (delay_us_ >= 0)
        return delay_us_;
    PrttSpec spec{size, 1, 0.0, calibration_samples, calibration_warmup};
    Result<std::vector<double>> rtt = run_prtt(ctx, buffer, spec);
    if (!rtt)
        return rtt.status().with_context("calibrating the delay");
    ctx.sink.count_messages(prtt_message_count(spec));
    if (!ctx.bootstrap.is_driver())
        return 0.0;
    return 2.0 * summarize(std::move(*rtt)).median + auto_delay_margin_us;
}

// timer11: the send call alone (blocking send, or isend() without its wait).
Status Overhead::send_timed(PatternContext& ctx, Buffer& buffer, uint64_t size, uint64_t* ticks)
{
    if (!nonblocking_) {
        uint64_t start = ctx.timer.now();
        Status status = ctx.transport.send(buffer.data(), size);
        *ticks = ctx.timer.now() - start;
        return status;
    }
    ngx_request request = 0;
    uint64_t start = ctx.timer.now();
    Status status = ctx.transport.isend(buffer.data(), size, request);
    *ticks = ctx.timer.now() - start;
    return status.is_ok() ? ctx.transport.wait(request) : status; // test_completion, untimed
}

// timer12: the receive after the delay (irecv() + wait() when non-blocking).
Status Overhead::recv_timed(PatternContext& ctx, Buffer& buffer, uint64_t size, uint64_t* ticks)
{
    uint64_t start = ctx.timer.now();
    Status status;
    if (!nonblocking_) {
        status = ctx.transport.recv(buffer.data(), size);
    } else {
        ngx_request request = 0;
        status = ctx.transport.irecv(buffer.data(), size, request);
        if (status.is_ok())
            status = ctx.transport.wait(request);
    }
    *ticks = ctx.timer.now() - start;
    return status;
}

// P1's side of one repetition (Figure 2, Processor 1).
Status Overhead::drive_once(PatternContext& ctx, Buffer& buffer, uint64_t size, uint64_t delay_ticks, uint64_t* o_s,
                            uint64_t* o_r)
{
    NGX_TRY(ctx.bootstrap.barrier());
    NGX_TRY(send_timed(ctx, buffer, size, o_s));
    NGX_TRY(ctx.bootstrap.barrier());
    uint64_t until = ctx.timer.now() + delay_ticks; // wait delta
    while (ctx.timer.now() < until) {
    }
    return recv_timed(ctx, buffer, size, o_r);
}

// P2's side (Figure 2, Processor 2): receive at once, send at once.
Status Overhead::answer_once(PatternContext& ctx, Buffer& buffer, uint64_t size)
{
    uint64_t ignored = 0;
    NGX_TRY(ctx.bootstrap.barrier());
    NGX_TRY(recv_timed(ctx, buffer, size, &ignored));
    NGX_TRY(ctx.bootstrap.barrier());
    return send_timed(ctx, buffer, size, &ignored);
}

Result<Series> Overhead::measure(PatternContext& ctx, Buffer& buffer, const PassSlice& slice)
{
    const uint64_t size = slice.size;
    if (slice.first) {
        Result<double> delay_us = choose_delay(ctx, buffer, size);
        if (!delay_us)
            return delay_us.status();
        size_delays_us_.resize(ctx.settings.sizes.size());
        size_delays_us_[slice.index] = *delay_us;
    }
    uint64_t delay_ticks = ctx.timer.us_to_ticks(size_delays_us_[slice.index]);
    uint64_t total = slice.warmup + slice.samples;
    Samples samples{std::vector<uint64_t>(slice.samples), std::vector<uint64_t>(slice.samples)};
    for (uint64_t rep = 0; rep < total; ++rep) {
        if (ctx.interrupted())
            return Status::interrupted(where(size, rep) + ": interrupted");
        mark_repetition(ctx.settings.progress, rep);
        uint64_t o_s = 0;
        uint64_t o_r = 0;
        Status status = ctx.bootstrap.is_driver() ? drive_once(ctx, buffer, size, delay_ticks, &o_s, &o_r)
                                                  : answer_once(ctx, buffer, size);
        if (!status)
            return status.with_context(where(size, rep));
        if (rep >= slice.warmup) {
            samples.send_ticks[rep - slice.warmup] = o_s;
            samples.recv_ticks[rep - slice.warmup] = o_r;
        }
    }
    ctx.sink.count_messages(2 * total);
    if (!ctx.bootstrap.is_driver())
        return Series{};
    std::vector<double> o_s_us, o_r_us;
    for (size_t i = 0; i < samples.send_ticks.size(); ++i) {
        o_s_us.push_back(ctx.timer.to_us(samples.send_ticks[i]));
        o_r_us.push_back(ctx.timer.to_us(samples.recv_ticks[i]));
    }
    return Series{std::move(o_s_us), std::move(o_r_us)};
}

// pooled: o_s, o_r over all passes of the size.
SizeRecord Overhead::record(PatternContext& ctx, const PassSlice& last, Series& pooled) const
{
    Summary receive = summarize(pooled[1]);
    SizeRecord record = make_record(ctx, last.size, std::move(pooled[0]));
    record.extra.emplace_back("o_s_us", record.summary.median);
    record.extra.emplace_back("o_r_us", receive.median);
    record.extra.emplace_back("o_r_min_us", receive.min);
    record.extra.emplace_back("delay_us", size_delays_us_[last.index]);
    return record;
}

Status Overhead::run(PatternContext& ctx)
{
    if (nonblocking_ && !ctx.transport.has(NGX_CAP_NONBLOCKING))
        return Status::usage("--overhead-call nonblocking: module " + ctx.transport.module().name() +
                             " has no non-blocking operations");
    PassedSweep sweep;
    sweep.measure = [&](const PassSlice& slice, Buffer& buffer) { return measure(ctx, buffer, slice); };
    sweep.record = [&](const PassSlice& last, Series& pooled) -> Result<SizeRecord> {
        return record(ctx, last, pooled);
    };
    return sweep_passes(ctx, sweep);
}

} // namespace

PatternInfo overhead_pattern()
{
    PatternInfo info;
    info.name = "overhead";
    info.description = "send overhead o_s and receive overhead o_r per size, barrier + delay (paper 003)";
    info.metric = "send overhead o_s";
    info.default_sizes = "1-64Ki";
    info.options = {
        {"overhead-call", "blocking", "blocking: send()/recv(); nonblocking: isend()/irecv() + wait()"},
        {"overhead-delay", "auto", "wait before the timed receive, microseconds; auto: 2 x round trip + 5"}};
    info.create = [] { return std::make_unique<Overhead>(); };
    return info;
}

} // namespace ngx::patterns

NGX_PATTERN_EXPORT(ngx::patterns::overhead_pattern)
