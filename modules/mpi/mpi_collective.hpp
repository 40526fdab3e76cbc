// Collectives of the `mpi` module over every rank of the run, root 0:
// bcast (ABI 1.2, MPI_Bcast of the message's datatype) and collective
// (ABI 1.6, the library's own MPI_Bcast, MPI_Reduce, MPI_Allreduce, ...;
// reductions MPI_SUM of MPI_DOUBLE). With --mpi-progress poll the
// non-blocking form, completed by polling. Overview in mpi.cpp.
#ifndef NGX_MPI_COLLECTIVE_HPP
#define NGX_MPI_COLLECTIVE_HPP

#include "mpi_context.hpp"

#include <cstddef>

namespace ngx::mpi::detail {

ngx_status mpi_bcast(void* ctx, void* buf, size_t len, ngx_error* err);
ngx_status mpi_collective(void* ctx, int op, const void* send, void* recv, size_t bytes, ngx_error* err);

} // namespace ngx::mpi::detail

#endif
