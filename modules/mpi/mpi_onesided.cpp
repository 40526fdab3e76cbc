// mpi module, one-sided operations (see mpi_onesided.hpp).
#include "mpi_onesided.hpp"

namespace ngx::mpi::detail {

ngx_status mpi_expose(void* ctx, const ngx_bootstrap* boot, void* buf, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (c->comm == MPI_COMM_NULL)
        return fail(err, NGX_ERR_PROTOCOL, "expose: connect first");
    ngx::mpi::RmaSettings settings{c->options.rma_sync, c->options.poll, c->timeout_ns, c->cancel};
    return c->window.expose(boot, c->comm, boot->peer, buf, len, settings, err);
}

ngx_status mpi_put(void* ctx, const void* local, size_t offset, size_t len, ngx_error* err)
{
    return static_cast<Context*>(ctx)->window.put(local, offset, len, err);
}

ngx_status mpi_get(void* ctx, void* local, size_t offset, size_t len, ngx_error* err)
{
    return static_cast<Context*>(ctx)->window.get(local, offset, len, err);
}

ngx_status mpi_flush(void* ctx, ngx_error* err)
{
    return static_cast<Context*>(ctx)->window.flush(err);
}

} // namespace ngx::mpi::detail
