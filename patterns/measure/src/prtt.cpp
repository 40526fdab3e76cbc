// PRTT(n, d, s) measurement, Hoefler et al. 2007 Listing 1 (see prtt.hpp). The timed
// loop holds only the module calls, the busy-wait and two timer reads; ticks
// become microseconds after the loop.
//
// --verify instantiates the loops with Verify = true: payloads are filled
// before the timer starts and checked after it stopped (loops without it are
// the plain ones). The responder answers from a second buffer filled before
// its receive and checks what it received after its answer is sent, so its
// checking overlaps the driver's instead of lengthening the round trip.
//
// Losses (modules without NGX_CAP_RELIABLE, see Transport::lost_message()):
// the repetition is abandoned and both sides meet at a resync point over the
// bootstrap, where the driver's count of completed repetitions is the truth;
// then Transport::resync() and the repetition is retried while the loss
// budget lasts (--max-loss of the size's repetitions so far and in this series, and --retries when
// given; see budget_exceeded()). run_prtt() adds a last meeting after the series,
// for a pong lost at the very end (the responder has already finished).
#include <ngx/measure/prtt.hpp>

#include <algorithm>

#include <ngx/measure/verify.hpp>

#include <ngx/sizes.hpp>

#include <cinttypes>
#include <cstdio>

namespace ngx::patterns {
namespace {

bool lossy(const PatternContext& ctx)
{
    return !ctx.transport.has(NGX_CAP_RELIABLE);
}

// What the two sides tell each other at a resync point.
enum class Meet { resync, done, abort };

struct Meeting {
    Meet kind = Meet::done;
    uint64_t completed = 0; // repetitions the driver completed
    uint64_t lost = 0;      // repetitions of the size lost so far
};

const char* meet_name(Meet kind)
{
    switch (kind) {
    case Meet::resync:
        return "resync";
    case Meet::abort:
        return "abort";
    case Meet::done:
        break;
    }
    return "done";
}

Bytes encode(const Meeting& m)
{
    char text[96];
    std::snprintf(text, sizeof text, "ngx-prtt %s %" PRIu64 " %" PRIu64, meet_name(m.kind), m.completed, m.lost);
    return to_bytes(text);
}

Result<Meeting> decode(const Bytes& blob)
{
    char kind[16] = {};
    Meeting m;
    std::string text = to_string(blob);
    if (std::sscanf(text.c_str(), "ngx-prtt %15s %" SCNu64 " %" SCNu64, kind, &m.completed, &m.lost) != 3)
        return Status::runtime("resync: the peer sent '" + text.substr(0, 60) + "'");
    std::string name = kind;
    if (name == "resync")
        m.kind = Meet::resync;
    else if (name == "abort")
        m.kind = Meet::abort;
    else if (name != "done")
        return Status::runtime("resync: the peer sent '" + text.substr(0, 60) + "'");
    return m;
}

// Both sides swap their state; returns the peer's.
Result<Meeting> meet(PatternContext& ctx, const Meeting& mine)
{
    mark_step(ctx.settings.progress, mine.kind == Meet::done ? "meeting the peer after the series" : "resync");
    Bytes theirs;
    NGX_TRY(ctx.bootstrap.exchange(encode(mine), theirs, "meeting the peer to resync after a loss"));
    return decode(theirs);
}

// The loss budget of a series that needs `total` good repetitions and lost
// `lost`: past --retries when given, or when even finishing now would leave
// a loss rate lost / (lost + total) above --max-loss.
bool budget_exceeded(const RunSettings& settings, uint64_t lost, uint64_t total)
{
    if (lost > settings.retries)
        return true;
    return double(lost) > settings.max_loss * double(lost + total);
}

Status too_many_losses(const PatternContext& ctx, uint64_t size, uint64_t lost, uint64_t total)
{
    const RunSettings& settings = ctx.settings;
    std::string module = " (module " + ctx.transport.module().name() + " on a lossy path; ";
    if (lost > settings.retries)
        return Status::runtime("size " + format_bytes(size) + ": " + std::to_string(lost) +
                               " repetitions lost a message, more than --retries " + std::to_string(settings.retries) +
                               " allows" + module + "raise --retries)");
    char rate[64];
    std::snprintf(rate, sizeof rate, "%.1f%% of %" PRIu64, 100.0 * double(lost) / double(lost + total), lost + total);
    char budget[32];
    std::snprintf(budget, sizeof budget, "%g%%", settings.max_loss * 100);
    return Status::runtime("size " + format_bytes(size) + ": " + std::to_string(lost) +
                           " repetitions lost a message (" + rate + " attempted), more than --max-loss " + budget +
                           " allows" + module + "the link is unusable at this size; raise --max-loss to insist)");
}

// The driver after a lost message in repetition `rep`: counts it, meets the
// responder and resynchronises the module, or gives up past the loss budget.
// The budget holds for the size as a whole (ctx.losses: all its series so
// far, over all passes when it is measured in passes; `good_before` of its
// repetitions were good before this series), so a pass of a few hundred
// repetitions is not judged alone.
Status driver_after_loss(PatternContext& ctx, const PrttSpec& spec, uint64_t rep, uint64_t good_before,
                         const Status& why)
{
    ++ctx.losses.lost;
    ++ctx.losses.attempted;
    uint64_t lost = ctx.losses.lost;
    uint64_t total = good_before + spec.warmup + spec.samples;
    bool give_up = budget_exceeded(ctx.settings, lost, total);
    Result<Meeting> peer = meet(ctx, {give_up ? Meet::abort : Meet::resync, rep, lost});
    if (give_up)
        return too_many_losses(ctx, spec.size, lost, total)
            .with_context(where(spec.size, rep) + " (" + why.message() + ")");
    if (!peer)
        return peer.status().with_context(where(spec.size, rep) + " (after: " + why.message() + ")");
    return ctx.transport.resync(ctx.bootstrap).with_context(where(spec.size, rep));
}

// The responder at a meeting (after its own loss, or at the end of the
// series): adopts the driver's count and resynchronises, or ends the series.
// Returns true when the series goes on.
Result<bool> responder_meets(PatternContext& ctx, const PrttSpec& spec, uint64_t& rep, Meet mine)
{
    Result<Meeting> driver = meet(ctx, {mine, rep, 0});
    if (!driver)
        return driver.status().with_context(where(spec.size, rep));
    if (driver->kind == Meet::abort)
        return Status::runtime(where(spec.size, driver->completed) + ": the driver gave up after " +
                               std::to_string(driver->lost) + " lost messages (--max-loss / --retries)");
    if (driver->kind == Meet::done) {
        if (mine == Meet::resync)
            return Status::runtime(where(spec.size, rep) + ": the driver finished while this side waited");
        return false;
    }
    rep = driver->completed;
    NGX_TRY(ctx.transport.resync(ctx.bootstrap).with_context(where(spec.size, rep)));
    return true;
}

// The responder after a failed module call in repetition `rep` (`failed`, from
// Transport::failure): a lost message leads to a resync meeting (`rep` becomes
// the driver's count and the series goes on); any other failure ends the series.
Status responder_after_failure(PatternContext& ctx, const PrttSpec& spec, uint64_t& rep, const Status& failed)
{
    if (!ctx.transport.lost_message())
        return failed.with_context(where(spec.size, rep));
    Result<bool> goes_on = responder_meets(ctx, spec, rep, Meet::resync);
    return goes_on ? Status::ok() : goes_on.status();
}

// The responder's whole series: `answer(rep)` runs it from `rep` to the end;
// for a lossy module a last meeting follows (a last answer may have been
// lost: then the series resumes where the driver stands).
template <typename Answer>
Status respond_until_done(PatternContext& ctx, const PrttSpec& spec, Answer answer)
{
    uint64_t rep = 0;
    for (bool goes_on = true; goes_on;) {
        NGX_TRY(answer(rep));
        if (!lossy(ctx))
            break;
        NGX_ASSIGN_OR_RETURN(bool more, responder_meets(ctx, spec, rep, Meet::done));
        goes_on = more;
    }
    return Status::ok();
}

// Busy-waits `delay` ticks; returns the ticks from its first to its last
// timer read (at least `delay`: the loop overshoots by up to one read).
[[gnu::noinline]] uint64_t wait_ticks(const Timer& timer, uint64_t delay)
{
    uint64_t begin = timer.now();
    return timer.wait_until(begin + delay) - begin;
}

// What one wait(d) costs beyond the span its own reads see, in ticks: the
// read before the first sample and after the last, the loop's mispredicted
// exit, the call. Timed over waits of the same d back to back (median of
// rounds, as the PRTT samples are medians): on a KVM guest this cost grows
// with d (21 ns at 0.5 us, 31-34 ns at 11 us), so a short stand-in would
// leave the difference in o.
double wait_cost_beyond_span(const Timer& timer, uint64_t delay)
{
    constexpr int rounds = 5, waits = 8;
    double per_round[rounds];
    for (double& cost : per_round) {
        uint64_t spans = 0;
        uint64_t begin = timer.now();
        for (int i = 0; i < waits; ++i)
            spans += wait_ticks(timer, delay);
        uint64_t end = timer.now();
        cost = (double(end - begin) - double(spans)) / waits;
    }
    std::nth_element(per_round, per_round + rounds / 2, per_round + rounds);
    return per_round[rounds / 2];
}

// Whether the series is a burst without extras: PRTT(n, 0, s) (n = 1: the
// ping-pong), the series a batch of repetitions can time at once.
bool plain_burst(const PrttSpec& spec)
{
    return spec.delay_us == 0 && spec.compute_us == 0 && spec.delay_spent_us == nullptr;
}

// PRTT(n, 0, s) in batches of spec.batch repetitions (1: every repetition
// timed): nothing between the timer reads but the module's sends and recv
// and per batch only the cancel flag, the progress mark and one
// stored sample outside them. `Burst` false is the ping-pong (n = 1, one
// send). A failed call or a loss abandons the whole batch; `rep` counts
// repetitions, so a resync meets the responder at the batch's first one.
// Never inlined, so that a profile (bench/ladder/run.sh) can tell the
// loop's own instructions.
template <bool Verify, bool Burst>
[[gnu::noinline]] Result<std::vector<double>> batched_loop(PatternContext& ctx, Buffer& buffer, const PrttSpec& spec)
{
    Transport& transport = ctx.transport;
    const Timer& timer = ctx.timer;
    uint8_t* data = buffer.data();
    const uint64_t batch = spec.batch, size = spec.size, messages = spec.messages;
    const uint64_t total = spec.warmup + spec.samples;
    std::vector<uint64_t> ticks(spec.samples);
    uint64_t good_before = ctx.losses.attempted - ctx.losses.lost;
    mark_step(ctx.settings.progress, "ping-pong series (driver: send, then recv the answer)");
    for (uint64_t sample = 0; sample < total;) {
        if (ctx.interrupted())
            return Status::interrupted(where(size, sample * batch) + ": interrupted");
        mark_repetition(ctx.settings.progress, sample * batch);
        const char* operation = "send";
        ngx_status code = NGX_OK;
        uint64_t rep = sample * batch;
        uint64_t start = timer.now();
        for (uint64_t end = rep + batch; rep < end; ++rep) {
            if constexpr (Verify)
                fill_payload(data, size, rep, Side::driver);
            operation = "send";
            if ((code = transport.send_code(data, size)) != NGX_OK)
                break;
            if constexpr (Burst) {
                for (uint64_t i = 1; i < messages && code == NGX_OK; ++i)
                    code = transport.send_code(data, size);
                if (code != NGX_OK)
                    break;
            }
            operation = "recv";
            if ((code = transport.recv_code(data, size)) != NGX_OK)
                break;
            if constexpr (Verify)
                if (Status checked = check_payload(ctx, data, size, rep, Side::responder); !checked)
                    return checked;
        }
        uint64_t stop = timer.now();
        if (code != NGX_OK) [[unlikely]] {
            Status status = transport.failure(operation, code);
            if (!transport.lost_message())
                return status.with_context(where(size, rep));
            NGX_TRY(driver_after_loss(ctx, spec, sample * batch, good_before, status));
            continue; // the same batch again
        }
        if (sample >= spec.warmup)
            ticks[sample - spec.warmup] = stop - start;
        ++sample;
    }
    ctx.losses.attempted += total; // batches: a loss abandons one
    std::vector<double> prtt_us(spec.samples);
    for (size_t i = 0; i < ticks.size(); ++i)
        prtt_us[i] = timer.to_us(ticks[i]) / double(batch);
    return prtt_us;
}

template <bool Verify>
Result<std::vector<double>> driver_loop(PatternContext& ctx, Buffer& buffer, const PrttSpec& spec)
{
    Transport& transport = ctx.transport;
    const Timer& timer = ctx.timer;
    uint8_t* data = buffer.data();
    uint64_t total = spec.warmup + spec.samples;
    uint64_t delay_ticks = timer.us_to_ticks(spec.delay_us);
    uint64_t compute_ticks = timer.us_to_ticks(spec.compute_us);
    std::vector<uint64_t> ticks(spec.samples);
    uint64_t good_before = ctx.losses.attempted - ctx.losses.lost; // of this size, before this series
    uint64_t waited = 0;                                           // ticks spent in wait(d) in this repetition
    std::vector<uint64_t> waits(spec.samples);                     // per kept repetition
    mark_step(ctx.settings.progress, "PRTT series (driver: send, then recv the answer)");
    for (uint64_t rep = 0; rep < total;) {
        if (ctx.interrupted())
            return Status::interrupted(where(spec.size, rep) + ": interrupted");
        mark_repetition(ctx.settings.progress, rep);
        if constexpr (Verify)
            fill_payload(data, spec.size, rep, Side::driver);
        const char* operation = "send";
        uint64_t start = timer.now();
        ngx_status code = transport.send_code(data, spec.size);
        for (uint64_t i = 1; i < spec.messages && code == NGX_OK; ++i) {
            if (delay_ticks != 0) // wait(d), Listing 1 line 15; d = 0 reads no timer
                waited += wait_ticks(timer, delay_ticks);
            code = transport.send_code(data, spec.size);
        }
        if (compute_ticks != 0) // compute(w), Ino et al. 2001 Figure 3
            timer.wait_until(timer.now() + compute_ticks);
        if (code == NGX_OK) {
            operation = "recv";
            code = transport.recv_code(data, spec.size);
        }
        uint64_t end = timer.now();
        if (code != NGX_OK) [[unlikely]] {
            Status status = transport.failure(operation, code);
            if (!transport.lost_message())
                return status.with_context(where(spec.size, rep));
            NGX_TRY(driver_after_loss(ctx, spec, rep, good_before, status));
            continue; // the same repetition again
        }
        if constexpr (Verify)
            NGX_TRY(check_payload(ctx, data, spec.size, rep, Side::responder));
        if (rep >= spec.warmup) {
            ticks[rep - spec.warmup] = end - start;
            waits[rep - spec.warmup] = waited;
        }
        waited = 0;
        ++rep;
    }
    ctx.losses.attempted += total;
    if (spec.delay_spent_us != nullptr && spec.messages > 1 && delay_ticks != 0 && !waits.empty()) {
        // Per wait, in the median repetition (a preempted one must not count):
        // the ticks between its first and last read, plus what the loop costs
        // around them (no cost of wait(d) may enter o).
        std::nth_element(waits.begin(), waits.begin() + waits.size() / 2, waits.end());
        double per_wait = double(waits[waits.size() / 2]) / double(spec.messages - 1);
        *spec.delay_spent_us = (per_wait + wait_cost_beyond_span(timer, delay_ticks)) / timer.info().ticks_per_us;
    }
    std::vector<double> prtt_us(spec.samples);
    for (size_t i = 0; i < ticks.size(); ++i)
        prtt_us[i] = timer.to_us(ticks[i]);
    return prtt_us;
}

// The responder from repetition `rep` to the end, or to a failure.
template <bool Verify>
[[gnu::noinline]] Status responder_loop(PatternContext& ctx, Buffer& buffer, Buffer* reply, const PrttSpec& spec,
                                        uint64_t& rep)
{
    Transport& transport = ctx.transport;
    uint8_t* data = buffer.data();
    uint8_t* answer = Verify ? reply->data() : data;
    uint64_t total = prtt_repetitions(spec);
    mark_step(ctx.settings.progress, "PRTT series (responder: recv, then send the answer)");
    while (rep < total) {
        if (ctx.interrupted())
            return Status::interrupted(where(spec.size, rep) + ": interrupted");
        mark_repetition(ctx.settings.progress, rep);
        if constexpr (Verify)
            fill_payload(answer, spec.size, rep, Side::responder);
        const char* operation = "recv";
        ngx_status code = NGX_OK;
        for (uint64_t i = 0; i < spec.messages && code == NGX_OK; ++i)
            code = transport.recv_code(data, spec.size);
        if (code == NGX_OK) {
            operation = "send";
            code = transport.send_code(answer, spec.size);
        }
        if (code != NGX_OK) [[unlikely]] {
            NGX_TRY(responder_after_failure(ctx, spec, rep, transport.failure(operation, code)));
            continue;
        }
        if constexpr (Verify) // the last of the n messages (all n carry the same payload)
            NGX_TRY(check_payload(ctx, data, spec.size, rep, Side::driver));
        ++rep;
    }
    return Status::ok();
}

Status answer_from(PatternContext& ctx, Buffer& buffer, const PrttSpec& spec, uint64_t& rep)
{
    if (!ctx.settings.verify)
        return responder_loop<false>(ctx, buffer, nullptr, spec, rep);
    NGX_ASSIGN_OR_RETURN(Buffer reply, ctx.transport.alloc(size_t(spec.size)));
    return responder_loop<true>(ctx, buffer, &reply, spec, rep);
}

} // namespace

double timer_read_cost_us(const Timer& timer)
{
    constexpr int batches = 15, reads = 64;
    double per_batch[batches];
    for (double& cost : per_batch) {
        uint64_t first = timer.now(), last = first;
        for (int i = 0; i < reads; ++i)
            last = timer.now();
        cost = timer.to_us(last - first) / reads;
    }
    std::nth_element(per_batch, per_batch + batches / 2, per_batch + batches);
    return per_batch[batches / 2];
}

std::string where(uint64_t size, uint64_t repetition)
{
    return "size " + format_bytes(size) + ", repetition " + std::to_string(repetition);
}

Result<std::vector<double>> measure_prtt(PatternContext& ctx, Buffer& buffer, const PrttSpec& spec)
{
    if (spec.batch == 0 || (spec.batch > 1 && !plain_burst(spec)))
        return Status::usage("a batch of repetitions per timed sample needs PRTT(n, 0, s) with nothing else");
    if (plain_burst(spec)) {
        const bool verify = ctx.settings.verify;
        if (spec.messages == 1)
            return verify ? batched_loop<true, false>(ctx, buffer, spec)
                          : batched_loop<false, false>(ctx, buffer, spec);
        return verify ? batched_loop<true, true>(ctx, buffer, spec) : batched_loop<false, true>(ctx, buffer, spec);
    }
    if (ctx.settings.verify)
        return driver_loop<true>(ctx, buffer, spec);
    return driver_loop<false>(ctx, buffer, spec);
}

Status answer_prtt(PatternContext& ctx, Buffer& buffer, const PrttSpec& spec)
{
    uint64_t rep = 0;
    return answer_from(ctx, buffer, spec, rep);
}

Result<std::vector<double>> run_prtt(PatternContext& ctx, Buffer& buffer, const PrttSpec& spec)
{
    uint64_t total = prtt_repetitions(spec);
    if (ctx.bootstrap.is_driver()) {
        Result<std::vector<double>> samples = measure_prtt(ctx, buffer, spec);
        if (samples && lossy(ctx)) { // the series is complete: tell the responder
            Result<Meeting> peer = meet(ctx, {Meet::done, total, 0});
            if (!peer)
                return peer.status().with_context(where(spec.size, total));
        }
        return samples;
    }
    NGX_TRY(respond_until_done(ctx, spec, [&](uint64_t& rep) { return answer_from(ctx, buffer, spec, rep); }));
    return std::vector<double>();
}

Status answer_series(PatternContext& ctx, const PrttSpec& spec, const AnswerOnce& once)
{
    uint64_t total = spec.warmup + spec.samples;
    mark_step(ctx.settings.progress, "series (responder)");
    return respond_until_done(ctx, spec, [&](uint64_t& rep) -> Status {
        while (rep < total) {
            if (ctx.interrupted())
                return Status::interrupted(where(spec.size, rep) + ": interrupted");
            mark_repetition(ctx.settings.progress, rep);
            const Status done = once(rep);
            if (!done) {
                NGX_TRY(responder_after_failure(ctx, spec, rep, done));
                continue;
            }
            ++rep;
        }
        return Status::ok();
    });
}

} // namespace ngx::patterns
