// tcp module, send to self (see tcp_self.hpp).
#include "tcp_self.hpp"

#include "tcp_connect.hpp"
#include "tcp_message.hpp"
#include "tcp_socket.hpp"

#include <ngx/module_support.hpp>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <string>

namespace ngx::tcp::detail {

namespace {

// Opens the loopback connection of this process to itself, both ends
// non-blocking and without Nagle.
ngx_status open_self_link(Context* c, ngx_error* err)
{
    sockaddr_storage mine{};
    socklen_t len = sizeof mine;
    bool v6 = getsockname(c->fd, reinterpret_cast<sockaddr*>(&mine), &len) == 0 && mine.ss_family == AF_INET6;
    Socket listener;
    if (ngx_status s = open_listener(*c, v6 ? "::1" : "127.0.0.1", "0", &listener, err); s != NGX_OK)
        return s;
    std::string where, host, port;
    if (ngx_status s = describe_listener(listener.get(), &where, err); s != NGX_OK)
        return s;
    AddrInfo address;
    if (!split_host_port(where, &host, &port))
        return fail(err, NGX_ERR_SYSTEM, "send to self: the loopback listener is at \"%s\"", where.c_str());
    if (ngx_status s = address.resolve(host.c_str(), port.c_str(), false, "connect to self", err); s != NGX_OK)
        return s;
    ngx::mod::Deadline deadline(c->timeout_ns);
    Socket out;
    int connect_errno = 0;
    if (ngx_status s = try_connect(c, address.begin(), deadline, &out, &connect_errno, err); s != NGX_OK)
        return s;
    if (!out.valid())
        return fail(err, NGX_ERR_SYSTEM, "send to self: connect to %s: %s", where.c_str(), errno_text(connect_errno));
    if (ngx_status s = ngx::mod::wait_fd(listener.get(), POLLIN, deadline, c->cancel, "accept from self", err);
        s != NGX_OK)
        return s;
    Socket in(accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
    if (!in.valid())
        return fail(err, NGX_ERR_SYSTEM, "send to self: accept: %s", errno_text(errno));
    for (int fd : {out.get(), in.get()})
        if (ngx_status s = set_int_option(fd, IPPROTO_TCP, TCP_NODELAY, 1, "TCP_NODELAY", err); s != NGX_OK)
            return s;
    c->self.out = out.release();
    c->self.in = in.release();
    return NGX_OK;
}

// A send(MSG_DONTWAIT) of what is pending; false on a real error (status in *s).
bool push_pending(Context* c, ngx_status* s, ngx_error* err)
{
    SelfLink& l = c->self;
    if (l.pending_len == 0)
        return true;
    ssize_t n = ::send(l.out, l.pending, l.pending_len, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) {
        l.pending += n;
        l.pending_len -= size_t(n);
    } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        *s = io_failure(c, "send to self", err);
        return false;
    }
    return true;
}

} // namespace

ngx_status self_send(Context* c, const char* p, size_t len, ngx_error* err)
{
    if (c->self.pending_len != 0)
        return fail(err, NGX_ERR_PROTOCOL, "send to self: the previous message (%zu bytes left) was not received",
                    c->self.pending_len);
    c->self.pending = p;
    c->self.pending_len = len;
    ngx_status s = NGX_OK;
    push_pending(c, &s, err);
    return s;
}

ngx_status self_recv(Context* c, char* p, size_t len, ngx_error* err)
{
    ngx::mod::Deadline deadline(c->timeout_ns);
    while (len > 0) {
        ngx_status s = NGX_OK;
        size_t before = c->self.pending_len;
        if (!push_pending(c, &s, err))
            return s;
        ssize_t n = ::recv(c->self.in, p, len, MSG_DONTWAIT);
        if (n > 0) {
            p += n;
            len -= size_t(n);
            continue;
        }
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            return io_failure(c, "recv from self", err);
        if (c->self.pending_len != before)
            continue;
        if (deadline.poll_expired())
            return fail(err, NGX_ERR_TIMEOUT, "recv from self: %zu bytes missing after %.1f s (more than was sent?)",
                        len, deadline.seconds());
        if (ngx::mod::cancelled(c->cancel))
            return fail(err, NGX_ERR_INTERRUPTED, "recv from self: interrupted");
    }
    return NGX_OK;
}

// Only the address changes: tcp moves bytes, the pattern packs strided data.
ngx_status tcp_set_layout(void* ctx, const ngx_layout* layout, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (layout->stride != 1)
        return fail(err, NGX_ERR_UNSUPPORTED, "set_layout: tcp moves contiguous bytes, not stride %zu", layout->stride);
    if (layout->to_self && c->self.out < 0)
        if (ngx_status s = open_self_link(c, err); s != NGX_OK)
            return s;
    c->to_self = layout->to_self != 0;
    return NGX_OK;
}

} // namespace ngx::tcp::detail
