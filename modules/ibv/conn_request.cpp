// The ibv connection's non-blocking requests: isend, irecv (matched to
// arrivals in call order), test and wait.
#include "conn.hpp"

#include <ngx/module_support.hpp>

namespace ngx::ibv {

using ngx::mod::fail;

ngx_status Conn::new_request(ngx_request* req, Request** out, ngx_error* err)
{
    for (uint32_t i = 0; i < max_requests; ++i)
        if (reqs_[i].kind == ReqKind::free) {
            reqs_[i] = Request{};
            *out = &reqs_[i];
            *req = i + 1;
            return NGX_OK;
        }
    return fail(err, NGX_ERR_UNSUPPORTED, "more than %u outstanding requests", max_requests);
}

Conn::Request* Conn::request(ngx_request req, ngx_error* err, ngx_status* status)
{
    if (req == 0 || req > max_requests || reqs_[req - 1].kind == ReqKind::free) {
        *status = fail(err, NGX_ERR_PROTOCOL, "unknown request %lu", static_cast<unsigned long>(req));
        return nullptr;
    }
    *status = NGX_OK;
    return &reqs_[req - 1];
}

ngx_status Conn::isend(const void* buf, size_t len, ngx_request* req, ngx_error* err)
{
    Request* r = nullptr;
    if (ngx_status st = new_request(req, &r, err); st != NGX_OK)
        return st;
    ngx_status st = start_send(buf, len, true, &r->ticket, err);
    if (st != NGX_OK) {
        *req = 0;
        return st;
    }
    r->kind = ReqKind::send;
    return NGX_OK;
}

ngx_status Conn::irecv(void* buf, size_t len, ngx_request* req, ngx_error* err)
{
    const Region* reg = nullptr;
    if (ngx_status st = check_len(len, "irecv", err); st != NGX_OK)
        return st;
    if (ngx_status st = need_region(buf, len, "irecv", &reg, err); st != NGX_OK)
        return st;
    Request* r = nullptr;
    if (ngx_status st = new_request(req, &r, err); st != NGX_OK)
        return st;
    r->kind = ReqKind::recv;
    r->buf = static_cast<uint8_t*>(buf);
    r->len = len;
    pending_[pend_tail_++ % max_requests] = uint32_t(*req - 1);
    if (matching_)
        return NGX_OK;
    matching_ = true;
    ngx_status st = match(err);
    matching_ = false;
    return st;
}

ngx_status Conn::test(ngx_request* req, int* done, ngx_error* err)
{
    ngx_status st = NGX_OK;
    Request* r = request(*req, err, &st);
    if (r == nullptr)
        return st;
    if (ngx_status p = progress(err); p != NGX_OK)
        return p;
    if (!matching_) {
        matching_ = true;
        ngx_status m = match(err);
        if (m == NGX_OK)
            m = finish_reads(err);
        matching_ = false;
        if (m != NGX_OK)
            return m;
    }
    bool finished = r->kind == ReqKind::send ? send_done(r->ticket) : r->done;
    *done = finished ? 1 : 0;
    if (finished) {
        r->kind = ReqKind::free;
        *req = 0;
    }
    return NGX_OK;
}

ngx_status Conn::wait(ngx_request* req, ngx_error* err)
{
    ngx_status st = NGX_OK;
    Request* r = request(*req, err, &st);
    if (r == nullptr)
        return st;
    const char* what = r->kind == ReqKind::send ? "send completion" : "message from the peer";
    st = wait_for(
        [&] {
            if (r->kind == ReqKind::send)
                return send_done(r->ticket);
            return r->done;
        },
        what, err);
    if (st == NGX_OK) {
        r->kind = ReqKind::free;
        *req = 0;
    }
    return st;
}

} // namespace ngx::ibv
