// The local launch of several pairs (`ngx --pairs K`): rank 0 forks 2K - 1
// processes on this machine. Each pair (rank i with rank K + i) has its own
// socket for exchange(), so pairs set up their modules independently (and a
// lossy module's resync involves its pair only); every other rank has a
// socket to rank 0, which serves barrier, broadcast and gather. Every step
// has the run's deadline (FrameChannel).
//
//     Result<LocalGroup> group = launch_local_group(4, timeout_ns);   // 4 pairs: 8 processes
//     // in rank 0: group->children holds the 7 pids to reap
#ifndef NGX_LOCAL_GROUP_HPP
#define NGX_LOCAL_GROUP_HPP

#include "stream_bootstrap.hpp"

#include <memory>
#include <vector>

namespace ngx {

struct LocalGroup {
    std::unique_ptr<Bootstrap> bootstrap;
    std::vector<pid_t> children; // in rank 0; empty in the children
};

Result<LocalGroup> launch_local_group(int pairs, uint64_t timeout_ns);

} // namespace ngx

#endif
