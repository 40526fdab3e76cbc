// A trace as a GOAL schedule for LogGOPSim (Hoefler, Schneider, Lumsdaine
// 2010): per rank, the measured computation between calls as `calc`, each
// send and receive as `send` / `recv` matched as the replay matches them
// (non-overtaking order per communicator, source, destination, tag), a
// non-blocking operation started after the previous blocking point and
// joined by its Wait, and each collective on MPI_COMM_WORLD as the message
// schedule of the algorithm Open MPI's tuned decision picks
// (collective_schedule.hpp). What has no model (other communicators, the
// v variants, Probe) becomes a `calc` of its measured duration and is
// counted. Written with ngx export's GOAL writer (export_command.hpp).
//
//     Result<GoalExport> g = trace_schedule(ranks);                 // ranks: open_trace()
//     std::string text = goal_text(g->schedule, 1e6);   // calc in ps
#ifndef NGX_TRACE_GOAL_HPP
#define NGX_TRACE_GOAL_HPP

#include "trace_reader.hpp"

#include <models/collectives/collective_schedule.hpp>
#include <ngx/status.hpp>

#include <map>
#include <string>

namespace ngx::trace {

struct GoalExport {
    fit::Schedule schedule;                        // gamma = 1: a calc's bytes are its microseconds
    std::map<std::string, long long> as_calc;      // call kind -> events written as their measured duration
    std::map<std::string, long long> approximated; // collective: Open MPI's algorithm and what stands in
};

// The whole schedule in memory (GOAL is one file); matching errors as in
// the replay (unmatched sends or receives: usage errors).
Result<GoalExport> trace_schedule(std::vector<RankReader>& ranks);

} // namespace ngx::trace

#endif
