// `ngx export --goal --op allreduce --algorithm ring -P 16 -s 1Mi [-o FILE]`:
// writes the message schedule of one collective algorithm
// (models/collectives/collective_schedule.hpp) in LogGOPSim's GOAL text format, so that
// LogGOPSim (txt2bin, then LogGOPSim -L -o -g -G -O -S with the parameters of
// `ngx predict --export loggopsim`) simulates what `ngx predict` predicts:
//
//     num_ranks 16
//     rank 0 {
//     l0: send 65536b to 1 tag 0
//     l1: recv 65536b from 15 tag 1
//     l2: send 65536b to 1 tag 2
//     l2 requires l0
//     ...
// A message's tag is its receive's label number at the receiver; sizes are
// whole bytes (at least 1: LogGOPSim cannot send 0); a reduction (--gamma,
// us per byte) is a `calc` of gamma x bytes in --unit (ps by default, the
// unit of ngx's LogGOPSim export). Bad input (unknown op or algorithm, P
// outside 2..4096) exits 2 with the reason.
//
// What GOAL cannot carry: where the ranks sit. LogGOPSim prices each
// message as if its path were its own, so the delay messages suffer where
// they share a link (ngx's contention term, models/contention/contention.hpp,
// `--coll-contention`) is not in the simulation. Both GOAL writers (this
// command and `ngx trace export --goal`) say so on stderr (goal_limits()).
#ifndef NGX_TOOLS_EXPORT_COMMAND_HPP
#define NGX_TOOLS_EXPORT_COMMAND_HPP

#include "command.hpp"

#include <models/collectives/collective_schedule.hpp>

#include <string>

namespace ngx {

CommandInfo export_command();

// The GOAL text of a schedule; calc times in units of `per_us` per microsecond.
std::string goal_text(const fit::Schedule& schedule, double per_us);

// The note on what a GOAL schedule leaves out (contention on shared links),
// one line, for stderr.
std::string goal_limits();

} // namespace ngx

#endif
