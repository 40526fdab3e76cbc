// Deadlines on the stream sockets of the bootstraps, shared by the framed
// channel and the local launch (stream_bootstrap.cpp) and the TCP rendezvous
// (tcp_rendezvous.cpp): a wait for a socket bounded by a deadline, and the
// texts of their messages.
//
//     NGX_TRY(stream_io::wait_for(fd, POLLIN, end_ns, "handshake", timeout_ns));
#ifndef NGX_STREAM_IO_HPP
#define NGX_STREAM_IO_HPP

#include <ngx/status.hpp>

#include <cstdint>
#include <string>
#include <sys/socket.h>

namespace ngx::stream_io {

// CLOCK_MONOTONIC in nanoseconds: the clock of every deadline here.
uint64_t monotonic_ns();

// "0.5 s": a timeout in the messages.
std::string seconds_text(uint64_t ns);

// strerror(errno).
std::string errno_text();

// How a wait takes SIGINT/SIGTERM. The run's channels end it when the signal
// interrupts poll() (EINTR) and leave the rest to the caller's interrupt
// check, so that a run winding down after Ctrl-C can still talk to its peer.
// The rendezvous of a --listen server also checks the flag between slices of
// poll(): a signal that came between two system calls leaves no EINTR behind,
// and a server waiting for a stranger must still end at once.
enum class OnSignal { eintr, flag };

// Waits for `events` on fd until end_ns ("timeout" names the step when it passes).
Status wait_for(int fd, short events, uint64_t end_ns, const std::string& step, uint64_t timeout_ns,
                OnSignal on_signal = OnSignal::eintr);

// The numeric address of an IPv4 or IPv6 socket address ("" for another family).
std::string address_text(const sockaddr_storage& address);

} // namespace ngx::stream_io

#endif
