// tcp module, socket helpers (see tcp_socket.hpp).
#include "tcp_socket.hpp"

#include <ngx/module_support.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/time.h>

#include <cerrno>
#include <cstdio>

namespace ngx::tcp::detail {

ngx_status set_int_option(int fd, int level, int name, int value, const char* what, ngx_error* err)
{
    if (setsockopt(fd, level, name, &value, sizeof value) != 0)
        return fail(err, NGX_ERR_SYSTEM, "setsockopt(%s=%d): %s", what, value, errno_text(errno));
    return NGX_OK;
}

// Buffer sizes go on a socket before listen()/connect() so that the window
// scale negotiated in the handshake can use them.
ngx_status apply_buffer_sizes(int fd, const Options& options, ngx_error* err)
{
    if (options.sndbuf > 0)
        if (ngx_status s = set_int_option(fd, SOL_SOCKET, SO_SNDBUF, options.sndbuf, "SO_SNDBUF", err); s != NGX_OK)
            return s;
    if (options.rcvbuf > 0)
        if (ngx_status s = set_int_option(fd, SOL_SOCKET, SO_RCVBUF, options.rcvbuf, "SO_RCVBUF", err); s != NGX_OK)
            return s;
    return NGX_OK;
}

namespace {

ngx_status set_blocking(int fd, bool blocking, ngx_error* err)
{
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0)
        return fail(err, NGX_ERR_SYSTEM, "fcntl(F_GETFL): %s", errno_text(errno));
    flags = blocking ? (flags & ~O_NONBLOCK) : (flags | O_NONBLOCK);
    if (fcntl(fd, F_SETFL, flags) != 0)
        return fail(err, NGX_ERR_SYSTEM, "fcntl(F_SETFL): %s", errno_text(errno));
    return NGX_OK;
}

ngx_status set_io_timeouts(int fd, uint64_t timeout_ns, ngx_error* err)
{
    timeval tv{};
    tv.tv_sec = time_t(timeout_ns / 1000000000u);
    tv.tv_usec = suseconds_t((timeout_ns % 1000000000u) / 1000u);
    if (tv.tv_sec == 0 && tv.tv_usec == 0 && timeout_ns > 0)
        tv.tv_usec = 1; // a zero timeval would mean "wait forever"
    if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0 ||
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0)
        return fail(err, NGX_ERR_SYSTEM, "setsockopt(SO_RCVTIMEO/SO_SNDTIMEO): %s", errno_text(errno));
    return NGX_OK;
}

} // namespace

// The connected socket as the fast path wants it: blocking, no Nagle,
// kernel-side deadlines.
ngx_status prepare_connected(int fd, uint64_t timeout_ns, ngx_error* err)
{
    if (ngx_status s = set_blocking(fd, true, err); s != NGX_OK)
        return s;
    if (ngx_status s = set_int_option(fd, IPPROTO_TCP, TCP_NODELAY, 1, "TCP_NODELAY", err); s != NGX_OK)
        return s;
    return set_io_timeouts(fd, timeout_ns, err);
}

// "host:port" or "[v6host]:port", split; false if there is no port.
bool split_host_port(const std::string& text, std::string* host, std::string* port)
{
    size_t colon = text.rfind(':');
    if (colon == std::string::npos || colon + 1 == text.size())
        return false;
    std::string h = text.substr(0, colon);
    if (h.size() >= 2 && h.front() == '[' && h.back() == ']')
        h = h.substr(1, h.size() - 2);
    *host = h;
    *port = text.substr(colon + 1);
    return true;
}

std::string join_host_port(const sockaddr_storage& addr)
{
    char host[INET6_ADDRSTRLEN] = "";
    char text[INET6_ADDRSTRLEN + 16];
    if (addr.ss_family == AF_INET6) {
        const auto& a6 = reinterpret_cast<const sockaddr_in6&>(addr);
        inet_ntop(AF_INET6, &a6.sin6_addr, host, sizeof host);
        std::snprintf(text, sizeof text, "[%s]:%u", host, unsigned(ntohs(a6.sin6_port)));
    } else {
        const auto& a4 = reinterpret_cast<const sockaddr_in&>(addr);
        inet_ntop(AF_INET, &a4.sin_addr, host, sizeof host);
        std::snprintf(text, sizeof text, "%s:%u", host, unsigned(ntohs(a4.sin_port)));
    }
    return text;
}

bool is_wildcard(const sockaddr_storage& addr)
{
    if (addr.ss_family == AF_INET6) {
        const auto& a6 = reinterpret_cast<const sockaddr_in6&>(addr);
        return IN6_IS_ADDR_UNSPECIFIED(&a6.sin6_addr);
    }
    return reinterpret_cast<const sockaddr_in&>(addr).sin_addr.s_addr == htonl(INADDR_ANY);
}

} // namespace ngx::tcp::detail
