// tcp module, the message path (see tcp_message.hpp).
#include "tcp_message.hpp"

#include "tcp_self.hpp"

#include <ngx/module_support.hpp>

#include <sys/socket.h>

#include <cerrno>

namespace ngx::tcp::detail {

// Turns the errno of a failed send()/recv() into a status, or NGX_OK when the
// call was only interrupted by a signal and should be retried.
ngx_status io_failure(const Context* c, const char* step, ngx_error* err)
{
    int e = errno;
    if (e == EINTR)
        return ngx::mod::cancelled(c->cancel) ? fail(err, NGX_ERR_INTERRUPTED, "%s: interrupted", step) : NGX_OK;
    if (e == EAGAIN || e == EWOULDBLOCK)
        return fail(err, NGX_ERR_TIMEOUT, "%s: no progress from the peer within %.1f s (is it alive?)", step,
                    double(c->timeout_ns) / 1e9);
    if (e == ECONNRESET || e == EPIPE || e == ENOTCONN || e == ETIMEDOUT || e == EHOSTUNREACH)
        return fail(err, NGX_ERR_PEER_LOST, "%s: the peer closed the connection (%s)", step, errno_text(e));
    return fail(err, NGX_ERR_SYSTEM, "%s: %s", step, errno_text(e));
}

namespace {

// A short transfer means a signal or a timeout cut the call; a raised cancel
// flag stops there, anything else goes round the loop again.
ngx_status after_short_transfer(const Context* c, const char* step, ngx_error* err)
{
    if (ngx::mod::cancelled(c->cancel))
        return fail(err, NGX_ERR_INTERRUPTED, "%s: interrupted", step);
    return NGX_OK;
}

} // namespace

ngx_status tcp_send(void* ctx, const void* buf, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    const char* p = static_cast<const char*>(buf);
    if (c->to_self) [[unlikely]]
        return self_send(c, p, len, err);
    for (;;) {
        ssize_t n = ::send(c->fd, p, len, MSG_NOSIGNAL);
        if (n == ssize_t(len))
            return NGX_OK;
        ngx_status s = n < 0 ? io_failure(c, "send", err) : after_short_transfer(c, "send", err);
        if (s != NGX_OK)
            return s;
        if (n > 0) {
            p += n;
            len -= size_t(n);
        }
    }
}

namespace {

// --tcp-progress poll: recv(MSG_DONTWAIT) until the whole message is there,
// the deadline checked every 1024 empty polls.
ngx_status tcp_recv_polling(Context* c, char* p, size_t len, ngx_error* err)
{
    ngx::mod::Deadline deadline(c->timeout_ns);
    while (len > 0) {
        ssize_t n = ::recv(c->fd, p, len, MSG_DONTWAIT);
        if (n > 0) {
            p += n;
            len -= size_t(n);
            continue;
        }
        if (n == 0)
            return fail(err, NGX_ERR_PEER_LOST, "recv: the peer closed the connection");
        if (errno != EAGAIN && errno != EWOULDBLOCK) {
            if (ngx_status s = io_failure(c, "recv", err); s != NGX_OK)
                return s;
        } else if (deadline.poll_expired()) {
            return fail(err, NGX_ERR_TIMEOUT, "recv: no progress from the peer within %.1f s (is it alive?)",
                        deadline.seconds());
        } else if (ngx::mod::cancelled(c->cancel)) {
            return fail(err, NGX_ERR_INTERRUPTED, "recv: interrupted");
        }
    }
    return NGX_OK;
}

} // namespace

ngx_status tcp_recv(void* ctx, void* buf, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    char* p = static_cast<char*>(buf);
    if (c->to_self) [[unlikely]]
        return self_recv(c, p, len, err);
    if (c->options.poll)
        return tcp_recv_polling(c, p, len, err);
    for (;;) {
        ssize_t n = ::recv(c->fd, p, len, 0);
        if (n == ssize_t(len))
            return NGX_OK;
        if (n == 0)
            return fail(err, NGX_ERR_PEER_LOST, "recv: the peer closed the connection");
        ngx_status s = n < 0 ? io_failure(c, "recv", err) : after_short_transfer(c, "recv", err);
        if (s != NGX_OK)
            return s;
        if (n > 0) {
            p += n;
            len -= size_t(n);
        }
    }
}

} // namespace ngx::tcp::detail
