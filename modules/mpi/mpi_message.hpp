// The message path of the `mpi` module: send and recv (straight MPI_Send
// and MPI_Recv on the plain path; else in the --mpi-mode send mode, over
// the message's datatype, waited for by complete()), isend and irecv
// (MPI_I<mode>send, MPI_Irecv), test and wait. Overview in mpi.cpp.
#ifndef NGX_MPI_MESSAGE_HPP
#define NGX_MPI_MESSAGE_HPP

#include "mpi_context.hpp"

#include <cstddef>

namespace ngx::mpi::detail {

ngx_status mpi_isend(void* ctx, const void* buf, size_t len, ngx_request* req, ngx_error* err);
ngx_status mpi_send(void* ctx, const void* buf, size_t len, ngx_error* err);
ngx_status mpi_irecv(void* ctx, void* buf, size_t len, ngx_request* req, ngx_error* err);
ngx_status mpi_recv(void* ctx, void* buf, size_t len, ngx_error* err);
ngx_status mpi_test(void* ctx, ngx_request* req, int* done, ngx_error* err);
ngx_status mpi_wait(void* ctx, ngx_request* req, ngx_error* err);

} // namespace ngx::mpi::detail

#endif
