// The ibv connection's posting and polling: receives and send-queue WRs
// posted (room kept in the send queue), and the CQ polled, each completion
// handled by mode (a receive becomes an arrival; write mode's credits).
#include "conn.hpp"

#include <ngx/module_support.hpp>

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>

namespace ngx::ibv {

using ngx::mod::errno_text;
using ngx::mod::fail;

namespace {

ngx_status wc_status_code(ibv_wc_status status)
{
    switch (status) {
    case IBV_WC_RETRY_EXC_ERR:
    case IBV_WC_RNR_RETRY_EXC_ERR:
    case IBV_WC_REM_ABORT_ERR:
        return NGX_ERR_PEER_LOST;
    case IBV_WC_LOC_LEN_ERR:
    case IBV_WC_REM_INV_REQ_ERR:
    case IBV_WC_REM_ACCESS_ERR:
    case IBV_WC_REM_OP_ERR:
        return NGX_ERR_PROTOCOL;
    default:
        return NGX_ERR_SYSTEM;
    }
}

} // namespace

ngx_status Conn::post_recv(uint32_t entry, ngx_error* err)
{
    ibv_sge& sge = rx_sge_[entry];
    switch (settings_.mode) {
    case Mode::send: // the message lands in ring entry `entry`
        sge = {reinterpret_cast<uintptr_t>(pool_ + entry * settings_.slot_size), uint32_t(settings_.slot_size),
               pool_mr_->lkey};
        break;
    case Mode::read: // a descriptor lands in control entry `entry`
        sge = {reinterpret_cast<uintptr_t>(ctrl_ + entry * desc_size), desc_size, ctrl_mr_->lkey};
        break;
    case Mode::write: // the data comes by RDMA write: no scatter list
        break;
    }
    ibv_recv_wr* bad = nullptr;
    if (int e = ibv_post_recv(qp_, &rx_wr_[entry], &bad))
        return fail(err, NGX_ERR_SYSTEM, "ibv_post_recv: %s", errno_text(e));
    return NGX_OK;
}

// Waits until the send queue has room for one more WR. Signalling every
// signal_every (<= sq_depth / 2) sends guarantees a completion to wait for.
ngx_status Conn::make_room(ngx_error* err)
{
    if (sq_posted_ - sq_done_ < settings_.sq_depth - 1)
        return NGX_OK;
    return wait_for([&] { return sq_posted_ - sq_done_ < settings_.sq_depth - 1; }, "send queue completion", err);
}

ngx_status Conn::post_send(ibv_wr_opcode op, const void* buf, size_t len, uint32_t lkey, bool must_signal,
                           uint64_t remote_addr, uint32_t rkey, uint32_t imm, ngx_error* err)
{
    if (ngx_status st = make_room(err); st != NGX_OK)
        return st;
    uint64_t seq = sq_posted_ + 1;
    bool signal = must_signal || seq - last_signaled_ >= settings_.signal_every;
    ibv_sge sge{reinterpret_cast<uintptr_t>(buf), uint32_t(len), lkey};
    ibv_send_wr wr{};
    wr.wr_id = seq;
    wr.sg_list = &sge;
    wr.num_sge = len > 0 ? 1 : 0;
    wr.opcode = op;
    wr.send_flags = (signal ? unsigned(IBV_SEND_SIGNALED) : 0u) |
                    (len <= max_inline_ && op != IBV_WR_RDMA_READ ? unsigned(IBV_SEND_INLINE) : 0u);
    wr.imm_data = htonl(imm);
    wr.wr.rdma.remote_addr = remote_addr;
    wr.wr.rdma.rkey = rkey;
    ibv_send_wr* bad = nullptr;
    if (int e = ibv_post_send(qp_, &wr, &bad))
        return fail(err, NGX_ERR_SYSTEM, "ibv_post_send: %s", errno_text(e));
    sq_posted_ = seq;
    if (signal)
        last_signaled_ = seq;
    return NGX_OK;
}

ngx_status Conn::completion_error(const ibv_wc& wc, ngx_error* err) const
{
    const char* what = (wc.wr_id & recv_bit) != 0 ? "receive" : traits_.send_failed;
    const char* hint = wc.status == IBV_WC_RETRY_EXC_ERR || wc.status == IBV_WC_RNR_RETRY_EXC_ERR
                           ? ": the peer stopped answering (gone?)"
                           : "";
    return fail(err, wc_status_code(wc.status), "%s completion failed: %s (status %d, vendor error 0x%x)%s", what,
                ibv_wc_status_str(wc.status), int(wc.status), wc.vendor_err, hint);
}

ngx_status Conn::handle_recv(const ibv_wc& wc, ngx_error* err)
{
    auto entry = uint32_t(wc.wr_id & ~recv_bit);
    Arrival a{entry, wc.byte_len, 0, 0, 0};
    bool queue = true;
    ngx_status st = NGX_OK;
    switch (settings_.mode) {
    case Mode::send: // the message is in ring entry `entry`
        break;
    case Mode::write:
        st = arrived_write(wc, a, &queue, err);
        break;
    case Mode::read:
        st = arrived_descriptor(wc, a, &queue, err);
        break;
    }
    if (st == NGX_OK && queue)
        arrivals_[arr_tail_++ % arrivals_.size()] = a;
    return st;
}

// Write mode: the immediate names the ring buffer the peer wrote (or says it
// only carries credits); the receive goes back at once.
ngx_status Conn::arrived_write(const ibv_wc& wc, Arrival& a, bool* queue, ngx_error* err)
{
    if ((wc.wc_flags & IBV_WC_WITH_IMM) == 0)
        return fail(err, NGX_ERR_PROTOCOL, "write mode: a completion without immediate data");
    uint32_t imm = ntohl(wc.imm_data);
    take_credit(imm);
    a.slot = imm >> 24;
    if (ngx_status st = post_recv(a.entry, err); st != NGX_OK) // the data is in the ring, not in the WR
        return st;
    *queue = a.slot != credit_only;
    if (*queue && a.slot >= settings_.rx_depth)
        return fail(err, NGX_ERR_PROTOCOL, "write mode: the peer wrote into ring buffer %u of %u", a.slot,
                    settings_.rx_depth);
    return NGX_OK;
}

// Read mode: a descriptor of a message to pull, or the 0-byte ack of one of ours.
ngx_status Conn::arrived_descriptor(const ibv_wc& wc, Arrival& a, bool* queue, ngx_error* err)
{
    if (wc.byte_len == 0) { // an ack of one of our descriptors
        ++acks_;
        *queue = false;
        return post_recv(a.entry, err);
    }
    if (wc.byte_len != desc_size)
        return fail(err, NGX_ERR_PROTOCOL, "read mode: a %u-byte control message", wc.byte_len);
    const uint8_t* d = ctrl_ + a.entry * desc_size;
    std::memcpy(&a.addr, d, 8);
    std::memcpy(&a.rkey, d + 8, 4);
    std::memcpy(&a.len, d + 12, 4);
    return NGX_OK;
}

// Write mode: the immediate's low 16 bits count the messages its sender has
// consumed (mod 2^16); this side's sent_ - peer_consumed_ stays < rx_depth.
void Conn::take_credit(uint32_t imm)
{
    auto low = uint16_t(imm & 0xffff);
    peer_consumed_ += uint16_t(low - uint16_t(peer_consumed_));
}

uint32_t Conn::credit_imm(uint32_t slot)
{
    reported_ = consumed_;
    return (slot << 24) | uint32_t(consumed_ & 0xffff);
}

// Write mode: after a message was consumed, tell a peer that streams one way
// (and so gets no credits with our messages) every rx_depth/2 messages.
ngx_status Conn::consumed_one(ngx_error* err)
{
    ++consumed_;
    if (settings_.mode != Mode::write || consumed_ - reported_ < std::max(1u, settings_.rx_depth / 2))
        return NGX_OK;
    return post_send(IBV_WR_RDMA_WRITE_WITH_IMM, nullptr, 0, 0, false, peer_.pool_addr, peer_.pool_rkey,
                     credit_imm(credit_only), err);
}

ngx_status Conn::handle(const ibv_wc& wc, ngx_error* err)
{
    if (wc.status != IBV_WC_SUCCESS)
        return completion_error(wc, err);
    if ((wc.wr_id & recv_bit) != 0)
        return handle_recv(wc, err);
    sq_done_ = std::max<uint64_t>(sq_done_, wc.wr_id);
    return NGX_OK;
}

ngx_status Conn::progress(ngx_error* err)
{
    ibv_wc wc[16];
    int n = ibv_poll_cq(cq_, 16, wc);
    if (n < 0)
        return fail(err, NGX_ERR_SYSTEM, "ibv_poll_cq failed (%d)", n);
    for (int i = 0; i < n; ++i)
        if (ngx_status st = handle(wc[i], err); st != NGX_OK)
            return st;
    if (n == 0 || matching_ || (pend_head_ == pend_tail_ && reads_head_ == reads_tail_))
        return NGX_OK;
    matching_ = true; // match() and finish_reads() post, and posting may poll: no re-entry
    ngx_status st = match(err);
    if (st == NGX_OK)
        st = finish_reads(err);
    matching_ = false;
    return st;
}

} // namespace ngx::ibv
