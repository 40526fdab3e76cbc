// Several local pairs over socketpairs (see local_group.hpp).
#include "local_group.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace ngx {
namespace {

class LocalGroupBootstrap final : public Bootstrap {
public:
    // rank 0: `spokes[r]` reaches rank r (spokes[0] unused); others: spokes[0] reaches rank 0.
    LocalGroupBootstrap(int rank, int nranks, std::vector<std::unique_ptr<FrameChannel>> spokes,
                        std::unique_ptr<FrameChannel> pair)
            : rank_(rank), nranks_(nranks), spokes_(std::move(spokes)), pair_(std::move(pair))
    {
    }

    BootstrapKind kind() const override { return BootstrapKind::local; }
    int rank() const override { return rank_; }
    int nranks() const override { return nranks_; }
    std::string local_address() const override { return "127.0.0.1"; }
    std::string peer_address() const override { return "127.0.0.1"; }

    Status exchange(const Bytes& mine, Bytes& theirs) override
    {
        NGX_TRY(pair_->send(mine));
        return pair_->receive(theirs);
    }

    Status barrier() override
    {
        std::vector<Bytes> ignored;
        NGX_TRY(gather({}, ignored));
        Bytes nothing;
        return broadcast(nothing);
    }

    Status broadcast(Bytes& value) override
    {
        if (rank_ != 0)
            return spokes_[0]->receive(value);
        for (int r = 1; r < nranks_; ++r)
            NGX_TRY(spokes_[size_t(r)]->send(value).with_context("rank " + std::to_string(r)));
        return Status::ok();
    }

    Status gather(const Bytes& mine, std::vector<Bytes>& all) override
    {
        if (rank_ != 0)
            return spokes_[0]->send(mine);
        all.assign(size_t(nranks_), Bytes());
        all[0] = mine;
        for (int r = 1; r < nranks_; ++r)
            NGX_TRY(spokes_[size_t(r)]->receive(all[size_t(r)]).with_context("rank " + std::to_string(r)));
        return Status::ok();
    }

private:
    int rank_, nranks_;
    std::vector<std::unique_ptr<FrameChannel>> spokes_;
    std::unique_ptr<FrameChannel> pair_;
};

struct SocketPair {
    int fd[2] = {-1, -1};
};

void close_all(std::vector<SocketPair>& sockets, const std::vector<int>& keep)
{
    for (SocketPair& pair : sockets)
        for (int& fd : pair.fd)
            if (fd >= 0 && std::find(keep.begin(), keep.end(), fd) == keep.end()) {
                close(fd);
                fd = -1;
            }
}

// The child `rank`: its socket to rank 0 and its pair's end.
LocalGroup become_child(int rank, int pairs, std::vector<SocketPair>& hub, std::vector<SocketPair>& pair_links,
                        uint64_t timeout_ns)
{
    int to_hub = hub[size_t(rank)].fd[1];
    int to_peer = pair_links[size_t(rank % pairs)].fd[rank < pairs ? 0 : 1];
    close_all(hub, {to_hub, to_peer});
    close_all(pair_links, {to_hub, to_peer});
    std::vector<std::unique_ptr<FrameChannel>> spokes;
    spokes.push_back(std::make_unique<FrameChannel>(to_hub, timeout_ns));
    LocalGroup group;
    group.bootstrap = std::make_unique<LocalGroupBootstrap>(rank, 2 * pairs, std::move(spokes),
                                                            std::make_unique<FrameChannel>(to_peer, timeout_ns));
    return group;
}

} // namespace

Result<LocalGroup> launch_local_group(int pairs, uint64_t timeout_ns)
{
    const int nranks = 2 * pairs;
    std::vector<SocketPair> hub(static_cast<size_t>(nranks));
    std::vector<SocketPair> pair_links(static_cast<size_t>(pairs));
    auto open_all = [](std::vector<SocketPair>& sockets, size_t first) {
        for (size_t i = first; i < sockets.size(); ++i)
            if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets[i].fd) != 0)
                return false;
        return true;
    };
    if (!open_all(hub, 1) || !open_all(pair_links, 0)) {
        std::string why = std::strerror(errno);
        close_all(hub, {});
        close_all(pair_links, {});
        return Status::runtime("local launch of " + std::to_string(nranks) + " processes: socketpair: " + why);
    }
    std::fflush(nullptr); // nothing buffered may be printed twice
    pid_t parent = getpid();
    LocalGroup group;
    for (int rank = 1; rank < nranks; ++rank) {
        pid_t child = fork();
        if (child == 0) {
            prctl(PR_SET_PDEATHSIG, SIGTERM); // never outlive the parent
            if (getppid() != parent)
                _exit(1);
            return become_child(rank, pairs, hub, pair_links, timeout_ns);
        }
        if (child < 0) {
            std::string why = std::strerror(errno);
            for (pid_t started : group.children)
                kill(started, SIGKILL);
            for (pid_t started : group.children)
                reap_local_peer(started, 0);
            close_all(hub, {});
            close_all(pair_links, {});
            return Status::runtime("local launch: fork of rank " + std::to_string(rank) + ": " + why);
        }
        group.children.push_back(child);
    }
    std::vector<std::unique_ptr<FrameChannel>> spokes(static_cast<size_t>(nranks));
    std::vector<int> keep{pair_links[0].fd[0]};
    for (int rank = 1; rank < nranks; ++rank) {
        spokes[size_t(rank)] = std::make_unique<FrameChannel>(hub[size_t(rank)].fd[0], timeout_ns);
        keep.push_back(hub[size_t(rank)].fd[0]);
    }
    close_all(hub, keep);
    close_all(pair_links, keep);
    group.bootstrap = std::make_unique<LocalGroupBootstrap>(
        0, nranks, std::move(spokes), std::make_unique<FrameChannel>(pair_links[0].fd[0], timeout_ns));
    return group;
}

} // namespace ngx
