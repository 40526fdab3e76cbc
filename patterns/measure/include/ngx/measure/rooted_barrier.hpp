// A two-party barrier with a root, as the Al-Tawil and Moritz 1998 benchmark needs it: the
// root waits for the other side's arrival and releases it, so the root leaves
// first and the other side one control-channel latency later. The paper
// repeats its measurements with the root moved from the sender to the
// receiver "to eliminate the performance impact of the barrier operation".
//
// Built from the bootstrap's rank-0-rooted collectives (never the measured
// link): root = rank 0 (the driver): gather (arrivals) then broadcast
// (release); root = the responder: broadcast (the driver's arrival) then
// gather (the responder's release). With more than two ranks a plain
// barrier first makes it a barrier of all ranks.
//
//     NGX_TRY(rooted_barrier(ctx.bootstrap, BarrierRoot::responder));
#ifndef NGX_MEASURE_ROOTED_BARRIER_HPP
#define NGX_MEASURE_ROOTED_BARRIER_HPP

#include <ngx/bootstrap.hpp>

#include <string>
#include <vector>

namespace ngx::patterns {

enum class BarrierRoot { driver = 0, responder = 1 };
enum class RootChoice { driver, responder, both };

Status rooted_barrier(Bootstrap& bootstrap, BarrierRoot root);

// The roots a choice uses, in the order repetitions alternate them.
std::vector<BarrierRoot> roots_of(RootChoice choice);
std::string root_name(RootChoice choice);

} // namespace ngx::patterns

#endif
