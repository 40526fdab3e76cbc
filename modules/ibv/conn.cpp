// The ibv connection's lifetime: the modes' names and traits, construction
// and teardown, and setup (PD, CQ, QP and the receive pool, everything
// before connect). The rest of Conn: conn_connect.cpp (QP transitions and
// the exchange with the peer), conn_buffers.cpp (registered memory),
// conn_poll.cpp (posting and CQ polling), conn_message.cpp (send and recv),
// conn_request.cpp (isend, irecv, test, wait). See conn.hpp for what each
// mode does on the wire.
#include "conn.hpp"
#include "conn_detail.hpp"

#include <ngx/module_support.hpp>

#include <sys/mman.h>

#include <algorithm>

namespace ngx::ibv {

using ngx::mod::errno_text;
using ngx::mod::fail;

using detail::access_flags;
using detail::map_zeroed;
using detail::round_page;

const char* mode_name(Mode mode)
{
    switch (mode) {
    case Mode::write:
        return "write";
    case Mode::read:
        return "read";
    case Mode::send:
        break;
    }
    return "send";
}

const ModeTraits& traits_of(Mode mode)
{
    static constexpr ModeTraits send{true, 1, 0, "send", "send completion"};
    static constexpr ModeTraits write{true, 0, credit_slack, "RDMA write / send", "send completion"};
    static constexpr ModeTraits read{false, 1, 0, "RDMA read / send", "ack of a read"};
    switch (mode) {
    case Mode::write:
        return write;
    case Mode::read:
        return read;
    case Mode::send:
        break;
    }
    return send;
}

Conn::Conn(const Settings& settings, DeviceChoice device)
        : settings_(settings), traits_(traits_of(settings.mode)), dev_(device)
{
}

Conn::~Conn()
{
    if (qp_ != nullptr)
        ibv_destroy_qp(qp_);
    if (cq_ != nullptr)
        ibv_destroy_cq(cq_);
    for (Region& r : regions_) {
        ibv_dereg_mr(r.mr);
        if (r.owned)
            munmap(r.addr, round_page(r.len));
    }
    if (pool_mr_ != nullptr)
        ibv_dereg_mr(pool_mr_);
    if (pool_ != nullptr)
        munmap(pool_, round_page(pool_len_));
    if (ctrl_mr_ != nullptr)
        ibv_dereg_mr(ctrl_mr_);
    if (ctrl_ != nullptr)
        munmap(ctrl_, round_page((rx_entries_ + settings_.sq_depth) * desc_size));
    if (pd_ != nullptr)
        ibv_dealloc_pd(pd_);
    close_device(dev_);
}

// ---- setup -----------------------------------------------------------------

ngx_status Conn::setup(ngx_error* err)
{
    rx_entries_ = settings_.rx_depth + traits_.extra_receives;
    pd_ = ibv_alloc_pd(dev_.context);
    if (pd_ == nullptr)
        return fail(err, NGX_ERR_SYSTEM, "ibv_alloc_pd(%s): %s", dev_.name.c_str(), errno_text(errno));
    cq_ = ibv_create_cq(dev_.context, int(settings_.sq_depth + rx_entries_ + 16), nullptr, nullptr, 0);
    if (cq_ == nullptr)
        return fail(err, NGX_ERR_SYSTEM, "ibv_create_cq(%u entries): %s", settings_.sq_depth + rx_entries_ + 16,
                    errno_text(errno));
    if (ngx_status st = create_qp(err); st != NGX_OK)
        return st;
    if (ngx_status st = create_pool(err); st != NGX_OK)
        return st;
    rx_sge_.assign(rx_entries_, ibv_sge{});
    rx_wr_.assign(rx_entries_, ibv_recv_wr{});
    for (unsigned i = 0; i < rx_entries_; ++i) {
        rx_wr_[i].wr_id = recv_bit | i;
        rx_wr_[i].sg_list = &rx_sge_[i];
        rx_wr_[i].num_sge = traits_.recv_sges;
    }
    arrivals_.assign(rx_entries_, Arrival{});
    regions_.reserve(64);
    reqs_.assign(max_requests, Request{});
    pending_.assign(max_requests, 0);
    reads_.assign(max_requests, 0);
    mtu_ = dev_.port_attr.active_mtu;
    psn_ = uint32_t(mod::monotonic_ns() ^ (uint64_t(getpid()) << 8)) & 0xffffff;
    return NGX_OK;
}

// Creates the RC QP, asking for settings_.inline_request bytes of inline data and
// halving the request until the device accepts; max_inline_ is what it gave.
ngx_status Conn::create_qp(ngx_error* err)
{
    ibv_qp_init_attr attr{};
    attr.send_cq = cq_;
    attr.recv_cq = cq_;
    attr.qp_type = IBV_QPT_RC;
    attr.sq_sig_all = 0;
    attr.cap.max_send_wr = settings_.sq_depth;
    attr.cap.max_recv_wr = rx_entries_;
    attr.cap.max_send_sge = 1;
    attr.cap.max_recv_sge = 1;
    for (uint32_t want = settings_.inline_request;; want /= 2) {
        attr.cap.max_inline_data = want;
        qp_ = ibv_create_qp(pd_, &attr);
        if (qp_ != nullptr) {
            max_inline_ = std::min(attr.cap.max_inline_data, settings_.inline_request); // 0 asked: never inline
            return NGX_OK;
        }
        if (want == 0)
            return fail(err, NGX_ERR_SYSTEM, "ibv_create_qp(RC, %u send / %u receive WRs) on %s: %s",
                        settings_.sq_depth, rx_entries_, dev_.name.c_str(), errno_text(errno));
    }
}

// Send and write modes: one registration for the ring of rx_depth receive
// buffers. Read mode: a small one for descriptors (received, then sent).
ngx_status Conn::create_pool(ngx_error* err)
{
    if (traits_.ring) {
        pool_len_ = size_t(settings_.rx_depth) * settings_.slot_size;
        pool_ = map_zeroed(pool_len_);
        if (pool_ == nullptr)
            return fail(err, NGX_ERR_NO_MEMORY, "cannot map %zu bytes for the receive ring", pool_len_);
        pool_mr_ = ibv_reg_mr(pd_, pool_, pool_len_, access_flags);
        if (pool_mr_ == nullptr)
            return fail(err, NGX_ERR_SYSTEM,
                        "ibv_reg_mr(receive ring, %zu bytes): %s (is the locked-memory limit, ulimit -l, too low?)",
                        pool_len_, errno_text(errno));
        return NGX_OK;
    }
    size_t ctrl_len = (rx_entries_ + settings_.sq_depth) * desc_size;
    ctrl_ = map_zeroed(ctrl_len);
    if (ctrl_ == nullptr)
        return fail(err, NGX_ERR_NO_MEMORY, "cannot map %zu bytes for descriptors", ctrl_len);
    ctrl_mr_ = ibv_reg_mr(pd_, ctrl_, ctrl_len, IBV_ACCESS_LOCAL_WRITE);
    if (ctrl_mr_ == nullptr)
        return fail(err, NGX_ERR_SYSTEM, "ibv_reg_mr(descriptors): %s", errno_text(errno));
    return NGX_OK;
}

} // namespace ngx::ibv
