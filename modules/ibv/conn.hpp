// One RC connection of the ibv module: protection domain, CQ, QP, registered
// buffers and the data path for the three modes.
//
//   send   SEND/RECV. A ring of `rx_depth` receives stays pre-posted into a
//          ring of module buffers (one registration); each consumed one is
//          re-posted at once. recv() copies the message out of its ring
//          buffer: the receive must be posted before the message exists, and
//          the ABI lets the caller use its own buffer until it calls recv(),
//          so a message may not land there earlier. The hardware's RNR
//          retries are the flow control.
//   write  RDMA WRITE WITH IMMEDIATE into a ring of `rx_depth` buffers in the
//          peer's registered pool; the immediate names the buffer, and the
//          receiver copies out of it as in send mode. With immediate data the
//          receiver gets a completion: no polling of the last byte, whose
//          placement the verbs spec does not order, and errors and deadlines
//          work as in send mode. Credits (how many messages the receiver has
//          consumed) ride in the immediate of every message back; a one-way
//          stream gets a 0-byte credit message every rx_depth/2 messages.
//   read   The receiver pulls, zero-copy: send() posts a 16-byte descriptor
//          (address, rkey, length; inline), recv() waits for it, RDMA-READs
//          the data straight into its own buffer and answers with a 0-byte
//          ack; send() returns on the ack, when the buffer may be reused. A
//          message costs a descriptor one way plus a read round trip.
//
// Sends are inline up to the QP's max_inline_data and signalled every
// `signal_every`-th time (always when the caller must wait for the buffer,
// for reads and for isend). Waits busy-poll the CQ (yielding the CPU between
// polls only once a wait has lasted 20 us, for software RDMA such as rxe) and
// give up at the deadline or when the cancel flag rises. Nothing is allocated
// per message. One-sided put, get and flush (onesided.hpp) post on the same
// send queue through the primitives below.
#ifndef NGX_IBV_CONN_HPP
#define NGX_IBV_CONN_HPP

#include "device.hpp"
#include "wire.hpp"

#include <ngx/module.h>
#include <ngx/module_support.hpp>

#include <infiniband/verbs.h>
#include <sched.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace ngx::ibv {

enum class Mode : uint8_t { send = 0, write = 1, read = 2 };
const char* mode_name(Mode mode);

inline constexpr unsigned credit_slack = 8; // write: receives beyond rx_depth for credit messages

// What the modes differ in apart from posting a message and taking a receive
// completion (Conn has one function per mode for those two).
struct ModeTraits {
    bool ring;               // send, write: messages land in the receiver's ring and are copied out
                             // (read: the receiver pulls them straight into its buffer)
    int recv_sges;           // scatter entries of a posted receive (write: 0, the data comes by RDMA write)
    unsigned extra_receives; // receives beyond rx_depth (write: for credit messages)
    const char* send_failed; // what a failed send-queue completion was
    const char* send_wait;   // what a blocking send() waits for
};
const ModeTraits& traits_of(Mode mode);

struct Settings {
    Mode mode = Mode::send;
    unsigned rx_depth = 64;
    unsigned sq_depth = 128;
    unsigned signal_every = 16;
    unsigned inline_request = 256;
    size_t slot_size = 1 << 20; // ring buffer size: the largest message
    uint64_t timeout_ns = 10'000'000'000ull;
    const volatile int* cancel = nullptr;
};

class Conn {
public:
    Conn(const Settings& settings, DeviceChoice device);
    ~Conn();
    Conn(const Conn&) = delete;
    Conn& operator=(const Conn&) = delete;

    ngx_status setup(ngx_error* err); // PD, CQ, QP, pool: everything before connect
    ngx_status connect(const ngx_bootstrap* boot, ngx_error* err);
    // Send to self: the QP connected to itself (its own QPN, GID or LID), so
    // that a message goes out through the device and comes back in.
    ngx_status connect_to_itself(ngx_error* err);
    ngx_status alloc(size_t len, void** buf, ngx_error* err);
    void release(void* buf);
    // Registers memory another Conn allocated (send to self uses the
    // buffers the pattern got from the connection to the peer); release()
    // deregisters it without unmapping.
    ngx_status adopt(void* buf, size_t len, ngx_error* err);

    ngx_status send(const void* buf, size_t len, ngx_error* err);
    ngx_status recv(void* buf, size_t len, ngx_error* err);
    ngx_status isend(const void* buf, size_t len, ngx_request* req, ngx_error* err);
    ngx_status irecv(void* buf, size_t len, ngx_request* req, ngx_error* err);
    ngx_status test(ngx_request* req, int* done, ngx_error* err);
    ngx_status wait(ngx_request* req, ngx_error* err);

    std::string summary() const;

    // One-sided primitives (defined in onesided.cpp, used by OneSided):
    // the keys of the registered region holding [buf, buf + len) (with
    // `register_missing`, registered now when none does; else an error
    // naming `op`); one RDMA WRITE or READ between local
    // memory and the peer's, posted as the message path posts (room kept in
    // the send queue, signalled every signal_every WRs or when asked), whose
    // send-queue sequence number posted() then gives; a wait (with the
    // deadline) until the WR of sequence `seq` completed, which a signalled
    // WR at or after it must cover.
    ngx_status keys_of(void* buf, size_t len, bool register_missing, const char* op, uint32_t* lkey, uint32_t* rkey,
                       ngx_error* err);
    ngx_status post_rdma(ibv_wr_opcode op, void* local, size_t len, uint32_t lkey, uint64_t remote_addr, uint32_t rkey,
                         bool must_signal, ngx_error* err);
    ngx_status wait_done(uint64_t seq, const char* what, ngx_error* err);
    bool connected() const { return connected_; }
    uint64_t posted() const { return sq_posted_; }
    bool last_posted_signalled() const { return last_signaled_ == sq_posted_; }
    uint32_t max_message() const { return dev_.port_attr.max_msg_sz; }
    // RDMA reads (and atomics) the QP has outstanding at most: its
    // max_rd_atomic and, at the peer, max_dest_rd_atomic.
    unsigned max_reads() const { return unsigned(std::clamp(dev_.device_attr.max_qp_rd_atom, 1, 16)); }

private:
    struct Region {
        uint8_t* addr;
        size_t len;
        ibv_mr* mr;
        bool owned = true; // mapped by alloc() (not adopt()): unmapped on release
    };
    struct Arrival {
        uint32_t entry; // receive ring entry
        uint32_t len;   // byte_len
        uint32_t slot;  // write: the pool buffer the peer wrote
        uint64_t addr;  // read: descriptor
        uint32_t rkey;
    };
    enum class ReqKind : uint8_t { free, send, recv };
    struct Request {
        ReqKind kind = ReqKind::free;
        bool done = false;
        uint64_t ticket = 0; // send: SQ sequence or ack count to reach; recv (read mode): read's sequence
        uint8_t* buf = nullptr;
        size_t len = 0;
    };
    static constexpr unsigned max_requests = 64;
    static constexpr uint64_t recv_bit = 1ull << 63;
    static constexpr size_t desc_size = 16;
    static constexpr uint32_t credit_only = 0xff; // write: immediate's slot field of a credit message

    ngx_status create_qp(ngx_error* err);
    ngx_status create_pool(ngx_error* err);
    ngx_status to_init(ngx_error* err);
    ngx_status post_receives(const char* step, ngx_error* err);
    ngx_status to_rtr(const WireInfo& peer, ngx_error* err);
    ngx_status to_rts(ngx_error* err);
    ngx_status exchange(const ngx_bootstrap* boot, WireInfo& peer, ngx_error* err);
    WireInfo local_info() const;

    const Region* find_region(const void* buf, size_t len);
    ngx_status need_region(const void* buf, size_t len, const char* op, const Region** out, ngx_error* err);
    ngx_status post_recv(uint32_t entry, ngx_error* err);
    ngx_status post_send(ibv_wr_opcode op, const void* buf, size_t len, uint32_t lkey, bool must_signal,
                         uint64_t remote_addr, uint32_t rkey, uint32_t imm, ngx_error* err);
    ngx_status make_room(ngx_error* err);
    ngx_status progress(ngx_error* err);
    ngx_status handle(const ibv_wc& wc, ngx_error* err);
    ngx_status handle_recv(const ibv_wc& wc, ngx_error* err);
    ngx_status completion_error(const ibv_wc& wc, ngx_error* err) const;
    template <typename Done>
    ngx_status wait_for(Done done, const char* what, ngx_error* err);

    ngx_status start_send(const void* buf, size_t len, bool must_signal, uint64_t* ticket, ngx_error* err);
    // The per-mode halves of start_send() and handle_recv().
    ngx_status post_message(const void* buf, size_t len, const Region* r, bool wait_buffer, ngx_error* err);
    ngx_status post_write(const void* buf, size_t len, const Region* r, bool wait_buffer, ngx_error* err);
    ngx_status post_descriptor(const void* buf, size_t len, const Region* r, ngx_error* err);
    ngx_status arrived_write(const ibv_wc& wc, Arrival& a, bool* queue, ngx_error* err);
    ngx_status arrived_descriptor(const ibv_wc& wc, Arrival& a, bool* queue, ngx_error* err);
    bool send_done(uint64_t ticket) const;
    ngx_status deliver(const Arrival& a, uint8_t* buf, size_t len, ngx_error* err);
    ngx_status start_read(const Arrival& a, Request& r, ngx_error* err);
    ngx_status finish_reads(ngx_error* err);
    ngx_status match(ngx_error* err);
    ngx_status consumed_one(ngx_error* err);
    void take_credit(uint32_t imm);
    uint32_t credit_imm(uint32_t slot);
    ngx_status check_len(size_t len, const char* op, ngx_error* err) const;
    ngx_status new_request(ngx_request* req, Request** out, ngx_error* err);
    Request* request(ngx_request req, ngx_error* err, ngx_status* status);

    Settings settings_;
    const ModeTraits& traits_;
    DeviceChoice dev_;
    ibv_pd* pd_ = nullptr;
    ibv_cq* cq_ = nullptr;
    ibv_qp* qp_ = nullptr;
    uint32_t max_inline_ = 0;
    uint32_t psn_ = 0;
    ibv_mtu mtu_ = IBV_MTU_1024;
    bool connected_ = false;
    bool matching_ = false;

    // Buffers: the receive ring (send, write) and alloc()'s registrations.
    uint8_t* pool_ = nullptr;
    size_t pool_len_ = 0;
    ibv_mr* pool_mr_ = nullptr;
    std::vector<Region> regions_;
    size_t last_region_ = 0;
    uint8_t* ctrl_ = nullptr; // read mode: rx descriptors, then tx descriptors
    ibv_mr* ctrl_mr_ = nullptr;

    // Receive ring and arrivals not yet consumed (FIFO).
    unsigned rx_entries_ = 0;
    std::vector<ibv_sge> rx_sge_;
    std::vector<ibv_recv_wr> rx_wr_;
    std::vector<Arrival> arrivals_;
    uint64_t arr_head_ = 0, arr_tail_ = 0;

    // Write mode flow control: messages sent / consumed on each side.
    uint64_t sent_ = 0, peer_consumed_ = 0, consumed_ = 0, reported_ = 0;

    // Send queue accounting by sequence number (wr_id of send-queue WRs).
    uint64_t sq_posted_ = 0, sq_done_ = 0, last_signaled_ = 0;
    uint64_t descs_sent_ = 0, acks_ = 0; // read mode
    WireInfo peer_{};

    // Non-blocking requests; pending irecvs in call order.
    std::vector<Request> reqs_;
    std::vector<uint32_t> pending_; // ring of max_requests request indices
    uint64_t pend_head_ = 0, pend_tail_ = 0;
    std::vector<uint32_t> reads_; // read mode: requests whose RDMA read is posted, in order
    uint64_t reads_head_ = 0, reads_tail_ = 0;
};

// Busy-polls until done(). Every 64 empty polls it reads the clock: the
// first read starts the deadline, and once the wait has lasted yield_after_ns
// each further check also yields the CPU. Where the kernel itself moves the
// data (rxe's deferred tasks run by ksoftirqd) it needs the CPU that two
// spinning peers would otherwise keep busy until the next timer tick; on
// hardware the answer comes long before the first yield.
template <typename Done>
inline ngx_status Conn::wait_for(Done done, const char* what, ngx_error* err)
{
    constexpr uint64_t yield_after_ns = 20'000;
    uint64_t start = 0;
    for (unsigned spins = 1;; ++spins) {
        if (done())
            return NGX_OK;
        if (ngx_status st = progress(err); st != NGX_OK)
            return st;
        if ((spins & 63) != 0)
            continue;
        uint64_t now = mod::monotonic_ns();
        if (start == 0)
            start = now;
        if (now - start < yield_after_ns)
            continue;
        sched_yield();
        if (mod::cancelled(settings_.cancel))
            return mod::fail(err, NGX_ERR_INTERRUPTED, "interrupted while waiting for %s", what);
        if (now - start >= settings_.timeout_ns)
            return mod::fail(err, NGX_ERR_TIMEOUT, "no %s within %.1f s (ibv mode %s on %s): is the peer alive?", what,
                             double(settings_.timeout_ns) / 1e9, mode_name(settings_.mode), dev_.name.c_str());
    }
}

} // namespace ngx::ibv

#endif
