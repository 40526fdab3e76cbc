// The message path of the tcp module: send and recv on the selected peer's
// connection, one send() and one recv() per small message, a loop of them
// for a large one, blocking or (--tcp-progress poll) spinning on
// recv(MSG_DONTWAIT); the errno of a failed call turned into a status.
// Overview in tcp.cpp.
#ifndef NGX_TCP_MESSAGE_HPP
#define NGX_TCP_MESSAGE_HPP

#include "tcp_context.hpp"

#include <ngx/module.h>

#include <cstddef>

namespace ngx::tcp::detail {

// Turns the errno of a failed send()/recv() into a status, or NGX_OK when the
// call was only interrupted by a signal and should be retried.
ngx_status io_failure(const Context* c, const char* step, ngx_error* err);

ngx_status tcp_send(void* ctx, const void* buf, size_t len, ngx_error* err);
ngx_status tcp_recv(void* ctx, void* buf, size_t len, ngx_error* err);

} // namespace ngx::tcp::detail

#endif
