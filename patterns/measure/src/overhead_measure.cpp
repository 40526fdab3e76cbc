// The overhead measurement (see overhead_measure.hpp): the send overhead o_s
// and the receive overhead o_r per message size for the transport's send
// mode (for mpi: --mpi-mode), measured
// as in Al-Tawil and Moritz 1998, Figure 2 and section 3.1 ("Experimental Methodology").
//
// One repetition, P1 = the driver (rank i), P2 = its peer, four timers:
//
//   P1: Barrier; start timer11; Send to P2; stop timer11; [complete]
//   P2: Barrier; start timer21; Receive from P1; stop timer21; [complete]
//   P1: Barrier; wait delta; start timer12; Receive from P2; stop timer12; [complete]
//   P2: Barrier; start timer22; Send to P1; stop timer22; [complete]
//
// o_s = timer11: the send call alone. For local sends (standard, ready,
// buffered) that is the overhead; the synchronous send is non-local (it
// waits for the receiver's handshake, Al-Tawil and Moritz 1998 Figure 3).
// o_r = timer12: P1 waits delta after the barrier so that P2's message has
// arrived and the receive holds no idle time ("we delayed the receive").
// Non-blocking, o_r = timer21, the post of P2's receive right after the
// barrier, as the paper takes it (a post does not wait for the data);
// timer12 is recorded apart (timer12_us, timer12_min_us).
// delta must exceed how much later P2 may leave the barrier plus its send
// and the transfer. It is calibrated per size from the barrier itself
// (barrier_calibration.hpp): P2 sends right after the barrier, P1 times
// from its own barrier exit to the message's arrival; delta = the larger of
// 2 x the median of those times + 5 us and their p95 up to 1 ms (or --overhead-delay),
// checked on fresh arrivals (arrival_late_share: those later than delta).
// The paper's L estimate: timer21 - timer12 (P2's receive started at the
// barrier holds the wait for the first message; meaningful under Ssend,
// where it bounds a small message's latency; recorded for every mode),
// averaged over the two barrier roots.
// Barrier root: the paper repeats everything with the barrier's root moved
// from the sender to the receiver; here the repetitions alternate the root
// (rooted_barrier.hpp) and the per-root medians are recorded too.
//
// --overhead-call=nonblocking (NGX_CAP_NONBLOCKING): every timer covers
// the post alone (isend(), irecv()); the completion ("test_completion" in
// Figure 2) follows untimed on both sides the same way and is timed apart
// into o_s_wait_us / o_r_wait_us, so nothing is hidden.
//
// After every timed receive (and its wait) the pattern calls the module's
// prepare_recv (ABI 1.3) untimed: the work a receive leaves for the next
// one happens there, not inside the timer (mpi ready mode: the MPI_Irecv
// that re-posts the pre-posted receive). Its time is recorded apart
// (o_r_prepare_us), so nothing is hidden.
//
// The repetitions run on the shared passes loop (ngx/measure/passes.hpp): a
// size's -c is split into passes over all sizes, round-robin, so a burst of
// machine noise spreads over many sizes; a size's first pass also measures
// its half round trip and calibrates its delay; the barrier root keeps
// alternating across passes; the responder's timers of every pass reach the
// driver once, after the last pass. A size whose o_s or o_r median has a
// 95% interval wider than --max-rel-ci is measured again (bounded).
//
// Output per size: summary = timer11 samples (metric "send overhead o_s");
// columns o_s_us, o_r_us (medians), o_r_min_us, timer12_us, timer12_min_us,
// o_r_prepare_us (the untimed prepare_recv after timer12), timer21_us, timer22_us,
// L_us, per-root medians, delay_us, arrival_median_us, arrival_p90_us,
// arrival_p95_us, delay_from_p95 (1: the p95 set delta), arrival_late_share,
// half_rtt_us and
// half_rtt_min_us (PRTT(1,0,s)/2, median and minimum of 100: the measured
// end-to-end time T_s-r the protocol decomposition compares; it takes the
// minimum, the uncontended cost, since on shared cores the median of a round
// trip can hold a preemption).
#include <ngx/measure/overhead_measure.hpp>

#include <ngx/measure/passes.hpp>
#include <ngx/measure/prtt.hpp>
#include <ngx/measure/sweep.hpp>
#include <ngx/measure/barrier_calibration.hpp>

#include <ngx/sizes.hpp>
#include <ngx/statistics.hpp>

#include <cstring>
#include <functional>

namespace ngx::patterns {
namespace {

constexpr double max_delay_us = 1e6;
constexpr uint64_t rtt_samples = 100;
constexpr uint64_t rtt_warmup = 10;

// Samples of one side for one size, over all its passes.
struct SideSamples {
    std::vector<double> first, second;           // P1: timer11, timer12; P2: timer21, timer22
    std::vector<double> first_wait, second_wait; // completions
    std::vector<double> second_prepare;          // P1: prepare_recv after timer12 (not exchanged)
    std::vector<int> root;                       // barrier root of each repetition
};

class Measurement {
public:
    explicit Measurement(const OverheadSettings& settings)
            : nonblocking_(settings.nonblocking), delay_us_(settings.delay_us), roots_(settings.roots)
    {
    }
    Status run(PatternContext& ctx);

private:
    Status timed_call(PatternContext& ctx, const std::function<Status()>& blocking,
                      const std::function<Status(ngx_request&)>& post, Timers* t) const;
    Status send_timed(PatternContext& ctx, Buffer& buffer, uint64_t size, Timers* t) const;
    Status recv_timed(PatternContext& ctx, Buffer& buffer, uint64_t size, Timers* t) const;
    Status repetition(PatternContext& ctx, Buffer& buffer, uint64_t size, BarrierRoot root, uint64_t delay_ticks,
                      Timers* first, Timers* second);
    // What a size keeps from pass to pass.
    struct PerSize {
        std::vector<double> prtt;       // driver: PRTT(1,0,s), first pass
        BarrierCalibration calibration; // first pass (the delay: driver)
        SideSamples mine, peer;         // peer: the responder's (driver, after the last pass)
        uint64_t repetitions = 0;       // so far, warm-ups included: the barrier root alternates over passes
    };
    Status first_pass(PatternContext& ctx, Buffer& buffer, uint64_t size, PerSize& state);
    Result<Series> measure_slice(PatternContext& ctx, const PassSlice& slice, Buffer& buffer);
    Status exchange_responder_timers(PatternContext& ctx);
    SizeRecord record(PatternContext& ctx, uint64_t size, const PerSize& state) const;
    SizeRecord make_size_record(PatternContext& ctx, uint64_t size, const SideSamples& mine,
                                const SideSamples& peer) const;

    std::vector<PerSize> sizes_;

    bool nonblocking_;
    double delay_us_; // < 0: automatic
    RootChoice roots_;
};

// One timed call of Figure 2: the blocking call, or the non-blocking post
// timed and its wait() (test_completion) timed apart, the same on both sides.
Status Measurement::timed_call(PatternContext& ctx, const std::function<Status()>& blocking,
                               const std::function<Status(ngx_request&)>& post, Timers* t) const
{
    uint64_t start = ctx.timer.now();
    if (!nonblocking_) {
        Status status = blocking();
        t->post = ctx.timer.to_us(ctx.timer.now() - start);
        return status;
    }
    ngx_request request = 0;
    NGX_TRY(post(request));
    uint64_t posted = ctx.timer.now();
    Status status = ctx.transport.wait(request);
    t->post = ctx.timer.to_us(posted - start);
    t->complete = ctx.timer.to_us(ctx.timer.now() - posted);
    return status;
}

Status Measurement::send_timed(PatternContext& ctx, Buffer& buffer, uint64_t size, Timers* t) const
{
    return timed_call(
        ctx, [&] { return ctx.transport.send(buffer.data(), size); },
        [&](ngx_request& request) { return ctx.transport.isend(buffer.data(), size, request); }, t);
}

// The timed receive, then (untimed, timed apart) the module's preparation
// of the next receive.
Status Measurement::recv_timed(PatternContext& ctx, Buffer& buffer, uint64_t size, Timers* t) const
{
    NGX_TRY(timed_call(
        ctx, [&] { return ctx.transport.recv(buffer.data(), size); },
        [&](ngx_request& request) { return ctx.transport.irecv(buffer.data(), size, request); }, t));
    uint64_t start = ctx.timer.now();
    Status status = ctx.transport.prepare_recv();
    t->prepare = ctx.timer.to_us(ctx.timer.now() - start);
    return status;
}

// One repetition of Figure 2 on this side: P1 sends then receives after the
// delay, P2 receives then sends at once.
Status Measurement::repetition(PatternContext& ctx, Buffer& buffer, uint64_t size, BarrierRoot root,
                               uint64_t delay_ticks, Timers* first, Timers* second)
{
    bool driver = ctx.bootstrap.is_driver();
    NGX_TRY(rooted_barrier(ctx.bootstrap, root));
    NGX_TRY(driver ? send_timed(ctx, buffer, size, first) : recv_timed(ctx, buffer, size, first));
    NGX_TRY(rooted_barrier(ctx.bootstrap, root));
    if (!driver)
        return send_timed(ctx, buffer, size, second);
    ctx.timer.wait_until(ctx.timer.now() + delay_ticks); // wait delta
    return recv_timed(ctx, buffer, size, second);
}

double median_of(std::vector<double> values)
{
    return values.empty() ? 0.0 : median(std::move(values));
}

// The values of `samples` whose repetition used barrier root `root`.
std::vector<double> with_root(const std::vector<double>& samples, const std::vector<int>& roots, BarrierRoot root)
{
    std::vector<double> out;
    for (size_t i = 0; i < samples.size(); ++i)
        if (roots[i] == int(root))
            out.push_back(samples[i]);
    return out;
}

SizeRecord Measurement::make_size_record(PatternContext& ctx, uint64_t size, const SideSamples& mine,
                                         const SideSamples& peer) const
{
    // o_r: blocking, timer12, the receive delayed past the arrival ("The
    // results we provide for the receive overhead are determined by the
    // timer12"); non-blocking, timer21, the post of the receive on P2 ("the
    // non-blocking receive overhead ... The results are obtained with
    // timer21"), both section 3.1. timer12 is recorded in both.
    const std::vector<double>& receives = nonblocking_ ? peer.first : mine.second;
    Summary receive = summarize(receives), delayed = summarize(mine.second);
    SizeRecord record = make_record(ctx, size, mine.first);
    record.extra.emplace_back("o_s_us", record.summary.median);
    record.extra.emplace_back("o_r_us", receive.median);
    record.extra.emplace_back("o_r_min_us", receive.min);
    record.extra.emplace_back("timer12_us", delayed.median);
    record.extra.emplace_back("timer12_min_us", delayed.min);
    record.extra.emplace_back("timer21_us", median_of(peer.first));
    record.extra.emplace_back("timer22_us", median_of(peer.second));
    // The paper's L estimate, timer21 - timer12 (section 3.1), per root and
    // averaged over the roots: the responder leaves a driver-rooted barrier
    // late and a responder-rooted one early, so the mean cancels the skew to
    // first order (why the paper swaps the root).
    double latency_sum = 0;
    for (BarrierRoot root : roots_of(roots_))
        latency_sum += median_of(with_root(peer.first, mine.root, root)) - delayed.median;
    record.extra.emplace_back("L_us", latency_sum / double(roots_of(roots_).size()));
    for (BarrierRoot root : roots_of(roots_)) {
        std::string suffix = root == BarrierRoot::driver ? "_root_driver_us" : "_root_responder_us";
        record.extra.emplace_back("o_s" + suffix, median_of(with_root(mine.first, mine.root, root)));
        record.extra.emplace_back("o_r" + suffix, median_of(with_root(receives, mine.root, root)));
        record.extra.emplace_back("timer21" + suffix, median_of(with_root(peer.first, mine.root, root)));
    }
    record.extra.emplace_back("o_r_prepare_us", median_of(mine.second_prepare));
    if (nonblocking_) {
        record.extra.emplace_back("o_s_wait_us", median_of(mine.first_wait));
        record.extra.emplace_back("o_r_wait_us", median_of(mine.second_wait));
        record.extra.emplace_back("timer21_wait_us", median_of(peer.first_wait));
        record.extra.emplace_back("timer22_wait_us", median_of(peer.second_wait));
    }
    return record;
}

// The responder's timers of every size, one after the other: per size its
// repetition count, then timer21, timer22 and their completions.
Bytes pack(const std::vector<const SideSamples*>& sides)
{
    std::vector<double> all;
    for (const SideSamples* s : sides) {
        all.push_back(double(s->first.size()));
        for (const std::vector<double>* part : {&s->first, &s->second, &s->first_wait, &s->second_wait})
            all.insert(all.end(), part->begin(), part->end());
    }
    Bytes bytes(all.size() * sizeof(double));
    if (!all.empty())
        std::memcpy(bytes.data(), all.data(), bytes.size());
    return bytes;
}

Status unpack(const Bytes& bytes, const std::vector<SideSamples*>& sides)
{
    std::vector<double> all(bytes.size() / sizeof(double));
    if (!all.empty())
        std::memcpy(all.data(), bytes.data(), all.size() * sizeof(double));
    size_t at = 0;
    for (SideSamples* s : sides) {
        size_t count = at < all.size() ? size_t(all[at++]) : 0;
        if (at + 4 * count > all.size())
            return Status::runtime("overhead: the responder's timers came as " + std::to_string(bytes.size()) +
                                   " bytes, too few for the repetitions they announce");
        for (std::vector<double>* part : {&s->first, &s->second, &s->first_wait, &s->second_wait}) {
            part->assign(all.begin() + long(at), all.begin() + long(at + count));
            at += count;
        }
    }
    return Status::ok();
}

// A size's first pass: the half round trip (driver) and the delay, calibrated from the barrier.
Status Measurement::first_pass(PatternContext& ctx, Buffer& buffer, uint64_t size, PerSize& state)
{
    PrttSpec rtt{size, 1, 0.0, rtt_samples, rtt_warmup};
    Result<std::vector<double>> prtt = run_prtt(ctx, buffer, rtt);
    if (!prtt)
        return prtt.status().with_context("half round trip");
    state.prtt = std::move(*prtt);
    ctx.sink.count_messages(prtt_message_count(rtt));
    if (delay_us_ >= 0) {
        state.calibration.delay_us = delay_us_;
        return Status::ok();
    }
    CalibrationCalls calls{[&](Timers* t) { return send_timed(ctx, buffer, size, t); },
                           [&](Timers* t) { return recv_timed(ctx, buffer, size, t); }};
    Result<BarrierCalibration> measured = calibrate_delay(ctx, roots_, calls);
    if (!measured)
        return measured.status().with_context(where(size, 0) + "calibrating the delay from the barrier");
    state.calibration = *measured;
    ctx.sink.count_messages(measured->messages);
    return Status::ok();
}

// One pass of one size: Figure 2's repetitions; the driver's series are
// timer11 (o_s) and timer12 (o_r), the responder keeps its timers for the end.
Result<Series> Measurement::measure_slice(PatternContext& ctx, const PassSlice& slice, Buffer& buffer)
{
    PerSize& state = sizes_[slice.index];
    if (slice.first)
        NGX_TRY(first_pass(ctx, buffer, slice.size, state));
    uint64_t delay_ticks = ctx.timer.us_to_ticks(state.calibration.delay_us);
    uint64_t total = slice.warmup + slice.samples;
    std::vector<BarrierRoot> roots = roots_of(roots_);
    SideSamples& mine = state.mine;
    Series series(2);
    for (uint64_t rep = 0; rep < total; ++rep) {
        if (ctx.interrupted())
            return Status::interrupted(where(slice.size, rep) + "interrupted");
        mark_repetition(ctx.settings.progress, rep);
        BarrierRoot root = roots[state.repetitions++ % roots.size()];
        Timers first, second;
        if (Status status = repetition(ctx, buffer, slice.size, root, delay_ticks, &first, &second); !status)
            return status.with_context(where(slice.size, rep));
        if (rep < slice.warmup)
            continue;
        mine.first.push_back(first.post);
        mine.second.push_back(second.post);
        mine.first_wait.push_back(first.complete);
        mine.second_wait.push_back(second.complete);
        mine.second_prepare.push_back(second.prepare);
        mine.root.push_back(int(root));
        series[0].push_back(first.post);
        series[1].push_back(second.post);
    }
    ctx.sink.count_messages(2 * total);
    return ctx.bootstrap.is_driver() ? series : Series{};
}

// After the last pass: the responder's timers of every size reach the driver.
Status Measurement::exchange_responder_timers(PatternContext& ctx)
{
    mark_step(ctx.settings.progress, "receiving the responder's timers", 0);
    std::vector<const SideSamples*> mine;
    std::vector<SideSamples*> peers;
    for (PerSize& state : sizes_)
        mine.push_back(&state.mine), peers.push_back(&state.peer);
    Bytes theirs;
    NGX_TRY(ctx.bootstrap.exchange(ctx.bootstrap.is_driver() ? Bytes() : pack(mine), theirs,
                                   "overhead: the responder's timers"));
    return ctx.bootstrap.is_driver() ? unpack(theirs, peers) : Status::ok();
}

SizeRecord Measurement::record(PatternContext& ctx, uint64_t size, const PerSize& state) const
{
    SizeRecord record = make_size_record(ctx, size, state.mine, state.peer);
    record.extra.emplace_back("delay_us", state.calibration.delay_us);
    record.extra.emplace_back("arrival_median_us", state.calibration.arrival_median_us);
    record.extra.emplace_back("arrival_p90_us", state.calibration.arrival_p90_us);
    record.extra.emplace_back("arrival_p95_us", state.calibration.arrival_p95_us);
    record.extra.emplace_back("delay_from_p95", state.calibration.delay_from_p95 ? 1.0 : 0.0);
    record.extra.emplace_back("arrival_late_share", state.calibration.late_share);
    Summary rtt_summary = summarize(state.prtt);
    record.extra.emplace_back("half_rtt_us", rtt_summary.median / 2);
    record.extra.emplace_back("half_rtt_min_us", rtt_summary.min / 2);
    return record;
}

Status Measurement::run(PatternContext& ctx)
{
    if (nonblocking_ && !ctx.transport.has(NGX_CAP_NONBLOCKING))
        return Status::usage("--overhead-call nonblocking: module " + ctx.transport.module().name() +
                             " has no non-blocking operations");
    sizes_.assign(ctx.settings.sizes.size(), PerSize{});
    PassedSweep sweep;
    sweep.measure = [&](const PassSlice& slice, Buffer& buffer) { return measure_slice(ctx, slice, buffer); };
    sweep.finish = [&] { return exchange_responder_timers(ctx); };
    sweep.record = [&](const PassSlice& last, Series&) -> Result<SizeRecord> {
        return record(ctx, last.size, sizes_[last.index]);
    };
    return sweep_passes(ctx, sweep);
}

} // namespace

Result<OverheadSettings> read_overhead_settings(opt::Reader& read, const OverheadRows& rows)
{
    OverheadSettings settings;
    settings.nonblocking = read(rows.call) == "nonblocking";
    if (rows.with_root) {
        std::string root = read(rows.root);
        settings.roots = root == "driver"      ? RootChoice::driver
                         : root == "responder" ? RootChoice::responder
                                               : RootChoice::both;
    }
    if (!read.ok())
        return Status::usage(read.error());
    const std::string delay = read(rows.delay);
    if (!read.ok())
        return Status::usage(read.error());
    if (delay == "auto")
        return settings;
    opt::Parsed<double> us = opt::number(rows.delay.long_name(), delay, 0, max_delay_us);
    if (!us)
        return Status::usage(us.error + " (or auto)");
    settings.delay_us = *us;
    return settings;
}

Json overhead_settings_json(const OverheadSettings& settings)
{
    return {{"call", settings.nonblocking ? "nonblocking" : "blocking"},
            {"delay_us", settings.delay_us < 0 ? Json("auto") : Json(settings.delay_us)},
            {"barrier_root", root_name(settings.roots)}};
}

Status measure_overhead(PatternContext& ctx, const OverheadSettings& settings)
{
    return Measurement(settings).run(ctx);
}

} // namespace ngx::patterns
