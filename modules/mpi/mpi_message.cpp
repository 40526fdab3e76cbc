// mpi module, the message path (see mpi_message.hpp).
#include "mpi_message.hpp"

#include "mpi_datatype.hpp"
#include "mpi_ready.hpp"

#include <cstring>

namespace ngx::mpi::detail {
namespace {

int start_send(const Context* c, const void* buf, int count, MPI_Datatype type, MPI_Request* request)
{
    switch (c->options.mode) {
    case Mode::synchronous:
    case Mode::issend:
        return MPI_Issend(buf, count, type, c->target, tag_message, c->comm, request);
    case Mode::ready:
    case Mode::irsend:
        return MPI_Irsend(buf, count, type, c->target, tag_message, c->comm, request);
    case Mode::buffered:
    case Mode::ibsend:
        return MPI_Ibsend(buf, count, type, c->target, tag_message, c->comm, request);
    default:
        return MPI_Isend(buf, count, type, c->target, tag_message, c->comm, request);
    }
}

int blocking_send(const Context* c, const void* buf, int count, MPI_Datatype type)
{
    switch (c->options.mode) {
    case Mode::synchronous:
        return MPI_Ssend(buf, count, type, c->target, tag_message, c->comm);
    case Mode::ready:
        return MPI_Rsend(buf, count, type, c->target, tag_message, c->comm);
    case Mode::buffered:
        return MPI_Bsend(buf, count, type, c->target, tag_message, c->comm);
    default:
        return MPI_Send(buf, count, type, c->target, tag_message, c->comm);
    }
}

} // namespace

ngx_status mpi_isend(void* ctx, const void* buf, size_t len, ngx_request* req, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (is_ready(c->options.mode))
        if (ngx_status s = ready_to_send(c, err); s != NGX_OK)
            return s;
    MPI_Datatype type = MPI_BYTE;
    int count = 0;
    if (ngx_status s = make_datatype(c, len, &type, &count, err); s != NGX_OK)
        return s;
    MPI_Request request;
    int code = start_send(c, buf, count, type, &request);
    if (code != MPI_SUCCESS)
        return mpi_fail(err, code, "isend");
    std::memcpy(req, &request, sizeof request);
    return NGX_OK;
}

ngx_status mpi_send(void* ctx, const void* buf, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (c->plain_path) [[likely]] {
        int code = MPI_Send(buf, int(len), MPI_BYTE, c->target, tag_message, c->comm);
        return code == MPI_SUCCESS ? NGX_OK : mpi_fail(err, code, "send");
    }
    if (c->repost_due)
        if (ngx_status s = repost_if_due(c, err); s != NGX_OK)
            return s;
    if (c->options.poll || is_nonblocking(c->options.mode) || (is_ready(c->options.mode) && !c->peer_ready)) {
        ngx_request req = 0;
        if (ngx_status s = mpi_isend(ctx, buf, len, &req, err); s != NGX_OK)
            return s;
        MPI_Request request;
        std::memcpy(&request, &req, sizeof request);
        return complete(c, &request, MPI_STATUS_IGNORE, "send", err);
    }
    MPI_Datatype type = MPI_BYTE;
    int count = 0;
    if (ngx_status s = make_datatype(c, len, &type, &count, err); s != NGX_OK)
        return s;
    int code = blocking_send(c, buf, count, type);
    return code == MPI_SUCCESS ? NGX_OK : mpi_fail(err, code, "send");
}

ngx_status mpi_irecv(void* ctx, void* buf, size_t len, ngx_request* req, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (ngx_status s = repost_if_due(c, err); s != NGX_OK)
        return s;
    if (c->preposted != MPI_REQUEST_NULL)
        return irecv_preposted(c, buf, len, req);
    MPI_Datatype type = MPI_BYTE;
    int count = 0;
    if (ngx_status s = make_datatype(c, len, &type, &count, err); s != NGX_OK)
        return s;
    MPI_Request request;
    int code = MPI_Irecv(buf, count, type, c->target, tag_message, c->comm, &request);
    if (code != MPI_SUCCESS)
        return mpi_fail(err, code, "irecv");
    std::memcpy(req, &request, sizeof request);
    return NGX_OK;
}

ngx_status mpi_recv(void* ctx, void* buf, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (c->plain_path) [[likely]] {
        int code = MPI_Recv(buf, int(len), MPI_BYTE, c->target, tag_message, c->comm, MPI_STATUS_IGNORE);
        return code == MPI_SUCCESS ? NGX_OK : mpi_fail(err, code, "recv");
    }
    if (c->repost_due)
        if (ngx_status s = repost_if_due(c, err); s != NGX_OK)
            return s;
    if (c->preposted != MPI_REQUEST_NULL)
        return recv_preposted(c, buf, len, err);
    if (c->options.poll || is_nonblocking(c->options.mode)) {
        ngx_request req = 0;
        if (ngx_status s = mpi_irecv(ctx, buf, len, &req, err); s != NGX_OK)
            return s;
        MPI_Request request;
        std::memcpy(&request, &req, sizeof request);
        return complete(c, &request, MPI_STATUS_IGNORE, "recv", err);
    }
    MPI_Datatype type = MPI_BYTE;
    int count = 0;
    if (ngx_status s = make_datatype(c, len, &type, &count, err); s != NGX_OK)
        return s;
    int code = MPI_Recv(buf, count, type, c->target, tag_message, c->comm, MPI_STATUS_IGNORE);
    return code == MPI_SUCCESS ? NGX_OK : mpi_fail(err, code, "recv");
}

ngx_status mpi_test(void* ctx, ngx_request* req, int* done, ngx_error* err)
{
    if (*req == preposted_request)
        return test_preposted(static_cast<Context*>(ctx), req, done, err);
    MPI_Request request;
    std::memcpy(&request, req, sizeof request);
    int code = MPI_Test(&request, done, MPI_STATUS_IGNORE);
    std::memcpy(req, &request, sizeof request);
    return code == MPI_SUCCESS ? NGX_OK : mpi_fail(err, code, "test");
}

ngx_status mpi_wait(void* ctx, ngx_request* req, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (*req == preposted_request) {
        *req = 0;
        return recv_preposted(c, c->ready_target, c->ready_len, err);
    }
    MPI_Request request;
    std::memcpy(&request, req, sizeof request);
    ngx_status s = complete(c, &request, MPI_STATUS_IGNORE, "wait", err);
    std::memcpy(req, &request, sizeof request);
    return s;
}

} // namespace ngx::mpi::detail
