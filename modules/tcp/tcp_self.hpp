// Send to self of the tcp module (NGX_CAP_SEND_TO_SELF, set_layout with
// to_self; the strided pattern's T_0,0): a second TCP connection, from this
// process to itself over the loopback, opened at the first such call. Its
// sockets are non-blocking: send() pushes what the socket takes and leaves
// the rest to the recv() that follows, which pushes it while it drains the
// other end, since one thread cannot block in both.
#ifndef NGX_TCP_SELF_HPP
#define NGX_TCP_SELF_HPP

#include "tcp_context.hpp"

#include <ngx/module.h>

#include <cstddef>

namespace ngx::tcp::detail {

ngx_status self_send(Context* c, const char* p, size_t len, ngx_error* err);
ngx_status self_recv(Context* c, char* p, size_t len, ngx_error* err);

// set_layout: contiguous bytes only; to_self opens the loopback connection
// at its first use and routes send/recv through it.
ngx_status tcp_set_layout(void* ctx, const ngx_layout* layout, ngx_error* err);

} // namespace ngx::tcp::detail

#endif
