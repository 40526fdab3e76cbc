// The sim module's state and the calls its files share: the model (times in
// ns as parsed, in clock ticks once connected), one side's context, the
// stamp in front of every message on the ring; the timing and ring helpers
// (sim_timing.cpp, sim_ring.cpp) and the calls of the ops table
// (sim_two_sided.cpp, sim_one_sided.cpp), which sim.cpp assembles into the
// module. The rules the calls implement are docs/sim.md.
#ifndef NGX_SIM_CONTEXT_HPP
#define NGX_SIM_CONTEXT_HPP

#include "../shm/peer_channels.hpp"
#include "link_table.hpp"
#include "noise.hpp"
#include "shared_link.hpp"
#include "sim_clock.hpp"

#include <ngx/module.h>
#include <ngx/module_support.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace ngx::sim {

constexpr size_t buffer_alignment = 64;
constexpr size_t min_auto_ring_bytes = size_t(256) << 10;
constexpr size_t max_auto_ring_bytes = size_t(64) << 20;
constexpr double max_time_us = 1e6; // 1 s for L, o_s, o_r, g
constexpr double max_gap_per_byte_us = 1e3;
constexpr double min_latency_us = 1.0;  // absorbs the ring's own latency
constexpr double late_margin_ns = 25;   // past a deadline by more: the call was late
constexpr double max_call_cost_ns = 60; // a larger way into or out of a call was a disturbed measurement
constexpr int max_cost_attempts = 4;

enum class SendMode { standard, synchronous, ready, buffered };

// The model: times in ns as parsed, in SimClock ticks once connected (scaled()).
struct Model {
    double latency = 0;
    double send_overhead = 0;
    double recv_overhead = 0;
    double send_overhead_per_byte = 0; // O_s
    double recv_overhead_per_byte = 0; // O_r
    double gap = 0;
    double gap_per_byte = 0;
    uint64_t rendezvous_above = 0;  // S in bytes; 0: no rendezvous
    double strided_per_element = 0; // c of a strided message, at each end
    double copy_per_byte = 0;       // C of the buffered modes
    SendMode mode = SendMode::standard;
    bool nonblocking_calls = false; // isend, issend, irsend, ibsend: send/recv = post + wait

    // Ready and buffered sends never ask: eager at every size.
    bool rendezvous(size_t bytes) const
    {
        return rendezvous_above > 0 && bytes > rendezvous_above &&
               (mode == SendMode::standard || mode == SendMode::synchronous);
    }
    // A synchronous eager send waits for the receiver's match.
    bool match_ack(size_t bytes) const { return mode == SendMode::synchronous && !rendezvous(bytes); }
    // The buffered modes' copy into the attached buffer.
    uint64_t copy(size_t bytes) const
    {
        return mode == SendMode::buffered ? uint64_t(std::llround(double(bytes) * copy_per_byte)) : 0;
    }
    // (s-1)G, with 0 for an empty message.
    uint64_t wire(size_t bytes) const
    {
        return bytes == 0 ? 0 : uint64_t(std::llround(double(bytes - 1) * gap_per_byte));
    }
    uint64_t L() const { return uint64_t(std::llround(latency)); }
    uint64_t o_s() const { return uint64_t(std::llround(send_overhead)); }
    uint64_t o_r() const { return uint64_t(std::llround(recv_overhead)); }
    // o_s(s) = o_s + (s-1) O_s and o_r(s) = o_r + (s-1) O_r (Hoefler et al. 2007 section 4).
    uint64_t o_s(size_t bytes) const { return per_byte(send_overhead, send_overhead_per_byte, bytes); }
    uint64_t o_r(size_t bytes) const { return per_byte(recv_overhead, recv_overhead_per_byte, bytes); }
    static uint64_t per_byte(double base, double per_byte, size_t bytes)
    {
        return uint64_t(std::llround(base + (bytes == 0 ? 0.0 : double(bytes - 1) * per_byte)));
    }
    uint64_t g() const { return uint64_t(std::llround(gap)); }
    // The same model with every time multiplied by `factor` (ns to clock ticks).
    Model scaled(double factor) const
    {
        Model m = *this;
        for (double* t : {&m.latency, &m.send_overhead, &m.recv_overhead, &m.send_overhead_per_byte,
                          &m.recv_overhead_per_byte, &m.gap, &m.gap_per_byte, &m.strided_per_element, &m.copy_per_byte})
            *t *= factor;
        return m;
    }
};

// An isend between its post and its wait.
struct PendingSend {
    bool active = false;
    bool rendezvous = false; // the request went; the ack and the data follow in wait
    const void* buf = nullptr;
    size_t len = 0;
    uint64_t done = 0; // eager: model time of the injection
};

// An irecv between its post and its wait.
struct PendingRecv {
    bool active = false;
    void* buf = nullptr;
    size_t len = 0;
    uint64_t posted = 0;   // model time of the call
    uint64_t order = 0;    // posted as the order-th irecv: messages are taken in this order
    bool taken = false;    // its message is in buf (an earlier-posted irecv's wait took it)
    uint64_t arrival = 0;  // model time of the taken message's arrival
    bool answered = false; // its rendezvous request was answered while an isend waited (crossing)
};

// Calls of one kind, and those that ended later than the model said.
struct Late {
    uint64_t calls = 0;
    uint64_t late = 0;
    uint64_t overshoot = 0; // ticks past the deadlines, summed
};

struct Context {
    Model model;  // as parsed, in ns
    Model timing; // the same in clock ticks (connect)
    ngx::sim::SimClock clock;
    ngx::sim::CallCost cost;  // the caller's view of a call beyond its busy-wait
    uint64_t late_margin = 0; // ticks past a deadline that count as late (a few reads)
    Late sends, recvs, probes;
    uint64_t probe_wait = 0; // nonzero while CallCost times sim_send (connect)
    size_t ring_bytes = 0;
    uint64_t timeout_ns = 0;
    const volatile int* cancel = nullptr;
    bool connected = false;
    uint64_t nic_free = 0; // clock ticks
    // The links: connect's, then one per further peer (ABI 1.5 open_link);
    // calls use `channel`, the selected peer's (select_peer).
    ngx::shm::PeerChannels links;
    ngx::shm::Channel* channel = nullptr;
    int rank = 0;
    ngx::sim::LinkTable link_costs; // --sim-links: L and G per ordered pair (ns)
    ngx::sim::SharedLink link;      // --sim-RN, --sim-RC (shared_link.hpp)
    uint64_t sleep_margin_ns = 0;   // --sim-sleep
    // set_layout(): elements of `element` bytes every `stride` elements; to_self.
    size_t element = 1, stride = 1;
    bool to_self = false;
    std::vector<uint8_t> staging; // packed strided data
    std::vector<uint8_t> self_message;
    // Pending isends and irecvs by slot (a request names its slot); the
    // vectors grow to the largest window once and are reused.
    std::vector<PendingSend> isends;
    std::vector<PendingRecv> irecvs;
    uint64_t irecvs_posted = 0; // order of the next irecv
    // One-sided (ABI 1.7): this side's window and the peer's length; when
    // the puts and gets since the last flush complete; where the gets'
    // data go (in order); when the peer's NIC is free to answer a get.
    uint8_t* window = nullptr;
    size_t window_len = 0;
    size_t peer_window_len = 0;
    uint64_t flush_until = 0;
    uint64_t peer_nic_free = 0;
    std::vector<std::pair<void*, size_t>> gets;
    std::vector<uint8_t> isend_packed; // a strided isend's data until its wait
    bool match_ack_taken = false;      // a synchronous send's acknowledgement read ahead (expect_message)
    uint64_t match_ack_arrival = 0;
    bool self_pending = false;
    uint64_t self_ready = 0;   // clock ticks
    bool virtual_time = false; // --sim-clock virtual
    ngx::sim::Noise noise;     // --sim-noise, --sim-seed (virtual time)
    uint64_t virtual_now = 0;  // the simulated clock, in picoseconds (virtual time)
};

// What goes in front of every message on the ring.
enum class Kind : uint32_t { data = 1, request = 2, ack = 3, match_ack = 4, put = 5, get_request = 6, get_reply = 7 };
struct Stamp {
    uint64_t arrival; // clock ticks
    uint64_t size;    // bytes of the data message (also in request and ack)
    uint32_t kind;
    uint32_t reserved;
    uint64_t offset = 0; // put, get_request: where in the peer's window
};
static_assert(sizeof(Stamp) <= ngx::shm::inline_payload_bytes);

// Whether any slot of `slots` (isends or irecvs) is pending.
template <class Pending>
bool any_pending(const std::vector<Pending>& slots)
{
    return std::any_of(slots.begin(), slots.end(), [](const Pending& p) { return p.active; });
}

// ---- timing (sim_timing.cpp) ----

// Busy-waits (the CPU is engaged, as overhead is) until the clock reaches
// `until`; only the cancel flag stops it early.
ngx_status spin_until(const Context* c, uint64_t until, const char* step, ngx_error* err);
// Ends a send or recv so that the caller has it back at `model_return`;
// counts the calls whose own work (or a message later than its stamp) had
// already passed that time: the model was not kept there (sim_finalize).
ngx_status return_at(Context* c, Late& late, uint64_t model_return, const char* step, ngx_error* err);
// The caller's call of the running send or recv, as the model sees it: the
// first clock read less the way in (sim_clock.hpp).
uint64_t call_time(const Context* c);
// A send's or receive's CPU cost with --sim-noise (none in real time).
uint64_t noisy_call(Context* c, uint64_t ticks);

// ---- ring messages (sim_ring.cpp) ----

// A message (its stamp and payload) onto the ring; offset: put, get_request.
ngx_status write_message(Context* c, Kind kind, uint64_t arrival, size_t size, const void* payload, size_t payload_len,
                         ngx_error* err, uint64_t offset = 0);
// Waits for the next message and checks, before consuming it, that it is the
// kind and size this side expects.
ngx_status expect_message(Context* c, Kind kind, size_t size, const char* step, ngx_error* err);
ngx_status read_message(Context* c, Kind kind, size_t size, void* payload, size_t payload_len, const char* step,
                        Stamp* stamp, ngx_error* err);
// sim_two_sided.cpp: two ranks crossing rendezvous isends (an exchange): the
// peer's request met while this side's isend waits for its acknowledgement
// is answered for the oldest pending irecv (*answered), if there is one.
ngx_status answer_crossing_request(Context* c, bool* answered, ngx_error* err);

// ---- the calls of the ops table ----

// sim_two_sided.cpp: send, recv, their non-blocking forms, strided layouts.
ngx_status sim_send(void* ctx, const void* buf, size_t len, ngx_error* err);
ngx_status sim_recv(void* ctx, void* buf, size_t len, ngx_error* err);
ngx_status sim_isend(void* ctx, const void* buf, size_t len, ngx_request* req, ngx_error* err);
ngx_status sim_irecv(void* ctx, void* buf, size_t len, ngx_request* req, ngx_error* err);
ngx_status sim_wait(void* ctx, ngx_request* req, ngx_error* err);
ngx_status sim_test(void* ctx, ngx_request* req, int* done, ngx_error* err);
ngx_status sim_set_layout(void* ctx, const ngx_layout* layout, ngx_error* err);
// The end of an eager send's CPU part, called at t: o_s(s), packing, the buffered copy.
uint64_t eager_cpu(Context* c, uint64_t t, size_t len);
// sim_one_sided.cpp: the window, put, get and flush.
ngx_status sim_expose(void* ctx, const ngx_bootstrap* boot, void* buf, size_t len, ngx_error* err);
ngx_status sim_put(void* ctx, const void* local, size_t offset, size_t len, ngx_error* err);
ngx_status sim_get(void* ctx, void* local, size_t offset, size_t len, ngx_error* err);
ngx_status sim_flush(void* ctx, ngx_error* err);

} // namespace ngx::sim

#endif
