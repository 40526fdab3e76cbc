// The one-sided operations of the `mpi` module (ABI 1.7,
// NGX_CAP_ONE_SIDED): expose, put, get and flush, each handed to the
// Context's window (window.hpp, where the synchronizations are described).
#ifndef NGX_MPI_ONESIDED_HPP
#define NGX_MPI_ONESIDED_HPP

#include "mpi_context.hpp"

#include <cstddef>

namespace ngx::mpi::detail {

ngx_status mpi_expose(void* ctx, const ngx_bootstrap* boot, void* buf, size_t len, ngx_error* err);
ngx_status mpi_put(void* ctx, const void* local, size_t offset, size_t len, ngx_error* err);
ngx_status mpi_get(void* ctx, void* local, size_t offset, size_t len, ngx_error* err);
ngx_status mpi_flush(void* ctx, ngx_error* err);

} // namespace ngx::mpi::detail

#endif
