// tcp module, connection setup (see tcp_connect.hpp and, for the rules,
// tcp.cpp).
#include "tcp_connect.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <utility>

namespace ngx::tcp::detail {

namespace {

constexpr int retry_pause_ms = 20;

std::string listen_host(const Context& c, const ngx_bootstrap* boot)
{
    if (!c.options.address.empty())
        return c.options.address;
    if (boot->local_address != nullptr)
        return boot->local_address;
    return "";
}

// The port the listening rank binds: tcp-port, plus the rank with --tcp-port-per-rank.
ngx_status listen_port(const Context& c, const ngx_bootstrap* boot, std::string* out, ngx_error* err)
{
    unsigned port = c.options.port;
    if (c.options.port_per_rank)
        port += unsigned(boot->rank);
    if (port > 65535)
        return fail(err, NGX_ERR_INVALID_OPTION, "--tcp-port %u plus rank %d is above 65535 (--tcp-port-per-rank)",
                    unsigned(c.options.port), boot->rank);
    *out = std::to_string(port);
    return NGX_OK;
}

} // namespace

ngx_status open_listener(const Context& c, const std::string& host, const std::string& port, Socket* out,
                         ngx_error* err)
{
    AddrInfo addresses;
    if (ngx_status s = addresses.resolve(host.empty() ? nullptr : host.c_str(), port.c_str(), true, "listen", err);
        s != NGX_OK)
        return s;
    int last_errno = 0;
    for (const addrinfo* ai = addresses.begin(); ai != nullptr; ai = ai->ai_next) {
        Socket s(socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol));
        if (!s.valid()) {
            last_errno = errno;
            continue;
        }
        int one = 1;
        if (c.options.port != 0)
            setsockopt(s.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (ngx_status st = apply_buffer_sizes(s.get(), c.options, err); st != NGX_OK)
            return st;
        if (bind(s.get(), ai->ai_addr, ai->ai_addrlen) == 0 && listen(s.get(), 1) == 0) {
            *out = std::move(s);
            return NGX_OK;
        }
        last_errno = errno;
    }
    return fail(err, NGX_ERR_SYSTEM, "listen on %s:%s: %s", host.empty() ? "*" : host.c_str(), port.c_str(),
                errno_text(last_errno));
}

// What the listening rank tells its peer: the bound address, or only the port
// when it listens on every address (the peer then uses its peer_address).
ngx_status describe_listener(int fd, std::string* out, ngx_error* err)
{
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
        return fail(err, NGX_ERR_SYSTEM, "getsockname: %s", errno_text(errno));
    std::string text = join_host_port(addr);
    if (is_wildcard(addr))
        text = text.substr(text.rfind(':')); // ":port"
    *out = text;
    return NGX_OK;
}

namespace {

ngx_status accept_peer(Context* c, int listener, ngx_error* err)
{
    ngx::mod::Deadline deadline(c->timeout_ns);
    for (;;) {
        if (ngx_status s = ngx::mod::wait_fd(listener, POLLIN, deadline, c->cancel, "accept", err); s != NGX_OK)
            return s;
        int fd = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd >= 0) {
            c->fd = fd;
            return prepare_connected(fd, c->timeout_ns, err);
        }
        if (errno != EINTR && errno != ECONNABORTED && errno != EAGAIN)
            return fail(err, NGX_ERR_SYSTEM, "accept: %s", errno_text(errno));
    }
}

} // namespace

// One non-blocking connect attempt, completed with poll() under the deadline.
// Returns the errno of a failed attempt in *attempt_errno with NGX_OK status
// so that the caller can decide to retry.
ngx_status try_connect(Context* c, const addrinfo* ai, const ngx::mod::Deadline& deadline, Socket* out,
                       int* attempt_errno, ngx_error* err)
{
    Socket s(socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol));
    if (!s.valid())
        return fail(err, NGX_ERR_SYSTEM, "socket: %s", errno_text(errno));
    if (ngx_status st = apply_buffer_sizes(s.get(), c->options, err); st != NGX_OK)
        return st;
    *attempt_errno = 0;
    if (::connect(s.get(), ai->ai_addr, ai->ai_addrlen) != 0) {
        if (errno != EINPROGRESS) {
            *attempt_errno = errno;
            return NGX_OK;
        }
        if (ngx_status st = ngx::mod::wait_fd(s.get(), POLLOUT, deadline, c->cancel, "connect", err); st != NGX_OK)
            return st;
        socklen_t len = sizeof *attempt_errno;
        getsockopt(s.get(), SOL_SOCKET, SO_ERROR, attempt_errno, &len);
        if (*attempt_errno != 0)
            return NGX_OK;
    }
    *out = std::move(s);
    return NGX_OK;
}

namespace {

ngx_status connect_to(Context* c, const std::string& host, const std::string& port, ngx_error* err)
{
    AddrInfo addresses;
    if (ngx_status s = addresses.resolve(host.c_str(), port.c_str(), false, "connect", err); s != NGX_OK)
        return s;
    ngx::mod::Deadline deadline(c->timeout_ns);
    int last_errno = 0;
    for (;;) {
        for (const addrinfo* ai = addresses.begin(); ai != nullptr; ai = ai->ai_next) {
            Socket s;
            if (ngx_status st = try_connect(c, ai, deadline, &s, &last_errno, err); st != NGX_OK)
                return st;
            if (s.valid()) {
                c->fd = s.release();
                return prepare_connected(c->fd, c->timeout_ns, err);
            }
        }
        if (deadline.remaining_ms() <= retry_pause_ms)
            return fail(err, NGX_ERR_TIMEOUT, "connect to %s:%s: %s (gave up after %.1f s)", host.c_str(), port.c_str(),
                        errno_text(last_errno), deadline.seconds());
        if (ngx::mod::cancelled(c->cancel))
            return fail(err, NGX_ERR_INTERRUPTED, "connect: interrupted");
        poll(nullptr, 0, retry_pause_ms);
    }
}

} // namespace

ngx_status connect_as_listener(Context* c, const ngx_bootstrap* boot, ngx_error* err)
{
    std::string port;
    if (ngx_status s = listen_port(*c, boot, &port, err); s != NGX_OK)
        return s;
    Socket listener;
    if (ngx_status s = open_listener(*c, listen_host(*c, boot), port, &listener, err); s != NGX_OK)
        return s;
    std::string mine;
    std::string ignored;
    if (ngx_status s = describe_listener(listener.get(), &mine, err); s != NGX_OK)
        return s;
    if (ngx_status s = ngx::mod::exchange_blob(boot, mine, &ignored, 512, err); s != NGX_OK)
        return s;
    return accept_peer(c, listener.get(), err); // the listener closes on return
}

ngx_status connect_as_dialer(Context* c, const ngx_bootstrap* boot, ngx_error* err)
{
    std::string theirs;
    if (ngx_status s = ngx::mod::exchange_blob(boot, "connect", &theirs, 512, err); s != NGX_OK)
        return s;
    std::string host;
    std::string port;
    if (!split_host_port(theirs, &host, &port))
        return fail(err, NGX_ERR_PROTOCOL, "connect: the peer sent \"%s\", expected host:port", theirs.c_str());
    // Only the peer's own host is dialled (where its bootstrap connection
    // comes from): a peer that could name any host could make this side, a
    // --listen server on behalf of whoever connects, open a connection anywhere.
    std::string peer_host = boot->peer_address != nullptr ? boot->peer_address : "127.0.0.1";
    if (!host.empty() &&
        (ngx::mod::address_key(host).empty() || ngx::mod::address_key(host) != ngx::mod::address_key(peer_host)))
        return fail(err, NGX_ERR_PROTOCOL,
                    "connect: the peer asks to be reached at %s, but it is at %s; this side dials only the peer's own "
                    "address, so that a peer cannot make it connect to another host (on the listening side, leave "
                    "--tcp-address out or give the address its bootstrap uses)",
                    host.c_str(), peer_host.c_str());
    return connect_to(c, peer_host, port, err);
}

} // namespace ngx::tcp::detail
