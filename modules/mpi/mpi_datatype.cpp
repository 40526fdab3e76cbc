// mpi module, datatypes (see mpi_datatype.hpp).
#include "mpi_datatype.hpp"

#include <cstdint>

namespace ngx::mpi::detail {

// The bytes a message of `len` data bytes spans in its buffer: len, or with
// a vector type (len / block) blocks `stride` apart.
size_t layout_extent(const Options& o, size_t len)
{
    if (o.vector_stride == 0 || len < o.vector_block)
        return len;
    return (len / o.vector_block - 1) * o.vector_stride + o.vector_block;
}

namespace {

// One committed MPI_Type_vector of `blocks` blocks of `block` elements,
// `stride` apart, for messages of `len` bytes: built once per length and
// kept in the context (freed when the length changes).
ngx_status cached_vector(Context* c, size_t len, int blocks, int block, int stride, MPI_Datatype element,
                         MPI_Datatype* type, int* count, ngx_error* err)
{
    if (c->vector_type == MPI_DATATYPE_NULL || c->vector_len != len) {
        if (c->vector_type != MPI_DATATYPE_NULL)
            MPI_Type_free(&c->vector_type);
        int code = MPI_Type_vector(blocks, block, stride, element, &c->vector_type);
        if (code == MPI_SUCCESS)
            code = MPI_Type_commit(&c->vector_type);
        if (code != MPI_SUCCESS)
            return mpi_fail(err, code, "MPI_Type_vector");
        c->vector_len = len;
    }
    *type = c->vector_type;
    *count = 1;
    return NGX_OK;
}

// The datatype and count for a message of `len` bytes: MPI_BYTE x len, or
// one MPI_Type_vector when --mpi-vector-stride is set.
ngx_status make_element_vector(Context* c, size_t len, MPI_Datatype* type, int* count, ngx_error* err)
{
    if (len % c->element_size != 0)
        return fail(err, NGX_ERR_INVALID_OPTION, "message of %zu bytes is not a whole number of %zu-byte elements", len,
                    c->element_size);
    if (c->element_stride == 1) {
        *type = c->element_type;
        *count = int(len / c->element_size);
        return NGX_OK;
    }
    return cached_vector(c, len, int(len / c->element_size), 1, int(c->element_stride), c->element_type, type, count,
                         err);
}

} // namespace

ngx_status make_datatype(Context* c, size_t len, MPI_Datatype* type, int* count, ngx_error* err)
{
    if (len != 0 && (c->element_type != MPI_BYTE || c->element_stride != 1))
        return make_element_vector(c, len, type, count, err);
    if (c->options.vector_stride == 0 || len == 0) {
        *type = MPI_BYTE;
        *count = int(len);
        return NGX_OK;
    }
    const size_t block = c->options.vector_block;
    if (len % block != 0)
        return fail(err, NGX_ERR_INVALID_OPTION, "message of %zu bytes is not a multiple of --mpi-vector-block=%zu",
                    len, block);
    return cached_vector(c, len, int(len / block), int(block), int(c->options.vector_stride), MPI_BYTE, type, count,
                         err);
}

ngx_status mpi_set_layout(void* ctx, const ngx_layout* layout, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    MPI_Datatype element = MPI_DATATYPE_NULL;
    switch (layout->element) {
    case 1:
        element = MPI_CHAR;
        break;
    case 4:
        element = MPI_INT;
        break;
    case 8:
        element = MPI_DOUBLE;
        break;
    default:
        return fail(err, NGX_ERR_INVALID_OPTION, "set_layout: elements of %zu bytes (expected 1, 4 or 8)",
                    layout->element);
    }
    if (layout->stride < 1 || layout->stride > size_t(INT32_MAX))
        return fail(err, NGX_ERR_INVALID_OPTION, "set_layout: stride %zu (expected 1..%d elements)", layout->stride,
                    INT32_MAX);
    if (layout->to_self && is_ready(c->options.mode))
        return fail(err, NGX_ERR_UNSUPPORTED, "set_layout: send to self is not offered in ready mode");
    if (c->vector_type != MPI_DATATYPE_NULL)
        MPI_Type_free(&c->vector_type);
    c->element_type = element;
    c->element_size = layout->element;
    c->element_stride = layout->stride;
    c->to_self = layout->to_self != 0;
    c->target = layout->to_self ? c->self : c->peer;
    update_plain_path(c);
    return NGX_OK;
}

} // namespace ngx::mpi::detail
