// Groups of pairs on one side of a run, joined by forking: one piece of code
// serves the local launch (`ngx --pairs K`: all 2K ranks on this machine) and
// the TCP rendezvous (`--listen` / `--connect --pairs K`: K ranks on each of
// two nodes). The side's first rank (its leader) forks the others; each rank
// has its pair's socket for exchange(), so pairs set up their modules
// independently, and a socketpair to its leader, which serves barrier,
// broadcast and gather. Over TCP the two leaders (ranks 0 and K, pair 0)
// carry the collectives between the sides over pair 0's connection. Every
// step has the run's deadline (FrameChannel); a child never outlives its
// leader, and a dead rank ends its leader's next collective in an error.
//
//     Result<LocalGroup> group = launch_local_group(4, timeout_ns);   // 4 pairs: 8 processes
//     Result<LocalGroup> side = launch_tcp_group(std::move(client), 4, timeout_ns);  // 4 here, 4 there
//     // in a leader: group->children holds the pids to reap
#ifndef NGX_LOCAL_GROUP_HPP
#define NGX_LOCAL_GROUP_HPP

#include "stream_bootstrap.hpp"

#include <memory>
#include <vector>

namespace ngx {

struct LocalGroup {
    std::unique_ptr<Bootstrap> bootstrap;
    std::vector<pid_t> children; // in the leader; empty in the children
};

Result<LocalGroup> launch_local_group(int pairs, uint64_t timeout_ns);

// After the client's proposal was accepted: joins pairs 1..K-1 through the
// rendezvous, then forks K - 1 ranks on this side (client: ranks 0..K-1,
// server: K..2K-1).
Result<LocalGroup> launch_tcp_group(TcpRendezvous rendezvous, int pairs, uint64_t timeout_ns);

} // namespace ngx

#endif
