// mpi module, collectives (see mpi_collective.hpp).
#include "mpi_collective.hpp"

#include "mpi_datatype.hpp"

#include <limits>

namespace ngx::mpi::detail {

ngx_status mpi_bcast(void* ctx, void* buf, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    MPI_Datatype type = MPI_BYTE;
    int count = 0;
    if (ngx_status s = make_datatype(c, len, &type, &count, err); s != NGX_OK)
        return s;
    if (!c->options.poll) {
        int code = MPI_Bcast(buf, count, type, 0, c->comm);
        return code == MPI_SUCCESS ? NGX_OK : mpi_fail(err, code, "MPI_Bcast");
    }
    MPI_Request request;
    int code = MPI_Ibcast(buf, count, type, 0, c->comm, &request);
    if (code != MPI_SUCCESS)
        return mpi_fail(err, code, "MPI_Ibcast");
    return complete(c, &request, MPI_STATUS_IGNORE, "bcast", err);
}

namespace {

// ABI 1.6: the MPI library's own collectives over every rank, root 0
// (the buffers: module.h). With --mpi-poll the non-blocking form (MPI-3)
// completed by polling, as bcast does.
ngx_status start_collective(Context* c, int op, const void* send, void* recv, size_t bytes, MPI_Request* request,
                            ngx_error* err)
{
    const bool doubles = bytes % sizeof(double) == 0;
    const MPI_Datatype sum_type = doubles ? MPI_DOUBLE : MPI_UNSIGNED_CHAR;
    const int sum_count = int(doubles ? bytes / sizeof(double) : bytes), count = int(bytes);
    const bool blocking = !c->options.poll;
    int code = MPI_SUCCESS;
    switch (op) {
    case NGX_COLL_BCAST:
        code = blocking ? MPI_Bcast(recv, count, MPI_BYTE, 0, c->comm)
                        : MPI_Ibcast(recv, count, MPI_BYTE, 0, c->comm, request);
        break;
    case NGX_COLL_REDUCE:
        code = blocking ? MPI_Reduce(send, recv, sum_count, sum_type, MPI_SUM, 0, c->comm)
                        : MPI_Ireduce(send, recv, sum_count, sum_type, MPI_SUM, 0, c->comm, request);
        break;
    case NGX_COLL_ALLREDUCE:
        code = blocking ? MPI_Allreduce(send, recv, sum_count, sum_type, MPI_SUM, c->comm)
                        : MPI_Iallreduce(send, recv, sum_count, sum_type, MPI_SUM, c->comm, request);
        break;
    case NGX_COLL_ALLGATHER:
        code = blocking ? MPI_Allgather(send, count, MPI_BYTE, recv, count, MPI_BYTE, c->comm)
                        : MPI_Iallgather(send, count, MPI_BYTE, recv, count, MPI_BYTE, c->comm, request);
        break;
    case NGX_COLL_ALLTOALL:
        code = blocking ? MPI_Alltoall(send, count, MPI_BYTE, recv, count, MPI_BYTE, c->comm)
                        : MPI_Ialltoall(send, count, MPI_BYTE, recv, count, MPI_BYTE, c->comm, request);
        break;
    case NGX_COLL_GATHER:
        code = blocking ? MPI_Gather(send, count, MPI_BYTE, recv, count, MPI_BYTE, 0, c->comm)
                        : MPI_Igather(send, count, MPI_BYTE, recv, count, MPI_BYTE, 0, c->comm, request);
        break;
    case NGX_COLL_SCATTER:
        code = blocking ? MPI_Scatter(send, count, MPI_BYTE, recv, count, MPI_BYTE, 0, c->comm)
                        : MPI_Iscatter(send, count, MPI_BYTE, recv, count, MPI_BYTE, 0, c->comm, request);
        break;
    case NGX_COLL_BARRIER:
        code = blocking ? MPI_Barrier(c->comm) : MPI_Ibarrier(c->comm, request);
        break;
    default:
        return fail(err, NGX_ERR_UNSUPPORTED, "collective: no operation %d", op);
    }
    return code == MPI_SUCCESS ? NGX_OK : mpi_fail(err, code, "collective");
}

} // namespace

ngx_status mpi_collective(void* ctx, int op, const void* send, void* recv, size_t bytes, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (bytes > size_t(std::numeric_limits<int>::max()))
        return fail(err, NGX_ERR_INVALID_OPTION, "collective: %zu bytes exceed MPI's int count", bytes);
    MPI_Request request = MPI_REQUEST_NULL;
    if (ngx_status s = start_collective(c, op, send, recv, bytes, &request, err); s != NGX_OK)
        return s;
    return c->options.poll ? complete(c, &request, MPI_STATUS_IGNORE, "collective", err) : NGX_OK;
}

} // namespace ngx::mpi::detail
