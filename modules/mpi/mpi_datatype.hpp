// Datatypes of the `mpi` module, the hook for strided data: the MPI
// datatype and count a message of len bytes is sent as (MPI_BYTE, an
// MPI_Type_vector of bytes for --mpi-vector-stride, or one of the elements
// set_layout chose, ABI 1.2), and the bytes such a message spans in its
// buffer. Overview in mpi.cpp.
#ifndef NGX_MPI_DATATYPE_HPP
#define NGX_MPI_DATATYPE_HPP

#include "mpi_context.hpp"

#include <cstddef>

namespace ngx::mpi::detail {

// The bytes a message of `len` data bytes spans in its buffer: len, or with
// a vector type (len / block) blocks `stride` apart.
size_t layout_extent(const Options& o, size_t len);

// The datatype and count for a message of `len` bytes: MPI_BYTE x len, the
// set_layout elements, or one MPI_Type_vector (cached in the Context).
ngx_status make_datatype(Context* c, size_t len, MPI_Datatype* type, int* count, ngx_error* err);

// ABI 1.2 set_layout: MPI_Type_vector(n, 1, stride) of MPI_DOUBLE, MPI_INT
// or MPI_CHAR, and with to_self messages to this rank itself.
ngx_status mpi_set_layout(void* ctx, const ngx_layout* layout, ngx_error* err);

} // namespace ngx::mpi::detail

#endif
