// Ready mode of the `mpi` module (--mpi-mode ready, irsend): the receive
// kept pre-posted into the first buffer from alloc(), the peer's zero-byte
// "ready" token awaited before the first ready send, and the successor
// receive posted when it is due (prepare_recv, ABI 1.3, or at the latest
// before this rank's next send or receive). An irecv in this mode is the
// pre-posted receive itself, marked by preposted_request. Overview in
// mpi.cpp.
#ifndef NGX_MPI_READY_HPP
#define NGX_MPI_READY_HPP

#include "mpi_context.hpp"

#include <cstddef>

namespace ngx::mpi::detail {

ngx_status post_receive(Context* c, ngx_error* err);

// The successor of a completed pre-posted receive (prepare_recv, ABI 1.3),
// posted before this rank's next send or receive at the latest.
ngx_status repost_if_due(Context* c, ngx_error* err);

ngx_status mpi_prepare_recv(void* ctx, ngx_error* err);

// Before a ready send: this rank's next receive posted, the peer's known posted.
ngx_status ready_to_send(Context* c, ngx_error* err);

// Ready-mode recv: completes the pre-posted receive; the next one is due.
ngx_status recv_preposted(Context* c, void* buf, size_t len, ngx_error* err);

// An irecv in ready mode is the pre-posted receive itself (a second
// MPI_Irecv would never match: the message goes to the pre-posted one). Its
// request is this marker; test and wait complete the pre-posted receive.
constexpr ngx_request preposted_request = ~ngx_request(0);

ngx_status irecv_preposted(Context* c, void* buf, size_t len, ngx_request* req);
ngx_status test_preposted(Context* c, ngx_request* req, int* done, ngx_error* err);

// Ends the pre-posted receive and takes an unread ready token, so nothing
// is left pending at MPI_Finalize.
void drop_preposted(Context* c);

} // namespace ngx::mpi::detail

#endif
