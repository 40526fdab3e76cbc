// The sim's clock discipline (see sim_context.hpp): sleeping and spinning to
// a deadline, the end of a call at the model's time, the noise of a call.
#include "sim_context.hpp"

#include <time.h>

namespace ngx::sim {

using ngx::mod::fail;

namespace {

// --sim-sleep: sleeps through most of a wait until `until` (clock ticks),
// leaving the rest to the busy-wait; no clock read when it is off.
void sleep_before(const Context* c, uint64_t until)
{
    if (c->sleep_margin_ns == 0 || c->clock.is_virtual())
        return;
    uint64_t now = c->clock.now();
    ngx::sim::sleep_most_of(until > now ? uint64_t(double(until - now) / c->clock.ticks_per_ns()) : 0,
                            c->sleep_margin_ns);
}

} // namespace

// Busy-waits (the CPU is engaged, as overhead is) until the clock reaches
// `until`; only the cancel flag stops it early.
ngx_status spin_until(const Context* c, uint64_t until, const char* step, ngx_error* err)
{
    if (c->clock.is_virtual()) {
        c->clock.advance_to(until);
        return NGX_OK;
    }
    sleep_before(c, until);
    if (ngx::sim::spin_to(c->clock, until, [c] { return ngx::mod::cancelled(c->cancel); }) == 0)
        return fail(err, NGX_ERR_INTERRUPTED, "%s: interrupted", step);
    return NGX_OK;
}

// The caller's call of the running send or recv, as the model sees it: the
// first clock read less the way in (sim_clock.hpp).
uint64_t call_time(const Context* c)
{
    return c->clock.now() - c->cost.entry;
}

// Ends a send or recv so that the caller has it back at `model_return`;
// counts the calls whose own work (or a message later than its stamp) had
// already passed that time: the model was not kept there (sim_finalize).
ngx_status return_at(Context* c, Late& late, uint64_t model_return, const char* step, ngx_error* err)
{
    if (c->clock.is_virtual()) { // exactly the model's time
        ++late.calls;
        c->clock.advance_to(model_return);
        return NGX_OK;
    }
    uint64_t until = model_return - std::min(c->cost.exit, model_return);
    sleep_before(c, until);
    uint64_t last = ngx::sim::spin_to(c->clock, until, [c] { return ngx::mod::cancelled(c->cancel); });
    if (last == 0)
        return fail(err, NGX_ERR_INTERRUPTED, "%s: interrupted", step);
    ++late.calls;
    late.late += last - until > c->late_margin;
    late.overshoot += last - until;
    return NGX_OK;
}

// A send's or receive's CPU cost with --sim-noise (none in real time).
uint64_t noisy_call(Context* c, uint64_t ticks)
{
    return c->noise.any() ? c->noise.call(ticks, c->clock.ticks_per_ns() * 1e3) : ticks;
}

} // namespace ngx::sim
