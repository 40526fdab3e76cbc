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

#include <models/collectives/collectives.hpp>

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

// Whether ops[i] (a send) and ops[i + 1] (a receive) wait for the same
// operations: one step of an exchange.
bool exchange_at(const std::vector<ScheduleOp>& ops, std::size_t i);
// Whether that exchange, with one peer, runs overlapped, as a rank runs it
// with non-blocking calls (`nonblocking`).
bool overlapped_exchange_at(const std::vector<ScheduleOp>& ops, std::size_t i, bool nonblocking);
// Whether rank `rank` runs the exchange at i receive first: one that does
// not overlap is played with blocking calls, and a rank sends first only
// to a higher rank. Every chain of waits then climbs to a rank whose send
// goes down, which receives first, so no exchange deadlocks whatever the
// sizes (a ring, a shift, a pair without non-blocking calls); eager sends
// lose a little overlap.
bool receives_first_at(const std::vector<ScheduleOp>& ops, std::size_t i, int rank, bool nonblocking);

// How the ranks play their schedules.
struct ScheduleRules {
    // false: LogGOPSim's rules (an MPI library with asynchronous progress):
    // a rank's independent operations overlap, and its CPU takes a message
    // when it arrives, posted receive or not.
    // true: as a rank runs its list with blocking calls, one after the other
    // (ngx's own collectives over a module, patterns/coll): each operation
    // starts when the one before it is done (an overlapped exchange is one
    // step; another exchange is two, receive first where receives_first_at
    // says so), and a message that arrived early waits in the buffers until its
    // receive is called: taken at max(call, arrival) + o_r, as the sim
    // module and a socket's copy-out charge it.
    bool program_order = false;
    bool nonblocking = true; // program order: exchanges with one peer overlap (overlapped_exchange_at)
};

// Plays a schedule event by event under the cost semantics of the overview
// and `rules` (the time at which the last rank is done). NaN on a message
// the model cannot price or a schedule that deadlocks.
double evaluate_schedule(const Schedule& schedule, const MessageCostFn& p2p, const ScheduleRules& rules = {});

} // namespace ngx::fit

#endif
