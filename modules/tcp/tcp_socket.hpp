// Socket helpers of the tcp module: an owning descriptor, resolved address
// lists, socket options (buffer sizes, blocking, deadlines, TCP_NODELAY) and
// "host:port" text. Used by the connection setup (tcp_connect.cpp) and by
// send to self (tcp_self.cpp).
#ifndef NGX_TCP_SOCKET_HPP
#define NGX_TCP_SOCKET_HPP

#include "tcp_context.hpp"

#include <ngx/module.h>

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <string>

namespace ngx::tcp::detail {

class Socket {
public:
    Socket() = default;
    explicit Socket(int fd) : fd_(fd) {}
    Socket(const Socket&) = delete;
    Socket& operator=(const Socket&) = delete;
    Socket(Socket&& other) noexcept : fd_(other.release()) {}
    Socket& operator=(Socket&& other) noexcept
    {
        reset(other.release());
        return *this;
    }
    ~Socket() { reset(-1); }

    int get() const { return fd_; }
    bool valid() const { return fd_ >= 0; }
    int release()
    {
        int fd = fd_;
        fd_ = -1;
        return fd;
    }
    void reset(int fd)
    {
        if (fd_ >= 0)
            ::close(fd_);
        fd_ = fd;
    }

private:
    int fd_ = -1;
};

ngx_status set_int_option(int fd, int level, int name, int value, const char* what, ngx_error* err);

// Buffer sizes go on a socket before listen()/connect() so that the window
// scale negotiated in the handshake can use them.
ngx_status apply_buffer_sizes(int fd, const Options& options, ngx_error* err);

// The connected socket as the fast path wants it: blocking, no Nagle,
// kernel-side deadlines.
ngx_status prepare_connected(int fd, uint64_t timeout_ns, ngx_error* err);

// "host:port" or "[v6host]:port", split; false if there is no port.
bool split_host_port(const std::string& text, std::string* host, std::string* port);

std::string join_host_port(const sockaddr_storage& addr);

bool is_wildcard(const sockaddr_storage& addr);

class AddrInfo {
public:
    ~AddrInfo()
    {
        if (list_ != nullptr)
            freeaddrinfo(list_);
    }
    ngx_status resolve(const char* host, const char* port, bool passive, const char* step, ngx_error* err)
    {
        addrinfo hints{};
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        hints.ai_flags = passive ? AI_PASSIVE : 0;
        int rc = getaddrinfo(host, port, &hints, &list_);
        if (rc != 0)
            return fail(err, NGX_ERR_SYSTEM, "%s: cannot resolve \"%s\": %s", step, host ? host : "*",
                        gai_strerror(rc));
        return NGX_OK;
    }
    const addrinfo* begin() const { return list_; }

private:
    addrinfo* list_ = nullptr;
};

} // namespace ngx::tcp::detail

#endif
