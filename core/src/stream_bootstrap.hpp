// A two-process bootstrap over one connected stream socket, with a deadline
// on every step. The local launcher (fork + socketpair) and the TCP
// rendezvous (--listen / --connect) both end in one of these.
//
//     Result<LocalLaunch> launch = launch_local_peer(timeout_ns);   // forks
//     Result<std::unique_ptr<Bootstrap>> boot = tcp_connect("host:7000", timeout_ns);
#ifndef NGX_STREAM_BOOTSTRAP_HPP
#define NGX_STREAM_BOOTSTRAP_HPP

#include <ngx/bootstrap.hpp>

#include <memory>
#include <sys/types.h>

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
    int fd() const { return fd_; }

private:
    Status write_all(const void* data, size_t length, uint64_t end_ns);
    Status read_all(void* data, size_t length, uint64_t end_ns);
    int fd_;
    uint64_t timeout_ns_;
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

    Status exchange(const Bytes& mine, Bytes& theirs) override;
    Status barrier() override;
    Status broadcast(Bytes& value) override;
    Status gather(const Bytes& mine, std::vector<Bytes>& all) override;

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

// TCP rendezvous. The server binds [ADDR:]PORT and accepts one client within
// accept_timeout_ns; the client connects within timeout_ns. The client is
// rank 0 (it drives and reports), the server rank 1.
Result<std::unique_ptr<Bootstrap>> tcp_listen(const std::string& endpoint, uint64_t accept_timeout_ns,
                                              uint64_t timeout_ns);
Result<std::unique_ptr<Bootstrap>> tcp_connect(const std::string& endpoint, uint64_t timeout_ns);

} // namespace ngx

#endif
