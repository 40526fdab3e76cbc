// The explicit message schedule of each collective algorithm of
// collectives.hpp (per rank: send / receive n bytes to / from a peer, local
// reductions, and what each waits for), and an event-by-event evaluation
// of a schedule under the cost semantics of collectives.hpp. The
// evaluation checks the closed forms; the schedule is what `ngx export
// --goal` writes for LogGOPSim.
//
//     Schedule plan = collective_schedule(c);          // c: a Collective
//     double us = evaluate_schedule(plan, p2p);        // == predict_collective
//                                                      // where that is exact
#ifndef NGX_FIT_COLLECTIVE_SCHEDULE_HPP
#define NGX_FIT_COLLECTIVE_SCHEDULE_HPP

#include <ngx/fit/collectives.hpp>

#include <vector>

namespace ngx::fit {

// One operation of a rank's schedule (GOAL's send, recv and calc).
struct ScheduleOp {
    enum class Kind { send, recv, calc };
    Kind kind = Kind::send;
    int peer = -1;          // send: destination, recv: source
    int match = -1;         // index of the matching recv/send in the peer's list
    double bytes = 0;       // message size; calc: the bytes reduced
    std::vector<int> after; // indices of this rank's ops that must complete first
};

// Every rank's operations; a send's `match` is its receive's index at the peer
// (and the reverse), which GOAL export uses as the tag.
struct Schedule {
    std::vector<std::vector<ScheduleOp>> ranks;
    double gamma = 0; // us per byte of a calc
};

// The explicit message schedule of `c` (check_collective must pass; P up
// to a few thousand: it has O(P log P) to O(P^2) operations).
Schedule collective_schedule(const Collective& c);

// Plays a schedule event by event under the cost semantics of the overview
// (the time at which the last rank is done). NaN on a message the model
// cannot price or a schedule that deadlocks.
double evaluate_schedule(const Schedule& schedule, const MessageCostFn& p2p);

} // namespace ngx::fit

#endif
