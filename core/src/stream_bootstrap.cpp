// Framed stream sockets and the local launch (fork + socketpair) (see
// stream_bootstrap.hpp).
#include "stream_bootstrap.hpp"

#include "stream_io.hpp"

#include "interrupt.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <utility>

namespace ngx {
namespace {

// A frame is a 4-byte little-endian length and its payload; control data is small.
constexpr uint32_t max_frame_bytes = 16u << 20;

} // namespace

using stream_io::address_text;
using stream_io::errno_text;
using stream_io::monotonic_ns;
using stream_io::OnSignal;
using stream_io::wait_for;

FrameChannel::~FrameChannel()
{
    if (fd_ >= 0)
        close(fd_);
}

Status FrameChannel::write_all(const void* data, size_t length, uint64_t end_ns)
{
    const auto* bytes = static_cast<const uint8_t*>(data);
    while (length > 0) {
        ssize_t sent = ::send(fd_, bytes, length, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (sent > 0) {
            bytes += sent;
            length -= size_t(sent);
        } else if (sent < 0 && (errno == EAGAIN || errno == EINTR)) {
            NGX_TRY(wait_for(fd_, POLLOUT, end_ns, "control channel send", timeout_ns_,
                             watch_flag_ ? OnSignal::flag : OnSignal::eintr));
        } else {
            return Status::runtime("control channel send: the peer is gone (" + errno_text() + ")");
        }
    }
    return Status::ok();
}

Status FrameChannel::read_all(void* data, size_t length, uint64_t end_ns)
{
    auto* bytes = static_cast<uint8_t*>(data);
    while (length > 0) {
        ssize_t got = ::recv(fd_, bytes, length, MSG_DONTWAIT);
        if (got > 0) {
            bytes += got;
            length -= size_t(got);
        } else if (got == 0) {
            return Status::runtime("control channel: the peer closed the connection (peer lost)");
        } else if (errno == EAGAIN || errno == EINTR) {
            NGX_TRY(wait_for(fd_, POLLIN, end_ns, "control channel receive", timeout_ns_,
                             watch_flag_ ? OnSignal::flag : OnSignal::eintr));
        } else {
            return Status::runtime("control channel receive: " + errno_text() + " (peer lost)");
        }
    }
    return Status::ok();
}

Status FrameChannel::send(const Bytes& frame)
{
    uint64_t end_ns = monotonic_ns() + timeout_ns_;
    uint32_t length = uint32_t(frame.size());
    uint8_t header[4] = {uint8_t(length), uint8_t(length >> 8), uint8_t(length >> 16), uint8_t(length >> 24)};
    NGX_TRY(write_all(header, sizeof header, end_ns));
    return write_all(frame.data(), frame.size(), end_ns);
}

Status FrameChannel::receive(Bytes& frame)
{
    return receive_within(frame, max_frame_bytes, monotonic_ns() + timeout_ns_);
}

Status FrameChannel::receive_within(Bytes& frame, size_t max_bytes, uint64_t end_ns)
{
    uint8_t header[4];
    NGX_TRY(read_all(header, sizeof header, end_ns));
    uint32_t length =
        uint32_t(header[0]) | uint32_t(header[1]) << 8 | uint32_t(header[2]) << 16 | uint32_t(header[3]) << 24;
    if (length > max_bytes)
        return Status::runtime("control channel: the peer sent a frame of " + std::to_string(length) +
                               " bytes, at most " + std::to_string(max_bytes) +
                               " are accepted here (not an ngx peer?)");
    frame.resize(length);
    return read_all(frame.data(), length, end_ns);
}

StreamBootstrap::StreamBootstrap(BootstrapKind kind, int fd, int rank, uint64_t timeout_ns, std::string local_address,
                                 std::string peer_address)
        : kind_(kind), channel_(fd, timeout_ns), rank_(rank), local_address_(std::move(local_address)),
          peer_address_(std::move(peer_address))
{
}

Status StreamBootstrap::raw_exchange(const Bytes& mine, Bytes& theirs)
{
    NGX_TRY(channel_.send(mine));
    return channel_.receive(theirs);
}

Status StreamBootstrap::raw_broadcast(Bytes& value)
{
    return rank_ == 0 ? channel_.send(value) : channel_.receive(value);
}

Status StreamBootstrap::raw_gather(const Bytes& mine, std::vector<Bytes>& all)
{
    if (rank_ != 0)
        return channel_.send(mine);
    all.assign(2, Bytes());
    all[0] = mine;
    return channel_.receive(all[1]);
}

Result<LocalLaunch> launch_local_peer(uint64_t timeout_ns)
{
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
        return Status::runtime("local launch: socketpair: " + errno_text());
    std::fflush(nullptr); // nothing buffered may be printed twice
    pid_t parent = getpid();
    pid_t child = fork();
    if (child < 0) {
        close(fds[0]);
        close(fds[1]);
        return Status::runtime("local launch: fork: " + errno_text());
    }
    LocalLaunch launch;
    if (child == 0) {
        close(fds[0]);
        prctl(PR_SET_PDEATHSIG, SIGTERM); // never outlive the parent
        if (getppid() != parent)
            _exit(1);
        launch.bootstrap =
            std::make_unique<StreamBootstrap>(BootstrapKind::local, fds[1], 1, timeout_ns, "127.0.0.1", "127.0.0.1");
        return launch;
    }
    close(fds[1]);
    launch.bootstrap =
        std::make_unique<StreamBootstrap>(BootstrapKind::local, fds[0], 0, timeout_ns, "127.0.0.1", "127.0.0.1");
    launch.child = child;
    return launch;
}

int reap_local_peer(pid_t child, uint64_t timeout_ns)
{
    uint64_t end_ns = monotonic_ns() + timeout_ns;
    int status = 0;
    while (true) {
        pid_t done = waitpid(child, &status, WNOHANG);
        if (done == child)
            break;
        if (done < 0 && errno != EINTR)
            return 1;
        if (monotonic_ns() >= end_ns) {
            kill(child, SIGKILL);
            waitpid(child, &status, 0);
            break;
        }
        usleep(1000);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string stream_address(int fd, bool peer)
{
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    int rc = peer ? getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length)
                  : getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    return rc == 0 ? address_text(address) : std::string();
}

} // namespace ngx
