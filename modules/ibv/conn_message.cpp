// The ibv connection's blocking message path: send (a message, an RDMA
// write with immediate or a read descriptor, by mode) and recv (an
// arrival copied out of the ring, or pulled by RDMA read).
#include "conn.hpp"

#include <ngx/module_support.hpp>

#include <cstring>

namespace ngx::ibv {

using ngx::mod::fail;

// ---- send ------------------------------------------------------------------

// Posts one message; *ticket is what send_done() waits for (0: already done).
ngx_status Conn::start_send(const void* buf, size_t len, bool must_signal, uint64_t* ticket, ngx_error* err)
{
    const Region* r = nullptr;
    if (ngx_status st = check_len(len, "send", err); st != NGX_OK)
        return st;
    if (ngx_status st = need_region(buf, len, "send", &r, err); st != NGX_OK)
        return st;
    bool wait_buffer = must_signal || len > max_inline_;
    ngx_status st = NGX_OK;
    switch (settings_.mode) {
    case Mode::send:
        st = post_message(buf, len, r, wait_buffer, err);
        break;
    case Mode::write:
        st = post_write(buf, len, r, wait_buffer, err);
        break;
    case Mode::read: // done when the peer acknowledges its read
        st = post_descriptor(buf, len, r, err);
        if (st == NGX_OK)
            *ticket = ++descs_sent_;
        return st;
    }
    *ticket = wait_buffer ? sq_posted_ : 0;
    return st;
}

// Send mode: the message itself, into the receive the peer posted.
ngx_status Conn::post_message(const void* buf, size_t len, const Region* r, bool wait_buffer, ngx_error* err)
{
    return post_send(IBV_WR_SEND, buf, len, r->mr->lkey, wait_buffer, 0, 0, 0, err);
}

// Write mode: into the peer's ring buffer sent_ % slots, free once the peer
// consumed the message before it; the immediate names it and carries credits.
ngx_status Conn::post_write(const void* buf, size_t len, const Region* r, bool wait_buffer, ngx_error* err)
{
    ngx_status st = wait_for([&] { return sent_ - peer_consumed_ < peer_.slots; }, "credit from the receiver", err);
    auto slot = uint32_t(sent_ % peer_.slots);
    if (st == NGX_OK)
        st = post_send(IBV_WR_RDMA_WRITE_WITH_IMM, buf, len, r->mr->lkey, wait_buffer,
                       peer_.pool_addr + slot * peer_.slot_size, peer_.pool_rkey, credit_imm(slot), err);
    if (st == NGX_OK)
        ++sent_;
    return st;
}

// Read mode: a descriptor (address, rkey, length) the peer reads the message by.
ngx_status Conn::post_descriptor(const void* buf, size_t len, const Region* r, ngx_error* err)
{
    uint8_t* d = ctrl_ + (rx_entries_ + sq_posted_ % settings_.sq_depth) * desc_size;
    uint64_t addr = reinterpret_cast<uintptr_t>(buf);
    auto len32 = uint32_t(len);
    std::memcpy(d, &addr, 8);
    std::memcpy(d + 8, &r->mr->rkey, 4);
    std::memcpy(d + 12, &len32, 4);
    return post_send(IBV_WR_SEND, d, desc_size, ctrl_mr_->lkey, false, 0, 0, 0, err);
}

bool Conn::send_done(uint64_t ticket) const
{
    return settings_.mode == Mode::read ? acks_ >= ticket : sq_done_ >= ticket;
}

ngx_status Conn::send(const void* buf, size_t len, ngx_error* err)
{
    uint64_t ticket = 0;
    if (ngx_status st = start_send(buf, len, false, &ticket, err); st != NGX_OK)
        return st;
    return wait_for([&] { return send_done(ticket); }, traits_.send_wait, err);
}

// ---- receive ---------------------------------------------------------------

// Send and write modes: the message of arrival `a` goes into buf.
ngx_status Conn::deliver(const Arrival& a, uint8_t* buf, size_t len, ngx_error* err)
{
    if (a.len != len)
        return fail(err, NGX_ERR_PROTOCOL, "recv: expected a %zu-byte message, the peer sent %u bytes", len, a.len);
    uint32_t slot = settings_.mode == Mode::send ? a.entry : a.slot;
    if (len > 0)
        std::memcpy(buf, pool_ + slot * settings_.slot_size, len);
    if (settings_.mode == Mode::send) {
        if (ngx_status st = post_recv(a.entry, err); st != NGX_OK)
            return st;
    }
    return consumed_one(err);
}

// Read mode: pull the message described by `a` into the request's buffer.
ngx_status Conn::start_read(const Arrival& a, Request& r, ngx_error* err)
{
    if (a.len != r.len)
        return fail(err, NGX_ERR_PROTOCOL, "recv: expected a %zu-byte message, the peer offers %u bytes", r.len, a.len);
    r.ticket = 0;
    if (a.len > 0) {
        const Region* reg = find_region(r.buf, r.len);
        if (ngx_status st = post_send(IBV_WR_RDMA_READ, r.buf, r.len, reg->mr->lkey, true, a.addr, a.rkey, 0, err);
            st != NGX_OK)
            return st;
        r.ticket = sq_posted_;
    }
    return post_recv(a.entry, err);
}

// Read mode: reads that completed get their ack, in order.
ngx_status Conn::finish_reads(ngx_error* err)
{
    while (reads_head_ != reads_tail_) {
        Request& r = reqs_[reads_[reads_head_ % max_requests]];
        if (sq_done_ < r.ticket)
            return NGX_OK;
        ++reads_head_;
        r.done = true;
        if (ngx_status st = post_send(IBV_WR_SEND, nullptr, 0, 0, false, 0, 0, 0, err); st != NGX_OK)
            return st;
    }
    return NGX_OK;
}

// Pairs pending irecvs with arrived messages, oldest first.
ngx_status Conn::match(ngx_error* err)
{
    while (pend_head_ != pend_tail_ && arr_head_ != arr_tail_) {
        uint32_t index = pending_[pend_head_ % max_requests];
        Request& r = reqs_[index];
        Arrival a = arrivals_[arr_head_ % arrivals_.size()];
        ++pend_head_;
        ++arr_head_;
        if (traits_.ring) {
            if (ngx_status st = deliver(a, r.buf, r.len, err); st != NGX_OK)
                return st;
            r.done = true;
            continue;
        }
        if (ngx_status st = start_read(a, r, err); st != NGX_OK)
            return st;
        reads_[reads_tail_++ % max_requests] = index;
    }
    return NGX_OK;
}

ngx_status Conn::recv(void* buf, size_t len, ngx_error* err)
{
    if (pend_head_ != pend_tail_ || reads_head_ != reads_tail_) { // keep the order of earlier irecvs
        ngx_request req = 0;
        if (ngx_status st = irecv(buf, len, &req, err); st != NGX_OK)
            return st;
        return wait(&req, err);
    }
    const Region* r = nullptr;
    if (ngx_status st = check_len(len, "recv", err); st != NGX_OK)
        return st;
    if (ngx_status st = need_region(buf, len, "recv", &r, err); st != NGX_OK)
        return st;
    if (ngx_status st = wait_for([&] { return arr_head_ != arr_tail_; }, "message from the peer", err); st != NGX_OK)
        return st;
    Arrival a = arrivals_[arr_head_++ % arrivals_.size()];
    if (traits_.ring)
        return deliver(a, static_cast<uint8_t*>(buf), len, err);
    Request tmp;
    tmp.buf = static_cast<uint8_t*>(buf);
    tmp.len = len;
    if (ngx_status st = start_read(a, tmp, err); st != NGX_OK)
        return st;
    if (ngx_status st = wait_for([&] { return sq_done_ >= tmp.ticket; }, "RDMA read completion", err); st != NGX_OK)
        return st;
    return post_send(IBV_WR_SEND, nullptr, 0, 0, false, 0, 0, 0, err);
}

} // namespace ngx::ibv
