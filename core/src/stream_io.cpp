// Deadlines on stream sockets (see stream_io.hpp).
#include "stream_io.hpp"

#include "interrupt.hpp"

#include <arpa/inet.h>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <netinet/in.h>
#include <poll.h>

#include <algorithm>

namespace ngx::stream_io {
namespace {

// The longest single poll(): how late an interrupt that raced a system call is seen.
constexpr int poll_slice_ms = 100;

int remaining_ms(uint64_t end_ns)
{
    uint64_t now = monotonic_ns();
    return now >= end_ns ? 0 : int(std::min<uint64_t>((end_ns - now + 999999) / 1000000, INT_MAX));
}

} // namespace

uint64_t monotonic_ns()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

std::string seconds_text(uint64_t ns)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.3g s", double(ns) / 1e9);
    return text;
}

std::string errno_text()
{
    return std::strerror(errno);
}

Status wait_for(int fd, short events, uint64_t end_ns, const std::string& step, uint64_t timeout_ns, OnSignal on_signal)
{
    while (true) {
        if (on_signal == OnSignal::flag && interrupt_requested())
            return Status::interrupted(step + ": interrupted");
        int wait_ms = remaining_ms(end_ns);
        pollfd entry{fd, events, 0};
        int ready = poll(&entry, 1, on_signal == OnSignal::flag ? std::min(wait_ms, poll_slice_ms) : wait_ms);
        if (ready > 0)
            return Status::ok();
        if (ready == 0 && remaining_ms(end_ns) == 0)
            return Status::runtime(step + ": the peer did not answer within " + seconds_text(timeout_ns) +
                                   " (peer lost or stopped?)");
        if (ready < 0 && errno != EINTR)
            return Status::runtime(step + ": poll: " + errno_text());
        if (ready < 0 && on_signal == OnSignal::eintr)
            return Status::interrupted(step + ": interrupted"); // the caller's interrupt check decides
        // a slice passed, or (OnSignal::flag) a signal came in: the flag check above decides
    }
}

std::string address_text(const sockaddr_storage& address)
{
    char text[INET6_ADDRSTRLEN] = "";
    if (address.ss_family == AF_INET)
        inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in&>(address).sin_addr, text, sizeof text);
    else if (address.ss_family == AF_INET6)
        inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6&>(address).sin6_addr, text, sizeof text);
    return text;
}

} // namespace ngx::stream_io
