// The ibv connection's link to its peer: the QP's transitions (INIT, RTR,
// RTS), the exchange of connection data through the bootstrap, the first
// receives, connect and connect_to_itself, and the one-line summary.
#include "conn.hpp"
#include "conn_detail.hpp"

#include <ngx/module_support.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

namespace ngx::ibv {

using ngx::mod::errno_text;
using ngx::mod::fail;

using detail::access_flags;
using detail::mtu_bytes;

// ---- connection ------------------------------------------------------------

ngx_status Conn::to_init(ngx_error* err)
{
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_INIT;
    a.pkey_index = 0;
    a.port_num = dev_.port;
    a.qp_access_flags = access_flags;
    if (int e = ibv_modify_qp(qp_, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
        return fail(err, NGX_ERR_SYSTEM, "QP RESET->INIT on %s port %u: %s", dev_.name.c_str(), unsigned(dev_.port),
                    errno_text(e));
    return NGX_OK;
}

ngx_status Conn::to_rtr(const WireInfo& peer, ngx_error* err)
{
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = std::min(mtu_, ibv_mtu(peer.mtu));
    a.dest_qp_num = peer.qpn;
    a.rq_psn = peer.psn;
    a.max_dest_rd_atomic = uint8_t(max_reads());
    a.min_rnr_timer = 1; // 0.01 ms: receives are pre-posted, RNR is rare
    a.ah_attr.port_num = dev_.port;
    a.ah_attr.dlid = peer.lid;
    if (dev_.gid_index >= 0) {
        a.ah_attr.is_global = 1;
        std::memcpy(a.ah_attr.grh.dgid.raw, peer.gid.data(), 16);
        a.ah_attr.grh.sgid_index = uint8_t(dev_.gid_index);
        a.ah_attr.grh.hop_limit = 64;
    }
    int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
               IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
    if (int e = ibv_modify_qp(qp_, &a, mask))
        return fail(err, NGX_ERR_SYSTEM, "QP INIT->RTR (peer QPN 0x%x, GID %s, MTU %u): %s", peer.qpn,
                    format_gid(peer.gid).c_str(), mtu_bytes(a.path_mtu), errno_text(e));
    mtu_ = a.path_mtu;
    return NGX_OK;
}

ngx_status Conn::to_rts(ngx_error* err)
{
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_RTS;
    a.sq_psn = psn_;
    a.timeout = 14;  // 4.096 us * 2^14 = 67 ms per try
    a.retry_cnt = 7; // a dead peer shows as RETRY_EXC after about 0.5 s
    a.rnr_retry = 7; // the peer's receives are pre-posted; wait if not
    a.max_rd_atomic = uint8_t(max_reads());
    int mask =
        IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
    if (int e = ibv_modify_qp(qp_, &a, mask))
        return fail(err, NGX_ERR_SYSTEM, "QP RTR->RTS: %s", errno_text(e));
    return NGX_OK;
}

WireInfo Conn::local_info() const
{
    WireInfo w;
    w.mode = uint8_t(settings_.mode);
    w.ethernet = dev_.ethernet ? 1 : 0;
    w.qpn = qp_->qp_num;
    w.psn = psn_;
    w.lid = dev_.port_attr.lid;
    w.gid = dev_.gid;
    w.mtu = uint32_t(mtu_);
    w.pool_addr = reinterpret_cast<uintptr_t>(pool_);
    w.pool_rkey = pool_mr_ != nullptr ? pool_mr_->rkey : 0;
    w.slot_size = settings_.slot_size;
    w.slots = traits_.ring ? settings_.rx_depth : 0;
    return w;
}

ngx_status Conn::exchange(const ngx_bootstrap* boot, WireInfo& peer, ngx_error* err)
{
    auto mine = encode(local_info());
    std::string theirs;
    std::string_view mine_bytes(reinterpret_cast<const char*>(mine.data()), mine.size());
    if (ngx_status st = ngx::mod::exchange_blob(boot, mine_bytes, &theirs, WireInfo::encoded_size + 64, err);
        st != NGX_OK)
        return st;
    auto decoded = decode(reinterpret_cast<const uint8_t*>(theirs.data()), theirs.size());
    if (!decoded)
        return fail(err, NGX_ERR_PROTOCOL,
                    "the peer's connection data is not an ibv module's (%zu bytes, expected %zu): another ngx version?",
                    theirs.size(), WireInfo::encoded_size);
    peer = *decoded;
    if (peer.mode != uint8_t(settings_.mode))
        return fail(err, NGX_ERR_PROTOCOL, "the peer uses --ibv-mode %s, this side %s: give both the same",
                    mode_name(Mode(peer.mode)), mode_name(settings_.mode));
    if (peer.ethernet != (dev_.ethernet ? 1 : 0))
        return fail(err, NGX_ERR_PROTOCOL, "link layers differ: this side %s, the peer %s",
                    dev_.ethernet ? "Ethernet (RoCE)" : "InfiniBand", peer.ethernet ? "Ethernet (RoCE)" : "InfiniBand");
    if (traits_.ring && (peer.slots == 0 || peer.slot_size == 0))
        return fail(err, NGX_ERR_PROTOCOL, "the peer announced an empty receive ring");
    return NGX_OK;
}

// INIT with every receive posted: what either connection needs before it
// knows the QP at the other end.
ngx_status Conn::post_receives(const char* step, ngx_error* err)
{
    if (connected_)
        return fail(err, NGX_ERR_PROTOCOL, "%s: already connected", step);
    if (ngx_status st = to_init(err); st != NGX_OK)
        return st;
    for (uint32_t i = 0; i < rx_entries_; ++i)
        if (ngx_status st = post_recv(i, err); st != NGX_OK)
            return st;
    return NGX_OK;
}

ngx_status Conn::connect(const ngx_bootstrap* boot, ngx_error* err)
{
    if (ngx_status st = post_receives("connect", err); st != NGX_OK)
        return st;
    if (ngx_status st = exchange(boot, peer_, err); st != NGX_OK)
        return st;
    if (ngx_status st = to_rtr(peer_, err); st != NGX_OK)
        return st;
    if (ngx_status st = to_rts(err); st != NGX_OK)
        return st;
    if (ngx_status st = boot->barrier(boot->ctx, err); st != NGX_OK)
        return st;
    connected_ = true;
    if (boot->rank < boot->peer)
        std::fprintf(stderr, "ibv: %s; peer %s\n", summary().c_str(),
                     dev_.gid_index >= 0 ? format_gid(peer_.gid).c_str()
                                         : ("lid " + std::to_string(peer_.lid)).c_str());
    return NGX_OK;
}

ngx_status Conn::connect_to_itself(ngx_error* err)
{
    if (ngx_status st = post_receives("connect to self", err); st != NGX_OK)
        return st;
    peer_ = local_info();
    ngx_status st = to_rtr(peer_, err);
    if (st == NGX_OK)
        st = to_rts(err);
    connected_ = st == NGX_OK;
    return st;
}

std::string Conn::summary() const
{
    char text[256];
    std::snprintf(text, sizeof text, "%s, mode %s, inline %u, mtu %u, rx-depth %u, signal every %u",
                  describe(dev_).c_str(), mode_name(settings_.mode), max_inline_, mtu_bytes(mtu_), settings_.rx_depth,
                  settings_.signal_every);
    return text;
}

} // namespace ngx::ibv
