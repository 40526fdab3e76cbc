// Stream sockets for the bootstraps, with a deadline on every step: framed
// messages (FrameChannel) and the two-process bootstrap of the local launch
// (fork + socketpair). The TCP rendezvous of --listen / --connect, whose
// sockets local_group.hpp turns into the run's bootstrap, is in
// tcp_rendezvous.hpp.
//
//     Result<LocalLaunch> launch = launch_local_peer(timeout_ns);   // forks
#ifndef NGX_STREAM_BOOTSTRAP_HPP
#define NGX_STREAM_BOOTSTRAP_HPP

#include <ngx/bootstrap.hpp>

#include <memory>
#include <string>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace ngx {

// Length-prefixed frames over a stream socket; every call ends by its deadline.
class FrameChannel {
public:
    FrameChannel(int fd, uint64_t timeout_ns) : fd_(fd), timeout_ns_(timeout_ns) {}
    ~FrameChannel();
    FrameChannel(const FrameChannel&) = delete;
    FrameChannel& operator=(const FrameChannel&) = delete;

    Status send(const Bytes& frame);
    Status receive(Bytes& frame);
    // A frame of at most max_bytes (a longer one is refused unread) by end_ns.
    Status receive_within(Bytes& frame, size_t max_bytes, uint64_t end_ns);
    int fd() const { return fd_; }
    // Waits end as soon as SIGINT/SIGTERM raised the interrupt flag, not only
    // when a signal interrupts them: for the rendezvous, never the run.
    void watch_interrupt_flag() { watch_flag_ = true; }
    // Gives up the socket without closing it.
    int release() { return std::exchange(fd_, -1); }

private:
    Status write_all(const void* data, size_t length, uint64_t end_ns);
    Status read_all(void* data, size_t length, uint64_t end_ns);
    int fd_;
    uint64_t timeout_ns_;
    bool watch_flag_ = false;
};

class StreamBootstrap final : public Bootstrap {
public:
    StreamBootstrap(BootstrapKind kind, int fd, int rank, uint64_t timeout_ns, std::string local_address,
                    std::string peer_address);

    BootstrapKind kind() const override { return kind_; }
    int rank() const override { return rank_; }
    int nranks() const override { return 2; }
    std::string local_address() const override { return local_address_; }
    std::string peer_address() const override { return peer_address_; }

    Status raw_exchange(const Bytes& mine, Bytes& theirs) override;
    Status raw_broadcast(Bytes& value) override;
    Status raw_gather(const Bytes& mine, std::vector<Bytes>& all) override;

private:
    BootstrapKind kind_;
    FrameChannel channel_;
    int rank_;
    std::string local_address_, peer_address_;
};

// The result of forking a local peer: this process's bootstrap, and in the
// parent (rank 0) the child's pid.
struct LocalLaunch {
    std::unique_ptr<Bootstrap> bootstrap;
    pid_t child = -1; // -1 in the child itself
};

Result<LocalLaunch> launch_local_peer(uint64_t timeout_ns);

// Waits up to `timeout_ns` for the forked peer to exit; kills it after that.
// Returns its exit code (128 + signal when killed by one).
int reap_local_peer(pid_t child, uint64_t timeout_ns);

// The address of a connected socket's own end, or of its peer's ("" when unknown).
std::string stream_address(int fd, bool peer);

} // namespace ngx

#endif
