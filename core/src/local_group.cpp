// One side's ranks forked from its leader, for the local launch and the TCP
// rendezvous alike (see local_group.hpp).
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

// The ranks one leader forks: first .. first + pair_sockets.size() - 1.
struct Side {
    BootstrapKind kind = BootstrapKind::local;
    int nranks = 0;
    int first = 0;                                                     // the leader's rank
    std::vector<int> pair_sockets;                                     // [j]: rank first + j's socket to its pair
    bool bridged() const { return int(pair_sockets.size()) < nranks; } // another side exists
};

// Several frames as one: each a 4-byte little-endian length and its bytes.
Bytes pack_frames(const std::vector<Bytes>& frames)
{
    Bytes packed;
    for (const Bytes& frame : frames) {
        uint32_t length = uint32_t(frame.size());
        for (int shift = 0; shift < 32; shift += 8)
            packed.push_back(uint8_t(length >> shift));
        packed.insert(packed.end(), frame.begin(), frame.end());
    }
    return packed;
}

Result<std::vector<Bytes>> unpack_frames(const Bytes& packed, size_t count)
{
    std::vector<Bytes> frames;
    size_t at = 0;
    while (at + 4 <= packed.size()) {
        uint32_t length = 0;
        for (int i = 0; i < 4; ++i)
            length |= uint32_t(packed[at + size_t(i)]) << (8 * i);
        at += 4;
        if (length > packed.size() - at)
            break;
        frames.emplace_back(packed.begin() + long(at), packed.begin() + long(at + length));
        at += length;
    }
    if (frames.size() != count || at != packed.size())
        return Status::runtime("the other side's leader sent " + std::to_string(frames.size()) + " ranks' parts, not " +
                               std::to_string(count));
    return frames;
}

class GroupBootstrap final : public Bootstrap {
public:
    // The leader: `links[j]` reaches rank first + j (links[0] unused); the
    // others: links[0] reaches the leader.
    GroupBootstrap(const Side& side, int rank, std::vector<std::unique_ptr<FrameChannel>> links,
                   std::unique_ptr<FrameChannel> pair)
            : kind_(side.kind), rank_(rank), nranks_(side.nranks), first_(side.first),
              side_size_(int(side.pair_sockets.size())), links_(std::move(links)), pair_(std::move(pair))
    {
        bool tcp = kind_ == BootstrapKind::tcp;
        local_address_ = tcp ? stream_address(pair_->fd(), false) : "127.0.0.1";
        peer_address_ = tcp ? stream_address(pair_->fd(), true) : "127.0.0.1";
    }

    BootstrapKind kind() const override { return kind_; }
    int rank() const override { return rank_; }
    int nranks() const override { return nranks_; }
    std::string local_address() const override { return local_address_; }
    std::string peer_address() const override { return peer_address_; }

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

    // Rank 0 sends to the other side's leader first, so both sides fan out at once.
    Status broadcast(Bytes& value) override
    {
        if (!leader())
            return links_[0]->receive(value);
        if (bridged())
            NGX_TRY((rank_ == 0 ? pair_->send(value) : pair_->receive(value)).with_context(other_leader()));
        for (int j = 1; j < side_size_; ++j)
            NGX_TRY(links_[size_t(j)]->send(value).with_context("rank " + std::to_string(first_ + j)));
        return Status::ok();
    }

    // Each leader collects its side; the second side's part reaches rank 0 as one frame.
    Status gather(const Bytes& mine, std::vector<Bytes>& all) override
    {
        if (!leader())
            return links_[0]->send(mine);
        std::vector<Bytes> side(static_cast<size_t>(side_size_));
        side[0] = mine;
        for (int j = 1; j < side_size_; ++j)
            NGX_TRY(links_[size_t(j)]->receive(side[size_t(j)]).with_context("rank " + std::to_string(first_ + j)));
        if (!bridged()) {
            all = std::move(side);
            return Status::ok();
        }
        if (rank_ != 0)
            return pair_->send(pack_frames(side)).with_context(other_leader());
        Bytes packed;
        NGX_TRY(pair_->receive(packed).with_context(other_leader()));
        Result<std::vector<Bytes>> theirs = unpack_frames(packed, size_t(nranks_ - side_size_));
        if (!theirs)
            return theirs.status();
        all = std::move(side);
        all.insert(all.end(), theirs->begin(), theirs->end());
        return Status::ok();
    }

private:
    bool leader() const { return rank_ == first_; }
    bool bridged() const { return side_size_ < nranks_; }
    std::string other_leader() const
    {
        return "the other side's leader (rank " + std::to_string(rank_ == 0 ? side_size_ : 0) + ")";
    }

    BootstrapKind kind_;
    int rank_, nranks_, first_, side_size_;
    std::vector<std::unique_ptr<FrameChannel>> links_;
    std::unique_ptr<FrameChannel> pair_;
    std::string local_address_, peer_address_;
};

struct SocketPair {
    int fd[2] = {-1, -1};
};

// Closes every socket of the side and the hub but those in `keep`.
void close_all(Side& side, std::vector<SocketPair>& hub, const std::vector<int>& keep)
{
    auto close_unless_kept = [&](int& fd) {
        if (fd >= 0 && std::find(keep.begin(), keep.end(), fd) == keep.end())
            close(fd);
        fd = -1;
    };
    for (SocketPair& link : hub)
        for (int& fd : link.fd)
            close_unless_kept(fd);
    for (int& fd : side.pair_sockets)
        close_unless_kept(fd);
}

// In the forked rank first + j: its link to the leader and its pair's socket.
LocalGroup become_member(Side& side, int j, std::vector<SocketPair>& hub, uint64_t timeout_ns)
{
    int to_leader = hub[size_t(j)].fd[1];
    int to_peer = side.pair_sockets[size_t(j)];
    close_all(side, hub, {to_leader, to_peer});
    std::vector<std::unique_ptr<FrameChannel>> links;
    links.push_back(std::make_unique<FrameChannel>(to_leader, timeout_ns));
    LocalGroup group;
    group.bootstrap = std::make_unique<GroupBootstrap>(side, side.first + j, std::move(links),
                                                       std::make_unique<FrameChannel>(to_peer, timeout_ns));
    return group;
}

Status open_hub(std::vector<SocketPair>& hub)
{
    for (size_t j = 1; j < hub.size(); ++j)
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, hub[j].fd) != 0)
            return Status::runtime(std::string("socketpair: ") + std::strerror(errno));
    return Status::ok();
}

// The leader forks ranks first + 1 .. of the side; each process returns its bootstrap.
Result<LocalGroup> fork_side(Side& side, uint64_t timeout_ns)
{
    const int size = int(side.pair_sockets.size());
    const std::string what = "launch of " + std::to_string(size) + " processes";
    std::vector<SocketPair> hub(static_cast<size_t>(size)); // hub[j]: rank first + j with the leader
    if (Status opened = open_hub(hub); !opened) {
        close_all(side, hub, {});
        return opened.with_context(what);
    }
    std::fflush(nullptr); // nothing buffered may be printed twice
    pid_t parent = getpid();
    LocalGroup group;
    for (int j = 1; j < size; ++j) {
        pid_t child = fork();
        if (child == 0) {
            prctl(PR_SET_PDEATHSIG, SIGTERM); // never outlive the leader
            if (getppid() != parent)
                _exit(1);
            return become_member(side, j, hub, timeout_ns);
        }
        if (child < 0) {
            std::string why = std::strerror(errno);
            for (pid_t started : group.children)
                kill(started, SIGKILL);
            for (pid_t started : group.children)
                reap_local_peer(started, 0);
            close_all(side, hub, {});
            return Status::runtime(what + ": fork of rank " + std::to_string(side.first + j) + ": " + why);
        }
        group.children.push_back(child);
    }
    std::vector<std::unique_ptr<FrameChannel>> links(static_cast<size_t>(size));
    std::vector<int> keep{side.pair_sockets[0]};
    for (int j = 1; j < size; ++j) {
        links[size_t(j)] = std::make_unique<FrameChannel>(hub[size_t(j)].fd[0], timeout_ns);
        keep.push_back(hub[size_t(j)].fd[0]);
    }
    close_all(side, hub, keep); // numbers become -1; the count stays
    group.bootstrap = std::make_unique<GroupBootstrap>(side, side.first, std::move(links),
                                                       std::make_unique<FrameChannel>(keep[0], timeout_ns));
    return group;
}

} // namespace

Result<LocalGroup> launch_local_group(int pairs, uint64_t timeout_ns)
{
    Side side;
    side.kind = BootstrapKind::local;
    side.nranks = 2 * pairs;
    std::vector<SocketPair> pair_links(static_cast<size_t>(pairs));
    for (SocketPair& link : pair_links)
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, link.fd) != 0) {
            std::string why = std::strerror(errno);
            close_all(side, pair_links, {});
            return Status::runtime("local launch of " + std::to_string(side.nranks) + " processes: socketpair: " + why);
        }
    for (int rank = 0; rank < side.nranks; ++rank) // rank i pairs with rank K + i
        side.pair_sockets.push_back(pair_links[size_t(rank % pairs)].fd[rank < pairs ? 0 : 1]);
    return fork_side(side, timeout_ns);
}

Result<LocalGroup> launch_tcp_group(TcpRendezvous rendezvous, int pairs, uint64_t timeout_ns)
{
    NGX_TRY(rendezvous.join_pairs(pairs, timeout_ns));
    Side side;
    side.kind = BootstrapKind::tcp;
    side.nranks = 2 * pairs;
    side.first = rendezvous.is_server() ? pairs : 0;
    side.pair_sockets = rendezvous.release_pair_sockets();
    return fork_side(side, timeout_ns);
}

} // namespace ngx
