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
// A run of more than two hosts (`--connect A:P,B:P,...`) is a star: R ranks
// on each host and no pair connections; the client's leader (rank 0) is the
// hub, each server's leader carries its host's part over its control
// connection, and every rank knows each rank's host address first-hand
// (HostDirectory, ngx/bootstrap.hpp) for the per-peer links of a layout pattern.
//
//     Result<LocalGroup> group = launch_local_group(4, timeout_ns);   // 4 pairs: 8 processes
//     Result<LocalGroup> side = launch_tcp_group(std::move(client), 4, timeout_ns);  // 4 here, 4 there
//     Result<LocalGroup> hub = launch_star_client(std::move(servers), names, hosts, 2, timeout_ns);
//     // in a leader: group->children holds the pids to reap
#ifndef NGX_LOCAL_GROUP_HPP
#define NGX_LOCAL_GROUP_HPP

#include "tcp_rendezvous.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ngx {

struct LocalGroup {
    std::unique_ptr<Bootstrap> bootstrap;
    std::vector<pid_t> children; // in the leader; empty in the children
    // In rank 0 of a run of more than two hosts: the servers whose
    // connection has closed ("the server at HOST:PORT (ranks 4..5)"), so that
    // a failed run can name the host that left it. Valid while `bootstrap` lives.
    std::function<std::vector<std::string>()> servers_gone;
};

Result<LocalGroup> launch_local_group(int pairs, uint64_t timeout_ns);

// After the client's proposal was accepted: joins pairs 1..K-1 through the
// rendezvous, then forks K - 1 ranks on this side (client: ranks 0..K-1,
// server: K..2K-1).
Result<LocalGroup> launch_tcp_group(TcpRendezvous rendezvous, int pairs, uint64_t timeout_ns);

// A run of more than two hosts, after every server accepted: the client
// holds ranks 0..R-1 and server s (0-based, in `servers` order, `names` for
// messages) ranks (s+1)R..(s+2)R-1; `hosts` is every host's address, the
// client's first. Each side forks R - 1 ranks.
Result<LocalGroup> launch_star_client(std::vector<TcpRendezvous> servers, const std::vector<std::string>& names,
                                      const std::vector<std::string>& hosts, int per_host, uint64_t timeout_ns);
Result<LocalGroup> launch_star_server(TcpRendezvous client, const RunHosts& hosts, int per_host, uint64_t timeout_ns);

} // namespace ngx

#endif
