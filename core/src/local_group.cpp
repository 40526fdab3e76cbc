// One side's ranks forked from its leader, for the local launch and the TCP
// rendezvous alike (see local_group.hpp).
#include "local_group.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace ngx {
namespace {

// The other leader a leader carries the collectives to: over TCP, rank 0
// has one per other host, every other leader one to rank 0.
struct BridgeSpec {
    int fd = -1;
    int count = 0; // the other host's ranks
    std::string name;
};

// The ranks one leader forks: first .. first + pair_sockets.size() - 1.
struct Side {
    BootstrapKind kind = BootstrapKind::local;
    int nranks = 0;
    int first = 0;                          // the leader's rank
    std::vector<int> pair_sockets;          // [j]: rank first + j's socket to its pair (-1: none, N hosts)
    std::vector<BridgeSpec> bridges;        // the leader's links to the other hosts' leaders
    std::vector<std::string> host_of_ranks; // over TCP: [r] the address of rank r's host, first-hand
    uint64_t timeout_ns = 0;
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

class GroupBootstrap final : public Bootstrap, public HostDirectory {
public:
    // The leader: `links[j]` reaches rank first + j (links[0] unused); the
    // others: links[0] reaches the leader. `pair` may be null (N hosts).
    GroupBootstrap(const Side& side, int rank, std::vector<std::unique_ptr<FrameChannel>> links,
                   std::unique_ptr<FrameChannel> pair)
            : kind_(side.kind), rank_(rank), nranks_(side.nranks), first_(side.first),
              side_size_(int(side.pair_sockets.size())), links_(std::move(links)), pair_(std::move(pair)),
              host_of_ranks_(side.host_of_ranks)
    {
        bool tcp = kind_ == BootstrapKind::tcp;
        if (tcp && pair_) {
            local_address_ = stream_address(pair_->fd(), false);
            peer_address_ = stream_address(pair_->fd(), true);
        } else if (tcp) {
            local_address_ = host_address_of(rank_);
            peer_address_ = host_address_of(peer());
        } else {
            local_address_ = peer_address_ = "127.0.0.1";
        }
        if (rank_ != first_)
            return;
        for (const BridgeSpec& spec : side.bridges) {
            FrameChannel* channel = pair_ && spec.fd == pair_->fd() ? pair_.get() : nullptr;
            if (channel == nullptr) {
                owned_.push_back(std::make_unique<FrameChannel>(spec.fd, side.timeout_ns));
                channel = owned_.back().get();
            }
            bridges_.push_back({channel, spec.count, spec.name});
        }
    }

    BootstrapKind kind() const override { return kind_; }
    int rank() const override { return rank_; }
    int nranks() const override { return nranks_; }
    std::string local_address() const override { return local_address_; }
    std::string peer_address() const override { return peer_address_; }
    std::string host_address_of(int rank) const override
    {
        return rank >= 0 && size_t(rank) < host_of_ranks_.size() ? host_of_ranks_[size_t(rank)] : "";
    }

    bool has_pair_channel() const override { return pair_ != nullptr; }

    Status raw_exchange(const Bytes& mine, Bytes& theirs) override
    {
        if (!pair_)
            return Status::runtime("a run of more than two hosts has no pair connections: exchanges go through "
                                   "per-peer links (a layout pattern)");
        NGX_TRY(pair_->send(mine));
        return pair_->receive(theirs);
    }

    // Rank 0 sends to the other hosts' leaders first, so all sides fan out at once.
    Status raw_broadcast(Bytes& value) override
    {
        if (!leader())
            return links_[0]->receive(value);
        for (const Bridge& bridge : bridges_)
            NGX_TRY(
                (rank_ == 0 ? bridge.channel->send(value) : bridge.channel->receive(value)).with_context(bridge.name));
        for (int j = 1; j < side_size_; ++j)
            NGX_TRY(links_[size_t(j)]->send(value).with_context("rank " + std::to_string(first_ + j)));
        return Status::ok();
    }

    // Each leader collects its side; every other side's part reaches rank 0 as one frame.
    Status raw_gather(const Bytes& mine, std::vector<Bytes>& all) override
    {
        if (!leader())
            return links_[0]->send(mine);
        std::vector<Bytes> side(static_cast<size_t>(side_size_));
        side[0] = mine;
        for (int j = 1; j < side_size_; ++j)
            NGX_TRY(links_[size_t(j)]->receive(side[size_t(j)]).with_context("rank " + std::to_string(first_ + j)));
        if (rank_ != 0)
            return bridges_.empty() ? Status::ok()
                                    : bridges_[0].channel->send(pack_frames(side)).with_context(bridges_[0].name);
        all = std::move(side);
        for (const Bridge& bridge : bridges_) { // in rank order
            Bytes packed;
            NGX_TRY(bridge.channel->receive(packed).with_context(bridge.name));
            Result<std::vector<Bytes>> theirs = unpack_frames(packed, size_t(bridge.count));
            if (!theirs)
                return theirs.status().with_context(bridge.name);
            all.insert(all.end(), theirs->begin(), theirs->end());
        }
        return Status::ok();
    }

private:
    struct Bridge {
        FrameChannel* channel;
        int count;
        std::string name;
    };
    bool leader() const { return rank_ == first_; }

    BootstrapKind kind_;
    int rank_, nranks_, first_, side_size_;
    std::vector<std::unique_ptr<FrameChannel>> links_;
    std::unique_ptr<FrameChannel> pair_;
    std::vector<std::unique_ptr<FrameChannel>> owned_; // bridges that are not pair_
    std::vector<Bridge> bridges_;
    std::vector<std::string> host_of_ranks_;
    std::string local_address_, peer_address_;
};

struct SocketPair {
    int fd[2] = {-1, -1};
};

// Closes every socket of the side and the hub but those in `keep`; the
// numbers of the hub and the pair sockets become -1 (the bridges keep theirs).
void close_all(Side& side, std::vector<SocketPair>& hub, const std::vector<int>& keep)
{
    auto kept = [&](int fd) { return std::find(keep.begin(), keep.end(), fd) != keep.end(); };
    auto close_unless_kept = [&](int& fd) {
        if (fd >= 0 && !kept(fd))
            close(fd);
        fd = -1;
    };
    for (const BridgeSpec& bridge : side.bridges) // a bridge of two hosts is pair 0's socket: closed below
        if (bridge.fd >= 0 && !kept(bridge.fd) &&
            std::find(side.pair_sockets.begin(), side.pair_sockets.end(), bridge.fd) == side.pair_sockets.end())
            close(bridge.fd);
    for (SocketPair& link : hub)
        for (int& fd : link.fd)
            close_unless_kept(fd);
    for (int& fd : side.pair_sockets)
        close_unless_kept(fd);
}

std::unique_ptr<FrameChannel> channel_of(int fd, uint64_t timeout_ns)
{
    return fd < 0 ? nullptr : std::make_unique<FrameChannel>(fd, timeout_ns);
}

// In the forked rank first + j: its link to the leader and its pair's socket (if any).
LocalGroup become_member(Side& side, int j, std::vector<SocketPair>& hub, uint64_t timeout_ns)
{
    int to_leader = hub[size_t(j)].fd[1];
    int to_peer = side.pair_sockets[size_t(j)];
    close_all(side, hub, {to_leader, to_peer});
    std::vector<std::unique_ptr<FrameChannel>> links;
    links.push_back(std::make_unique<FrameChannel>(to_leader, timeout_ns));
    LocalGroup group;
    group.bootstrap =
        std::make_unique<GroupBootstrap>(side, side.first + j, std::move(links), channel_of(to_peer, timeout_ns));
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
    side.timeout_ns = timeout_ns;
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
    for (const BridgeSpec& bridge : side.bridges)
        keep.push_back(bridge.fd);
    close_all(side, hub, keep); // numbers become -1; the count stays
    group.bootstrap =
        std::make_unique<GroupBootstrap>(side, side.first, std::move(links), channel_of(keep[0], timeout_ns));
    return group;
}

// [r]: the address of rank r's host, `per_host` ranks a host, hosts in rank order.
std::vector<std::string> host_of_ranks(const std::vector<std::string>& hosts, int per_host)
{
    std::vector<std::string> ranks;
    for (const std::string& host : hosts)
        ranks.insert(ranks.end(), size_t(per_host), host);
    return ranks;
}

// The bridges whose other end has closed (or failed), without waiting.
std::vector<std::string> closed_bridges(const std::vector<BridgeSpec>& bridges)
{
    std::vector<std::string> closed;
    for (const BridgeSpec& bridge : bridges) {
        pollfd entry{bridge.fd, POLLRDHUP, 0};
        if (poll(&entry, 1, 0) == 1 && (entry.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0)
            closed.push_back(bridge.name);
    }
    return closed;
}

std::string rank_range(int first, int count)
{
    return count == 1 ? "rank " + std::to_string(first)
                      : "ranks " + std::to_string(first) + ".." + std::to_string(first + count - 1);
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
    bool server = rendezvous.is_server();
    side.first = server ? pairs : 0;
    side.pair_sockets = rendezvous.release_pair_sockets();
    int other = server ? 0 : pairs;
    side.bridges.push_back(
        {side.pair_sockets[0], pairs, "the other side's leader (rank " + std::to_string(other) + ")"});
    std::string here = stream_address(side.pair_sockets[0], false), there = stream_address(side.pair_sockets[0], true);
    side.host_of_ranks = host_of_ranks(server ? std::vector{there, here} : std::vector{here, there}, pairs);
    return fork_side(side, timeout_ns);
}

Result<LocalGroup> launch_star_client(std::vector<TcpRendezvous> servers, const std::vector<std::string>& names,
                                      const std::vector<std::string>& hosts, int per_host, uint64_t timeout_ns)
{
    Side side;
    side.kind = BootstrapKind::tcp;
    side.nranks = int(hosts.size()) * per_host;
    side.pair_sockets.assign(size_t(per_host), -1);
    for (size_t s = 0; s < servers.size(); ++s) {
        int first = int(s + 1) * per_host;
        side.bridges.push_back({servers[s].release_pair_sockets()[0], per_host,
                                "the server at " + names[s] + " (" + rank_range(first, per_host) + ")"});
    }
    side.host_of_ranks = host_of_ranks(hosts, per_host);
    std::vector<BridgeSpec> bridges = side.bridges;
    Result<LocalGroup> group = fork_side(side, timeout_ns);
    if (group && group->bootstrap->rank() == 0)
        group->servers_gone = [bridges] { return closed_bridges(bridges); };
    return group;
}

Result<LocalGroup> launch_star_server(TcpRendezvous client, const RunHosts& hosts, int per_host, uint64_t timeout_ns)
{
    Side side;
    side.kind = BootstrapKind::tcp;
    side.nranks = int(hosts.addresses.size()) * per_host;
    side.first = hosts.index * per_host;
    side.pair_sockets.assign(size_t(per_host), -1);
    side.bridges.push_back({client.release_pair_sockets()[0], per_host,
                            "the client at " + client.peer() + " (" + rank_range(0, per_host) + ")"});
    side.host_of_ranks = host_of_ranks(hosts.addresses, per_host);
    return fork_side(side, timeout_ns);
}

} // namespace ngx
