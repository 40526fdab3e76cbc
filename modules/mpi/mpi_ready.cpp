// mpi module, ready mode's pre-posted receive (see mpi_ready.hpp).
#include "mpi_ready.hpp"

#include <cstring>

namespace ngx::mpi::detail {

ngx_status post_receive(Context* c, ngx_error* err)
{
    int code = MPI_Irecv(c->preposted_buffer, int(c->preposted_capacity), MPI_BYTE, c->peer, tag_message, c->comm,
                         &c->preposted);
    return code == MPI_SUCCESS ? NGX_OK : mpi_fail(err, code, "MPI_Irecv (pre-posted)");
}

// The successor of a completed pre-posted receive (prepare_recv, ABI 1.3),
// posted before this rank's next send or receive at the latest.
ngx_status repost_if_due(Context* c, ngx_error* err)
{
    if (!c->repost_due)
        return NGX_OK;
    c->repost_due = false;
    return post_receive(c, err);
}

ngx_status mpi_prepare_recv(void* ctx, ngx_error* err)
{
    return repost_if_due(static_cast<Context*>(ctx), err);
}

namespace {

// Before the first ready send: the peer's token says its receive is posted.
ngx_status await_peer_ready(Context* c, ngx_error* err)
{
    if (c->peer_ready)
        return NGX_OK;
    MPI_Request request;
    int code = MPI_Irecv(nullptr, 0, MPI_BYTE, c->peer, tag_ready, c->comm, &request);
    if (code != MPI_SUCCESS)
        return mpi_fail(err, code, "MPI_Irecv (ready token)");
    if (ngx_status s = complete(c, &request, MPI_STATUS_IGNORE, "waiting for the peer's pre-posted receive", err);
        s != NGX_OK)
        return s;
    c->peer_ready = true;
    return NGX_OK;
}

} // namespace

// Before a ready send: this rank's next receive posted, the peer's known posted.
ngx_status ready_to_send(Context* c, ngx_error* err)
{
    if (ngx_status s = repost_if_due(c, err); s != NGX_OK)
        return s;
    return await_peer_ready(c, err);
}

// Ready-mode recv: completes the pre-posted receive; the next one is due.
ngx_status recv_preposted(Context* c, void* buf, size_t len, ngx_error* err)
{
    MPI_Status status;
    if (ngx_status s = complete(c, &c->preposted, &status, "recv", err); s != NGX_OK)
        return s;
    int received = 0;
    MPI_Get_count(&status, MPI_BYTE, &received);
    if (size_t(received) != len)
        return fail(err, NGX_ERR_PROTOCOL, "recv: expected %zu bytes, the peer sent %d", len, received);
    if (buf != c->preposted_buffer)
        std::memcpy(buf, c->preposted_buffer, len);
    c->repost_due = true;
    return NGX_OK;
}

ngx_status irecv_preposted(Context* c, void* buf, size_t len, ngx_request* req)
{
    c->ready_target = buf;
    c->ready_len = len;
    *req = preposted_request;
    return NGX_OK;
}

ngx_status test_preposted(Context* c, ngx_request* req, int* done, ngx_error* err)
{
    int code = MPI_Test(&c->preposted, done, MPI_STATUS_IGNORE);
    if (code != MPI_SUCCESS)
        return mpi_fail(err, code, "test");
    if (!*done)
        return NGX_OK;
    // Completed: copy; the next pre-posted receive is due.
    c->preposted = MPI_REQUEST_NULL;
    *req = 0;
    if (c->ready_target != c->preposted_buffer)
        std::memcpy(c->ready_target, c->preposted_buffer, c->ready_len);
    c->repost_due = true;
    return NGX_OK;
}

// Ends the pre-posted receive and takes an unread ready token, so nothing
// is left pending at MPI_Finalize.
void drop_preposted(Context* c)
{
    if (c->preposted != MPI_REQUEST_NULL) {
        MPI_Cancel(&c->preposted);
        MPI_Wait(&c->preposted, MPI_STATUS_IGNORE);
    }
    int waiting = 0;
    if (!c->peer_ready && c->comm != MPI_COMM_NULL)
        MPI_Iprobe(c->peer, tag_ready, c->comm, &waiting, MPI_STATUS_IGNORE);
    if (waiting)
        MPI_Recv(nullptr, 0, MPI_BYTE, c->peer, tag_ready, c->comm, MPI_STATUS_IGNORE);
}

} // namespace ngx::mpi::detail
