// The ibv data path: QP setup and transitions, buffer registration, posting,
// CQ polling, and send/recv/isend/irecv for the send, write and read modes.
// See conn.hpp for what each mode does on the wire.
#include "conn.hpp"

#include <ngx/module_support.hpp>

#include <arpa/inet.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

namespace ngx::ibv {

using ngx::mod::errno_text;
using ngx::mod::fail;

namespace {

constexpr size_t page_size = 4096;
constexpr int access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;

size_t round_page(size_t n)
{
    return (n + page_size - 1) / page_size * page_size;
}

uint8_t* map_zeroed(size_t len)
{
    void* p = mmap(nullptr, round_page(len), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? nullptr : static_cast<uint8_t*>(p);
}

unsigned mtu_bytes(ibv_mtu mtu)
{
    return 128u << unsigned(mtu);
}

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

// ---- buffers ---------------------------------------------------------------

ngx_status Conn::alloc(size_t len, void** buf, ngx_error* err)
{
    size_t n = std::max<size_t>(len, 1);
    uint8_t* p = map_zeroed(n);
    if (p == nullptr)
        return fail(err, NGX_ERR_NO_MEMORY, "alloc: cannot map %zu bytes", n);
    ibv_mr* mr = ibv_reg_mr(pd_, p, n, access_flags);
    if (mr == nullptr) {
        int e = errno;
        munmap(p, round_page(n));
        return fail(err, NGX_ERR_SYSTEM, "alloc: ibv_reg_mr(%zu bytes): %s (ulimit -l?)", n, errno_text(e));
    }
    regions_.push_back({p, n, mr});
    *buf = p;
    return NGX_OK;
}

ngx_status Conn::adopt(void* buf, size_t len, ngx_error* err)
{
    size_t n = std::max<size_t>(len, 1);
    ibv_mr* mr = ibv_reg_mr(pd_, buf, n, access_flags);
    if (mr == nullptr)
        return fail(err, NGX_ERR_SYSTEM, "send to self: ibv_reg_mr(%zu bytes): %s (ulimit -l?)", n, errno_text(errno));
    regions_.push_back({static_cast<uint8_t*>(buf), n, mr, false});
    return NGX_OK;
}

void Conn::release(void* buf)
{
    for (size_t i = 0; i < regions_.size(); ++i)
        if (regions_[i].addr == buf) {
            ibv_dereg_mr(regions_[i].mr);
            if (regions_[i].owned)
                munmap(regions_[i].addr, round_page(regions_[i].len));
            regions_.erase(regions_.begin() + long(i));
            last_region_ = 0;
            return;
        }
}

const Conn::Region* Conn::find_region(const void* buf, size_t len)
{
    auto* p = static_cast<const uint8_t*>(buf);
    auto inside = [&](const Region& r) { return p >= r.addr && p + len <= r.addr + r.len; };
    if (last_region_ < regions_.size() && inside(regions_[last_region_]))
        return &regions_[last_region_];
    for (size_t i = 0; i < regions_.size(); ++i)
        if (inside(regions_[i])) {
            last_region_ = i;
            return &regions_[i];
        }
    return nullptr;
}

ngx_status Conn::need_region(const void* buf, size_t len, const char* op, const Region** out, ngx_error* err)
{
    *out = find_region(buf, len);
    if (*out != nullptr)
        return NGX_OK;
    return fail(err, NGX_ERR_UNSUPPORTED,
                "%s: buffer %p (%zu bytes) is not registered memory: the ibv module needs buffers from its alloc() "
                "(NGX_CAP_REGISTERED_MEMORY)",
                op, buf, len);
}

ngx_status Conn::check_len(size_t len, const char* op, ngx_error* err) const
{
    uint64_t limit = std::min<uint64_t>(peer_.slot_size, settings_.slot_size);
    if (!connected_)
        return fail(err, NGX_ERR_PROTOCOL, "%s before connect", op);
    if (len > limit || len > UINT32_MAX)
        return fail(err, NGX_ERR_UNSUPPORTED,
                    "%s: %zu bytes exceed the %llu-byte messages the module was initialised for (max_message_size)", op,
                    len, static_cast<unsigned long long>(limit));
    return NGX_OK;
}

// ---- posting and polling ---------------------------------------------------

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

// ---- non-blocking ----------------------------------------------------------

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
