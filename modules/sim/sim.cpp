// ngx module `sim`: a simulated network with known LogGP/LogGPS parameters,
// the ground truth that ngx's fitting must recover. Messages really travel
// (through the shared-memory rings of ../shm), but every send and receive
// busy-waits (or, with --sim-clock virtual, advances a simulated clock) so
// that its timing follows the model exactly. The timing specification, the
// rules every call below implements (eager, rendezvous, send modes,
// non-blocking, strided, one-sided, limits), is docs/sim.md.
#include "../shm/peer_channels.hpp"
#include "noise.hpp"
#include "link_table.hpp"
#include "shared_link.hpp"
#include "sim_clock.hpp"

#include <ngx/module.h>
#include <ngx/module_support.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

namespace {

using ngx::mod::fail;

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
    uint64_t posted = 0;  // model time of the call
    uint64_t order = 0;   // posted as the order-th irecv: messages are taken in this order
    bool taken = false;   // its message is in buf (an earlier-posted irecv's wait took it)
    uint64_t arrival = 0; // model time of the taken message's arrival
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

// ---- options ------------------------------------------------------------

namespace row = ngx::opt::row;
constexpr auto sim_L = row::number("sim-L", "5", min_latency_us, max_time_us, "latency L in microseconds (at least 1)");
constexpr auto sim_os = row::number("sim-os", "1", 0, max_time_us, "send overhead o_s in microseconds");
constexpr auto sim_or = row::number("sim-or", "1", 0, max_time_us, "receive overhead o_r in microseconds");
constexpr auto sim_g = row::number("sim-g", "2", 0, max_time_us, "gap g between message injections in microseconds");
constexpr auto sim_G = row::number("sim-G", "0.001", 0, max_gap_per_byte_us, "gap per byte G in microseconds per byte");
constexpr auto sim_O =
    row::number("sim-O", "0", 0, max_gap_per_byte_us,
                "send overhead per byte O_s in microseconds per byte: sending s bytes costs o_s + (s-1) O_s");
constexpr auto sim_Or =
    row::number("sim-Or", "0", 0, max_gap_per_byte_us,
                "receive overhead per byte O_r in microseconds per byte: receiving costs o_r + (s-1) O_r");
constexpr auto sim_S =
    row::byte_count("sim-S", "0", 0, uint64_t(1) << 40,
                    "rendezvous threshold S: larger messages first exchange request and ack; 0 = never");
constexpr auto sim_strided =
    row::number("sim-strided", "0", 0, max_gap_per_byte_us,
                "middleware cost of strided data in microseconds per element, at sender and receiver");
constexpr auto sim_mode = row::choice(
    "sim-mode", "standard", {"standard", "synchronous", "ready", "buffered", "isend", "issend", "irsend", "ibsend"},
    "send mode (the mpi module's); isend, issend, irsend, ibsend: send/recv = post + wait");
constexpr auto sim_copy =
    row::number("sim-copy", "0", 0, max_gap_per_byte_us,
                "buffered modes: the copy into the attached buffer, microseconds per byte (added to o_s)");
constexpr auto sim_ring_bytes =
    row::byte_count("sim-ring-bytes", "0", 0, ngx::shm::max_ring_bytes,
                    "bytes of each shared-memory ring (power of two; the lower rank's value is used); 0 sizes it from "
                    "the largest message");
constexpr auto sim_clock = row::choice(
    "sim-clock", "real", {"real", "virtual"},
    "real: calls busy-wait the model's costs on this machine's clock; virtual: each process keeps a simulated "
    "clock that calls advance by exactly the model's costs, and ngx times samples with it (exact, deterministic "
    "ground truth)");
constexpr auto sim_noise =
    row::text("sim-noise", "",
              "virtual time only: seeded noise on the model, components joined with +: jitter:F (o_s, o_r, L + (s-1)G "
              "times 1 + N(0, F)), outliers:P:US (a call US longer with probability P), bimodal:P:FACTOR (L times "
              "FACTOR with probability P), launch:F (the whole model times 1 + N(0, F) for this launch)");
constexpr auto sim_links =
    row::text("sim-links", "",
              "file of L and G per ordered pair of ranks, one 'FROM TO L G' a line (us, us/byte); pairs it does not "
              "name keep --sim-L and --sim-G (rank layouts: allpairs)");
constexpr auto sim_seed = row::whole_number(
    "sim-seed", "1", 0, UINT64_MAX,
    "seed of --sim-noise (the same seed repeats a run exactly; launch i of ngx --launches uses a seed "
    "derived from it and i)");
constexpr auto sim_sleep =
    row::number("sim-sleep", "0", 0, max_time_us,
                "sleep through waits longer than this many microseconds, spinning only the rest (many processes on "
                "few cores); 0 = always spin");
const ngx::mod::OptionTable option_table("sim", {sim_L,
                                                 sim_os,
                                                 sim_or,
                                                 sim_g,
                                                 sim_G,
                                                 sim_O,
                                                 sim_Or,
                                                 sim_S,
                                                 sim_strided,
                                                 sim_mode,
                                                 sim_copy,
                                                 sim_ring_bytes,
                                                 ngx::sim::sim_RN,
                                                 ngx::sim::sim_RC,
                                                 ngx::sim::sim_link,
                                                 sim_clock,
                                                 sim_noise,
                                                 sim_links,
                                                 sim_seed,
                                                 sim_sleep});

// --sim-mode: the mpi module's eight modes.
struct ModeName {
    const char* name;
    SendMode mode;
    bool nonblocking;
};
const ModeName mode_names[] = {
    {"standard", SendMode::standard, false}, {"synchronous", SendMode::synchronous, false},
    {"ready", SendMode::ready, false},       {"buffered", SendMode::buffered, false},
    {"isend", SendMode::standard, true},     {"issend", SendMode::synchronous, true},
    {"irsend", SendMode::ready, true},       {"ibsend", SendMode::buffered, true},
};

ngx_status parse_model(const ngx_init_args* args, Model* model, ngx_error* err)
{
    ngx::mod::ModuleOptions read(args, option_table);
    Model m;
    m.latency = read(sim_L) * 1e3;
    m.send_overhead = read(sim_os) * 1e3;
    m.recv_overhead = read(sim_or) * 1e3;
    m.gap = read(sim_g) * 1e3;
    m.gap_per_byte = read(sim_G) * 1e3;
    m.send_overhead_per_byte = read(sim_O) * 1e3;
    m.recv_overhead_per_byte = read(sim_Or) * 1e3;
    m.rendezvous_above = read(sim_S);
    m.strided_per_element = read(sim_strided) * 1e3;
    m.copy_per_byte = read(sim_copy) * 1e3;
    std::string mode = read(sim_mode);
    for (const ModeName& named : mode_names)
        if (mode == named.name)
            m.mode = named.mode, m.nonblocking_calls = named.nonblocking;
    if (ngx_status s = read.status(err); s != NGX_OK)
        return s;
    *model = m;
    return NGX_OK;
}

size_t auto_ring_bytes(size_t max_message_size)
{
    size_t want = 4 * (max_message_size + ngx::shm::cell_bytes);
    size_t bytes = min_auto_ring_bytes;
    while (bytes < want && bytes < max_auto_ring_bytes)
        bytes *= 2;
    return bytes;
}

// ---- timing ---------------------------------------------------------------

// --sim-sleep: sleeps through most of a wait until `until` (clock ticks),
// leaving the rest to the busy-wait; no clock read when it is off.
void sleep_before(const Context* c, uint64_t until)
{
    if (c->sleep_margin_ns == 0 || c->clock.is_virtual())
        return;
    uint64_t now = c->clock.now();
    ngx::sim::sleep_most_of(until > now ? uint64_t(double(until - now) / c->clock.ticks_per_ns()) : 0,
                            c->sleep_margin_ns);
}

// Busy-waits (the CPU is engaged, as overhead is) until the clock reaches
// `until`; only the cancel flag stops it early.
ngx_status spin_until(const Context* c, uint64_t until, const char* step, ngx_error* err)
{
    if (c->clock.is_virtual()) {
        c->clock.advance_to(until);
        return NGX_OK;
    }
    sleep_before(c, until);
    if (ngx::sim::spin_to(c->clock, until, [c] { return ngx::mod::cancelled(c->cancel); }) == 0)
        return fail(err, NGX_ERR_INTERRUPTED, "%s: interrupted", step);
    return NGX_OK;
}

// The caller's call of the running send or recv, as the model sees it: the
// first clock read less the way in (sim_clock.hpp).
uint64_t call_time(const Context* c)
{
    return c->clock.now() - c->cost.entry;
}

// Ends a send or recv so that the caller has it back at `model_return`;
// counts the calls whose own work (or a message later than its stamp) had
// already passed that time: the model was not kept there (sim_finalize).
ngx_status return_at(Context* c, Late& late, uint64_t model_return, const char* step, ngx_error* err)
{
    if (c->clock.is_virtual()) { // exactly the model's time
        ++late.calls;
        c->clock.advance_to(model_return);
        return NGX_OK;
    }
    uint64_t until = model_return - std::min(c->cost.exit, model_return);
    sleep_before(c, until);
    uint64_t last = ngx::sim::spin_to(c->clock, until, [c] { return ngx::mod::cancelled(c->cancel); });
    if (last == 0)
        return fail(err, NGX_ERR_INTERRUPTED, "%s: interrupted", step);
    ++late.calls;
    late.late += last - until > c->late_margin;
    late.overshoot += last - until;
    return NGX_OK;
}

// A send's or receive's CPU cost with --sim-noise (none in real time).
uint64_t noisy_call(Context* c, uint64_t ticks)
{
    return c->noise.any() ? c->noise.call(ticks, c->clock.ticks_per_ns() * 1e3) : ticks;
}

// ---- ring messages ----------------------------------------------------------

ngx_status write_message(Context* c, Kind kind, uint64_t arrival, size_t size, const void* payload, size_t payload_len,
                         ngx_error* err, uint64_t offset = 0)
{
    if (c->channel == nullptr)
        return fail(err, NGX_ERR_PROTOCOL, "send: no link is open (connect was set-up only; open_link first)");
    Stamp stamp{arrival, size, uint32_t(kind), 0, offset};
    ngx::shm::SpinWait wait(c->timeout_ns, c->cancel, &c->channel->peer, ngx::shm::Waiting::for_space);
    return c->channel->out.write(&stamp, sizeof stamp, payload, payload_len, wait, err);
}

const char* kind_name(uint32_t kind)
{
    switch (Kind(kind)) {
    case Kind::data:
        return "a data message";
    case Kind::request:
        return "a rendezvous request";
    case Kind::ack:
        return "a rendezvous acknowledgement";
    case Kind::match_ack:
        return "a synchronous send's acknowledgement";
    case Kind::put:
        return "a put";
    case Kind::get_request:
        return "a get";
    case Kind::get_reply:
        return "a get's data";
    }
    return "garbage";
}

// A put into this side's window (its bytes copied there) or a get from it
// (its bytes sent back, arriving when the peer's get computed), taken off
// the ring by whatever call of this side finds it.
ngx_status serve_one_sided(Context* c, const Stamp& next, ngx::shm::SpinWait& wait, ngx_error* err)
{
    if (c->window == nullptr || next.offset > c->window_len || next.size > c->window_len - next.offset)
        return fail(err, NGX_ERR_PROTOCOL, "%s of %llu bytes at offset %llu: outside the exposed window of %zu bytes",
                    kind_name(next.kind), (unsigned long long)next.size, (unsigned long long)next.offset,
                    c->window_len);
    Stamp stamp{};
    uint8_t* at = c->window + next.offset;
    bool put = next.kind == uint32_t(Kind::put);
    if (ngx_status s = c->channel->in.read(&stamp, sizeof stamp, put ? at : nullptr, put ? next.size : 0, wait, err);
        s != NGX_OK)
        return s;
    return put ? NGX_OK : write_message(c, Kind::get_reply, stamp.arrival, stamp.size, at, stamp.size, err);
}

// Waits for the next message and checks, before consuming it, that it is the
// kind and size this side expects.
ngx_status expect_message(Context* c, Kind kind, size_t size, const char* step, ngx_error* err)
{
    if (c->channel == nullptr)
        return fail(err, NGX_ERR_PROTOCOL, "%s: no link is open (connect was set-up only; open_link first)", step);
    ngx::shm::SpinWait wait(c->timeout_ns, c->cancel, &c->channel->peer, ngx::shm::Waiting::for_message);
    Stamp stamp{};
    for (;;) {
        while (!c->channel->in.peek(&stamp, sizeof stamp)) {
            if (ngx_status s = wait.idle(err); s != NGX_OK)
                return s;
            ngx::sim::nap(c->sleep_margin_ns); // --sim-sleep: messages are written long before they "arrive"
        }
        if (stamp.kind == uint32_t(Kind::put) || stamp.kind == uint32_t(Kind::get_request)) {
            // The peer's one-sided access to this side's window: the NIC's work, no CPU time.
            if (ngx_status s = serve_one_sided(c, stamp, wait, err); s != NGX_OK)
                return s;
            continue;
        }
        if (stamp.kind != uint32_t(Kind::match_ack) || kind == Kind::match_ack)
            break;
        // A synchronous isend's acknowledgement ahead of what this call
        // waits for: kept for that isend's wait.
        if (ngx_status s = c->channel->in.read(&stamp, sizeof stamp, nullptr, 0, wait, err); s != NGX_OK)
            return s;
        c->match_ack_taken = true;
        c->match_ack_arrival = stamp.arrival;
    }
    if (stamp.kind != uint32_t(kind) || stamp.size != size)
        return fail(err, NGX_ERR_PROTOCOL,
                    "%s: expected %s of %zu bytes, the peer sent %s of %llu bytes (same --sim-S on both sides? "
                    "both sending a rendezvous message at once?)",
                    step, kind_name(uint32_t(kind)), size, kind_name(stamp.kind), (unsigned long long)stamp.size);
    return NGX_OK;
}

ngx_status read_message(Context* c, Kind kind, size_t size, void* payload, size_t payload_len, const char* step,
                        Stamp* stamp, ngx_error* err)
{
    if (ngx_status s = expect_message(c, kind, size, step, err); s != NGX_OK)
        return s;
    ngx::shm::SpinWait wait(c->timeout_ns, c->cancel, &c->channel->peer, ngx::shm::Waiting::for_message);
    return c->channel->in.read(stamp, sizeof *stamp, payload, payload_len, wait, err);
}

// ---- strided data and send to self (ABI 1.2) -------------------------------------

// The extra busy time of packing or unpacking a message of len bytes, in clock ticks.
uint64_t strided_cost(const Context* c, size_t len)
{
    return c->stride > 1 ? uint64_t(std::llround(double(len / c->element) * c->timing.strided_per_element)) : 0;
}

void copy_elements(const Context* c, const uint8_t* from, size_t from_step, uint8_t* to, size_t to_step, size_t len)
{
    for (size_t i = 0; i < len / c->element; ++i)
        std::memcpy(to + i * to_step, from + i * from_step, c->element);
}

// The contiguous bytes of a message: buf itself, or its elements packed.
const void* gathered(Context* c, const void* buf, size_t len)
{
    if (c->stride == 1)
        return buf;
    c->staging.resize(len);
    copy_elements(c, static_cast<const uint8_t*>(buf), c->element * c->stride, c->staging.data(), c->element, len);
    return c->staging.data();
}

void scatter(Context* c, const uint8_t* packed, void* buf, size_t len)
{
    if (c->stride == 1)
        std::memcpy(buf, packed, len);
    else
        copy_elements(c, packed, c->element, static_cast<uint8_t*>(buf), c->element * c->stride, len);
}

ngx_status self_send(Context* c, const void* buf, size_t len, ngx_error* err)
{
    uint64_t start = call_time(c);
    if (c->self_pending)
        return fail(err, NGX_ERR_PROTOCOL, "send to self: the previous message to self was not received");
    const auto* data = static_cast<const uint8_t*>(gathered(c, buf, len));
    c->self_message.assign(data, data + len);
    c->self_pending = true;
    c->self_ready = start + c->timing.o_s(len) + strided_cost(c, len);
    return return_at(c, c->sends, c->self_ready, "send to self", err);
}

ngx_status self_recv(Context* c, void* buf, size_t len, ngx_error* err)
{
    uint64_t start = call_time(c);
    if (!c->self_pending || c->self_message.size() != len)
        return fail(err, NGX_ERR_PROTOCOL, "recv from self: no message of %zu bytes was sent to self", len);
    scatter(c, c->self_message.data(), buf, len);
    c->self_pending = false;
    return return_at(c, c->recvs, std::max(start, c->self_ready) + c->timing.o_r(len) + strided_cost(c, len),
                     "recv from self", err);
}

ngx_status sim_set_layout(void* ctx, const ngx_layout* layout, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (layout->element == 0 || layout->stride == 0)
        return fail(err, NGX_ERR_INVALID_OPTION, "set_layout: element and stride must be at least 1");
    c->element = layout->element;
    c->stride = layout->stride;
    c->to_self = layout->to_self != 0;
    return NGX_OK;
}

// ---- send and recv ----------------------------------------------------------------

template <class Pending>
bool any_pending(const std::vector<Pending>& slots)
{
    return std::any_of(slots.begin(), slots.end(), [](const Pending& p) { return p.active; });
}

// A free slot of `slots`, the vector growing only when every slot is pending.
template <class Pending>
size_t free_slot(std::vector<Pending>& slots)
{
    for (size_t i = 0; i < slots.size(); ++i)
        if (!slots[i].active)
            return i;
    slots.emplace_back();
    return slots.size() - 1;
}

// The end of an eager send's CPU part, called at t: o_s(s), packing, the buffered copy.
uint64_t eager_cpu(Context* c, uint64_t t, size_t len)
{
    return t + noisy_call(c, c->timing.o_s(len)) + strided_cost(c, len) + c->timing.copy(len);
}

// Sends the data whose CPU part ends at `cpu_done` as soon as the NIC is
// free; *injection is when it leaves.
ngx_status push_data(Context* c, const void* buf, size_t len, uint64_t cpu_done, uint64_t* injection, ngx_error* err)
{
    const Model& m = c->timing;
    *injection = std::max(cpu_done, c->nic_free);
    c->nic_free = *injection + m.g() + m.wire(len);
    uint64_t arrival = *injection + (c->noise.any() ? c->noise.flight(m.L(), m.wire(len)) : m.L() + m.wire(len)) +
                       c->link.share(len, *injection);
    return write_message(c, Kind::data, arrival, len, buf, len, err);
}

// The first part of a send called at t: the rendezvous request (busy o_s,
// it arrives at t + o_s + L), or the eager data. Leaves the rest to
// finish_send; *post_end is when the CPU part ends (an isend returns there).
ngx_status start_send(Context* c, PendingSend& p, const void* buf, size_t len, uint64_t t, uint64_t* post_end,
                      ngx_error* err)
{
    const Model& m = c->timing;
    p = PendingSend{true, m.rendezvous(len), buf, len, 0};
    if (!p.rendezvous) {
        *post_end = eager_cpu(c, t, len);
        return push_data(c, buf, len, *post_end, &p.done, err);
    }
    *post_end = t + m.o_s();
    return write_message(c, Kind::request, *post_end + m.L(), len, nullptr, 0, err);
}

// A synchronous send's acknowledgement of the receiver's match: its arrival.
ngx_status take_match_ack(Context* c, size_t len, uint64_t* arrival, ngx_error* err)
{
    if (std::exchange(c->match_ack_taken, false)) {
        *arrival = c->match_ack_arrival;
        return NGX_OK;
    }
    Stamp ack{};
    ngx_status s = read_message(c, Kind::match_ack, len, nullptr, 0, "send", &ack, err);
    *arrival = ack.arrival;
    return s;
}

// The rest of the pending send: a rendezvous takes the ack (T4 + T5 after
// the call: it arrives, o_r) and pushes the data; a synchronous one takes
// the receiver's match. *done: when the send completes, in model time.
ngx_status finish_send(Context* c, PendingSend& p, uint64_t* done, ngx_error* err)
{
    p.active = false;
    if (p.rendezvous) {
        Stamp ack{};
        if (ngx_status s = read_message(c, Kind::ack, p.len, nullptr, 0, "send", &ack, err); s != NGX_OK)
            return s;
        uint64_t ready = ack.arrival + c->timing.o_r();
        if (ngx_status s = spin_until(c, ready, "send", err); s != NGX_OK)
            return s;
        if (ngx_status s = push_data(c, p.buf, p.len, eager_cpu(c, ready, p.len), &p.done, err); s != NGX_OK)
            return s;
    }
    *done = p.done;
    if (!c->timing.match_ack(p.len))
        return NGX_OK;
    uint64_t matched = 0;
    ngx_status s = take_match_ack(c, p.len, &matched, err);
    *done = std::max(*done, matched);
    return s;
}

ngx_status sim_send(void* ctx, const void* buf, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (c->to_self)
        return self_send(c, buf, len, err);
    uint64_t start = call_time(c);
    if (c->probe_wait != 0) [[unlikely]] // CallCost at connect: the way in and out, nothing sent
        return return_at(c, c->probes, start + c->probe_wait, "send", err);
    if (any_pending(c->isends))
        return fail(err, NGX_ERR_UNSUPPORTED, "send: an isend is pending (sim: wait for it first)");
    PendingSend blocking;
    uint64_t post_end = 0, done = 0;
    if (ngx_status s = start_send(c, blocking, gathered(c, buf, len), len, start, &post_end, err); s != NGX_OK)
        return s;
    if (ngx_status s = finish_send(c, blocking, &done, err); s != NGX_OK)
        return s;
    return return_at(c, c->sends, done, "send", err);
}

// Receiver's half of the rendezvous for a receive called at t: take the
// request, answer it.
ngx_status take_request_and_ack(Context* c, uint64_t t, size_t size, ngx_error* err)
{
    const Model& m = c->timing;
    Stamp request{};
    if (ngx_status s = read_message(c, Kind::request, size, nullptr, 0, "recv", &request, err); s != NGX_OK)
        return s;
    uint64_t noticed = std::max(request.arrival, t) + m.o_r();
    if (ngx_status s = spin_until(c, noticed, "recv", err); s != NGX_OK)
        return s;
    if (ngx_status s = write_message(c, Kind::ack, noticed + m.o_s() + m.L(), size, nullptr, 0, err); s != NGX_OK)
        return s;
    return spin_until(c, noticed + m.o_s(), "recv", err);
}

// The message of a receive called (or posted) at t, into buf: the
// rendezvous answered, the data taken, a synchronous sender's match
// acknowledged (at max(arrival, t) + L). *arrival: the data's.
ngx_status take_data(Context* c, void* buf, size_t len, uint64_t t, uint64_t* arrival, ngx_error* err)
{
    if (c->timing.rendezvous(len))
        if (ngx_status s = take_request_and_ack(c, t, len, err); s != NGX_OK)
            return s;
    Stamp stamp{};
    void* target = buf;
    if (c->stride > 1) {
        c->staging.resize(len);
        target = c->staging.data();
    }
    if (ngx_status s = read_message(c, Kind::data, len, target, len, "recv", &stamp, err); s != NGX_OK)
        return s;
    if (target != buf)
        scatter(c, c->staging.data(), buf, len);
    *arrival = stamp.arrival;
    if (!c->timing.match_ack(len))
        return NGX_OK;
    return write_message(c, Kind::match_ack, std::max(stamp.arrival, t) + c->timing.L(), len, nullptr, 0, err);
}

// irecv at t: the receive's whole CPU cost now; its end.
uint64_t post_recv(Context* c, PendingRecv& p, void* buf, size_t len, uint64_t t)
{
    p = PendingRecv{true, buf, len, t, c->irecvs_posted++, false, 0};
    return t + noisy_call(c, c->timing.o_r(len)) + strided_cost(c, len);
}

ngx_status sim_recv(void* ctx, void* buf, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (c->to_self)
        return self_recv(c, buf, len, err);
    if (any_pending(c->irecvs))
        return fail(err, NGX_ERR_UNSUPPORTED, "recv: an irecv is pending (sim: wait for it first)");
    uint64_t start = call_time(c), arrival = 0;
    if (c->timing.nonblocking_calls) { // irecv + wait: the overhead at the post, then the arrival
        PendingRecv blocking;
        uint64_t posted = post_recv(c, blocking, buf, len, start);
        if (ngx_status s = take_data(c, buf, len, start, &arrival, err); s != NGX_OK)
            return s;
        return return_at(c, c->recvs, std::max(posted, arrival), "recv", err);
    }
    if (ngx_status s = take_data(c, buf, len, start, &arrival, err); s != NGX_OK)
        return s;
    return return_at(c, c->recvs, std::max(arrival, start) + noisy_call(c, c->timing.o_r(len)) + strided_cost(c, len),
                     "recv", err);
}

// ---- non-blocking calls -------------------------------------------------------------

// A request names its kind and its slot: (slot << 2) | kind.
enum RequestKind : ngx_request { send_request = 1, recv_request = 2, self_request = 3 };
ngx_request request_of(RequestKind kind, size_t slot)
{
    return ngx_request(slot) << 2 | kind;
}

// The pending isend or irecv a request names; nullptr: none.
template <class Pending>
Pending* pending_of(std::vector<Pending>& slots, ngx_request req, RequestKind kind)
{
    size_t slot = size_t(req >> 2);
    if ((req & 3) != kind || slot >= slots.size() || !slots[slot].active)
        return nullptr;
    return &slots[slot];
}

// Whether a send must be the only pending isend: its wait reads the peer's
// answer (a rendezvous acknowledgement, a synchronous match) off the ring.
bool needs_answer(const Context* c, size_t len)
{
    return c->timing.rendezvous(len) || c->timing.match_ack(len);
}

ngx_status sim_isend(void* ctx, const void* buf, size_t len, ngx_request* req, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    *req = self_request;
    if (c->to_self)
        return self_send(c, buf, len, err);
    uint64_t start = call_time(c);
    bool alone = std::any_of(c->isends.begin(), c->isends.end(),
                             [c](const PendingSend& p) { return p.active && needs_answer(c, p.len); });
    if (alone || (needs_answer(c, len) && any_pending(c->isends)))
        return fail(err, NGX_ERR_UNSUPPORTED,
                    "isend: sim keeps a rendezvous or synchronous isend pending alone; wait for the previous ones");
    const void* data = gathered(c, buf, len);
    if (data != buf) { // packed: kept apart from the staging a recv may reuse before the wait
        c->isend_packed = c->staging;
        data = c->isend_packed.data();
    }
    size_t slot = free_slot(c->isends);
    uint64_t post_end = 0;
    if (ngx_status s = start_send(c, c->isends[slot], data, len, start, &post_end, err); s != NGX_OK)
        return s;
    *req = request_of(send_request, slot);
    return return_at(c, c->sends, post_end, "isend", err);
}

ngx_status sim_irecv(void* ctx, void* buf, size_t len, ngx_request* req, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    uint64_t start = call_time(c);
    if (c->to_self)
        return fail(err, NGX_ERR_UNSUPPORTED, "irecv from self: sim receives from self with recv");
    size_t slot = free_slot(c->irecvs);
    *req = request_of(recv_request, slot);
    return return_at(c, c->recvs, post_recv(c, c->irecvs[slot], buf, len, start), "irecv", err);
}

// The next message on the ring goes to the pending irecv posted first
// that has none yet.
ngx_status take_oldest(Context* c, ngx_error* err)
{
    PendingRecv* oldest = nullptr;
    for (PendingRecv& p : c->irecvs)
        if (p.active && !p.taken && (oldest == nullptr || p.order < oldest->order))
            oldest = &p;
    if (oldest == nullptr)
        return fail(err, NGX_ERR_PROTOCOL, "wait: no irecv waits for a message");
    oldest->taken = true;
    return take_data(c, oldest->buf, oldest->len, oldest->posted, &oldest->arrival, err);
}

ngx_status sim_wait(void* ctx, ngx_request* req, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    ngx_request which = std::exchange(*req, 0);
    if (which == self_request)
        return NGX_OK;
    uint64_t done = 0;
    ngx_status s = NGX_OK;
    if (PendingSend* p = pending_of(c->isends, which, send_request)) {
        s = finish_send(c, *p, &done, err);
    } else if (PendingRecv* r = pending_of(c->irecvs, which, recv_request)) {
        while (s == NGX_OK && !r->taken) // earlier-posted irecvs take their messages first
            s = take_oldest(c, err);
        r->active = false;
        done = r->arrival;
    } else {
        return fail(err, NGX_ERR_PROTOCOL, "wait: no such pending request");
    }
    return s == NGX_OK ? spin_until(c, done, "wait", err) : s;
}

// Done when nothing more is needed from the peer (an eager send past its
// injection), or when what is needed is on the ring: then it completes as wait.
ngx_status sim_test(void* ctx, ngx_request* req, int* done, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    Stamp next{};
    bool on_ring = c->channel != nullptr && c->channel->in.peek(&next, sizeof next);
    if (const PendingSend* p = pending_of(c->isends, *req, send_request)) {
        // In virtual time nothing moves the clock while the caller polls: a local
        // send is done at its injection, as polling until then would find it.
        bool local = !needs_answer(c, p->len);
        *done = local ? c->clock.is_virtual() || c->clock.now() >= p->done : on_ring;
    } else if (PendingRecv* r = pending_of(c->irecvs, *req, recv_request)) {
        if (!r->taken && on_ring) // the next message goes to the oldest irecv, maybe this one
            if (ngx_status s = take_oldest(c, err); s != NGX_OK)
                return s;
        *done = r->taken;
    } else {
        *done = *req == self_request;
    }
    return *done ? sim_wait(ctx, req, err) : NGX_OK;
}

// ---- one-sided (ABI 1.7) -------------------------------------------------------------
//
// put, get and flush as docs/sim.md ("One-sided calls") times them.

ngx_status check_peer_window(const Context* c, const char* op, size_t offset, size_t len, ngx_error* err)
{
    if (c->peer_window_len == 0)
        return fail(err, NGX_ERR_PROTOCOL, "%s: no window exposed (both peers call expose first)", op);
    if (offset > c->peer_window_len || len > c->peer_window_len - offset)
        return fail(err, NGX_ERR_INVALID_OPTION, "%s of %zu bytes at offset %zu: beyond the peer's window of %zu bytes",
                    op, len, offset, c->peer_window_len);
    return NGX_OK;
}

ngx_status sim_expose(void* ctx, const ngx_bootstrap* boot, void* buf, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    c->window = static_cast<uint8_t*>(buf);
    c->window_len = len;
    std::string theirs;
    if (ngx_status s = ngx::mod::exchange_blob(boot, std::to_string(len), &theirs, 32, err); s != NGX_OK)
        return s;
    c->peer_window_len = size_t(std::strtoull(theirs.c_str(), nullptr, 10));
    return NGX_OK;
}

ngx_status sim_put(void* ctx, const void* local, size_t offset, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (ngx_status s = check_peer_window(c, "put", offset, len, err); s != NGX_OK)
        return s;
    const Model& m = c->timing;
    uint64_t cpu_done = eager_cpu(c, call_time(c), len);
    uint64_t injection = std::max(cpu_done, c->nic_free);
    c->nic_free = injection + m.g() + m.wire(len);
    uint64_t arrival = injection + m.L() + m.wire(len);
    c->flush_until = std::max(c->flush_until, arrival + m.L());
    if (ngx_status s = write_message(c, Kind::put, arrival, len, local, len, err, offset); s != NGX_OK)
        return s;
    return return_at(c, c->sends, cpu_done, "put", err);
}

ngx_status sim_get(void* ctx, void* local, size_t offset, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (ngx_status s = check_peer_window(c, "get", offset, len, err); s != NGX_OK)
        return s;
    const Model& m = c->timing;
    uint64_t cpu_done = call_time(c) + noisy_call(c, m.o_s());
    uint64_t answer = std::max(cpu_done + m.L(), c->peer_nic_free);
    c->peer_nic_free = answer + m.g() + m.wire(len);
    c->flush_until = std::max(c->flush_until, answer + m.L() + m.wire(len));
    c->gets.emplace_back(local, len);
    if (ngx_status s = write_message(c, Kind::get_request, answer, len, nullptr, 0, err, offset); s != NGX_OK)
        return s;
    return return_at(c, c->sends, cpu_done, "get", err);
}

ngx_status sim_flush(void* ctx, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    uint64_t start = call_time(c);
    for (const auto& [local, len] : c->gets) {
        Stamp reply{};
        if (ngx_status s = read_message(c, Kind::get_reply, len, local, len, "flush", &reply, err); s != NGX_OK)
            return s;
    }
    c->gets.clear();
    return return_at(c, c->sends, std::max(start, c->flush_until), "flush", err);
}

// ---- lifecycle -----------------------------------------------------------------------

// Both peers must simulate the same network; this catches mismatched options.
ngx_status check_same_model(const Context* c, const ngx_bootstrap* boot, ngx_error* err)
{
    const Model& m = c->model;
    char mine[512];
    int n =
        std::snprintf(mine, sizeof mine, "%.17g %.17g %.17g %.17g %.17g %llu %.17g %.17g %.17g %d %d %.17g %s",
                      m.latency, m.send_overhead, m.recv_overhead, m.gap, m.gap_per_byte,
                      (unsigned long long)m.rendezvous_above, m.send_overhead_per_byte, m.recv_overhead_per_byte,
                      m.strided_per_element, int(m.mode), int(m.nonblocking_calls), m.copy_per_byte, c->clock.name());
    std::string described = std::string(mine, size_t(n)) + c->link.describe(), theirs;
    if (ngx_status s = ngx::mod::exchange_blob(boot, described, &theirs, sizeof mine, err); s != NGX_OK)
        return s;
    if (theirs != described)
        return fail(err, NGX_ERR_INVALID_OPTION,
                    "connect: the peer simulates another network (sim-* options or clock differ: '%s' here, '%s' "
                    "there)",
                    described.c_str(), theirs.c_str());
    return NGX_OK;
}

ngx_status sim_init(const ngx_init_args* args, void** ctx, ngx_error* err)
{
    Model model;
    size_t ring_bytes = 0;
    if (ngx_status s = parse_model(args, &model, err); s != NGX_OK)
        return s;
    ngx::mod::ModuleOptions read(args, option_table);
    ring_bytes = ngx::shm::read_ring_bytes(read, sim_ring_bytes, true);
    uint64_t sleep_margin_ns = uint64_t(read(sim_sleep) * 1e3);
    bool virtual_time = read(sim_clock) == "virtual";
    std::string noise_spec = read(sim_noise);
    uint64_t seed = read(sim_seed);
    ngx::sim::LinkSettings link = ngx::sim::read_link_settings(read);
    std::string links_file = read(sim_links);
    if (ngx_status s = read.status(err); s != NGX_OK)
        return s;
    ngx::sim::LinkTable link_costs;
    std::string unreadable;
    if (!links_file.empty() && !ngx::sim::read_link_table(links_file, &link_costs, &unreadable))
        return fail(err, NGX_ERR_INVALID_OPTION, "--sim-links %s", unreadable.c_str());
    ngx::sim::Noise noise;
    std::string why;
    if (!ngx::sim::parse_noise(noise_spec, &noise, &why))
        return fail(err, NGX_ERR_INVALID_OPTION, "--sim-noise %s", why.c_str());
    if (noise.any() && !virtual_time)
        return fail(err, NGX_ERR_INVALID_OPTION,
                    "--sim-noise needs --sim-clock virtual (in real time this machine is the noise)");
    // ngx --launches K: launch i (NGX_LAUNCH=i) draws from its own seed, as a fresh launch of a real machine
    // lands elsewhere; launch 0 keeps --sim-seed, so it repeats a single run with that seed.
    const char* launch = std::getenv("NGX_LAUNCH");
    noise.seed_value = ngx::sim::launch_seed(seed, launch != nullptr ? std::strtoull(launch, nullptr, 10) : 0);
    if (ring_bytes == 0)
        ring_bytes = auto_ring_bytes(args->max_message_size);
    auto* c = new (std::nothrow) Context;
    if (c == nullptr)
        return fail(err, NGX_ERR_NO_MEMORY, "init: out of memory");
    c->model = model;
    c->ring_bytes = ring_bytes;
    c->link.configure(link);
    c->sleep_margin_ns = sleep_margin_ns;
    c->virtual_time = virtual_time;
    c->noise = noise;
    c->link_costs = std::move(link_costs);
    c->timeout_ns = args->timeout_ns;
    c->cancel = args->cancel;
    *ctx = c;
    return NGX_OK;
}

// Times sim_send in its probe mode through a function pointer, as the core
// calls a module (sim_clock.hpp).
// A measurement above max_call_cost_ns (way in or out) was disturbed
// throughout (this machine measures 5-15 ns each); it is repeated, and
// after max_cost_attempts the module corrects nothing rather than too much.
ngx::sim::CallCost measure_call_cost(Context* c)
{
    ngx_status (*volatile send)(void*, const void*, size_t, ngx_error*) = sim_send;
    c->cost = ngx::sim::CallCost{};
    c->probe_wait = c->clock.ticks(ngx::sim::CallCost::probe_wait_ns);
    const uint64_t most = c->clock.ticks(max_call_cost_ns);
    ngx::sim::CallCost cost;
    for (int attempt = 0; attempt < max_cost_attempts; ++attempt) {
        cost = ngx::sim::CallCost::measure(c->clock, [c, send] {
            uint64_t before = c->probes.overshoot;
            ngx_error ignored{};
            send(c, nullptr, 0, &ignored);
            return c->probes.overshoot - before;
        });
        if (cost.entry <= most && cost.exit <= most)
            break;
        cost = ngx::sim::CallCost{};
    }
    c->probe_wait = 0;
    return cost;
}

// The selected peer's L and G (--sim-links) in the model that calls use.
void apply_link_costs(Context* c, int peer)
{
    const double scale = c->clock.ticks_per_ns() * c->noise.launch_scale();
    const ngx::sim::LinkCost* cost = c->link_costs.find(c->rank, peer);
    c->timing.latency = (cost != nullptr ? cost->latency_ns : c->model.latency) * scale;
    c->timing.gap_per_byte = (cost != nullptr ? cost->gap_per_byte_ns : c->model.gap_per_byte) * scale;
}

// ABI 1.5 select_peer: calls address `peer`; no request may be pending.
ngx_status sim_select_peer(void* ctx, int peer, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (any_pending(c->isends) || any_pending(c->irecvs))
        return fail(err, NGX_ERR_PROTOCOL, "select_peer: an isend or irecv is pending (sim: wait for it first)");
    if (ngx_status s = c->links.select(peer, err); s != NGX_OK)
        return s;
    c->channel = c->links.selected();
    apply_link_costs(c, peer);
    return NGX_OK;
}

// A ring pair to boot->peer, after checking that it simulates the same
// network; then the selected one.
ngx_status open_peer_channel(Context* c, const ngx_bootstrap* boot, ngx_error* err)
{
    if (ngx_status s = check_same_model(c, boot, err); s != NGX_OK)
        return s;
    if (ngx_status s = c->links.open(boot, c->ring_bytes, err); s != NGX_OK)
        return s;
    return sim_select_peer(c, boot->peer, err);
}

// ABI 1.5 open_link: one more peer, with the same model and clock.
ngx_status sim_open_link(void* ctx, const ngx_bootstrap* boot, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (!c->connected)
        return fail(err, NGX_ERR_PROTOCOL, "open_link: connect first");
    return open_peer_channel(c, boot, err);
}

ngx_status sim_connect(void* ctx, const ngx_bootstrap* boot, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (c->connected)
        return fail(err, NGX_ERR_PROTOCOL, "connect: already connected");
    // Measured here, where the process runs where it will measure (--cpus).
    // Virtual time has no way in or out of a call to correct.
    c->virtual_now = 0;
    c->clock = c->virtual_time ? ngx::sim::SimClock::simulated(&c->virtual_now) : ngx::sim::SimClock::make();
    c->cost = c->virtual_time ? ngx::sim::CallCost{} : measure_call_cost(c);
    c->noise.seed(c->noise.seed_value, boot->rank);
    c->timing = c->model.scaled(c->clock.ticks_per_ns() * c->noise.launch_scale());
    c->late_margin = c->cost.exit + c->clock.ticks(late_margin_ns);
    c->rank = boot->rank;
    c->nic_free = 0;
    if (boot->peer == boot->rank) { // ABI 1.5: set up only; every link comes from open_link
        c->connected = true;
        return NGX_OK;
    }
    ngx_status s = open_peer_channel(c, boot, err);
    c->connected = s == NGX_OK;
    if (s != NGX_OK)
        return s;
    const Model& m = c->timing; // clock ticks
    return c->link.open(boot, double(m.o_s() + m.L() + m.o_r()), c->clock.ticks_per_ns(), err);
}

uint64_t virtual_now(void* ctx)
{
    return static_cast<const Context*>(ctx)->virtual_now;
}

void virtual_advance_to(void* ctx, uint64_t ticks)
{
    static_cast<const Context*>(ctx)->clock.advance_to(ticks);
}

// ABI 1.4: the simulated clock, for ngx's timer and bootstrap.
ngx_status sim_virtual_clock(void* ctx, ngx_virtual_clock* clock, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (!c->connected || !c->clock.is_virtual())
        return fail(err, NGX_ERR_UNSUPPORTED, "virtual clock: the sim runs in real time (--sim-clock real)");
    *clock = ngx_virtual_clock{c, virtual_now, virtual_advance_to, c->clock.ticks_per_ns() * 1e3};
    return NGX_OK;
}

// Tells when more than a tenth of the sends or receives could not keep the
// model: their own work (clock reads, the copy through the ring, a cache
// line from the peer's core), a message late on the ring, or a preemption
// at the end of a busy-wait (a loaded machine) took longer than the model
// allowed, so what a pattern measures there is this machine, not the model.
void report_late(const char* what, const Late& late, double overhead_us)
{
    if (late.calls == 0 || late.late * 10 <= late.calls)
        return;
    std::fprintf(stderr,
                 "sim: %llu of %llu %s ended later than the model allows (%s %.4g us): the module's own work, "
                 "the ring or a preemption took longer; what is measured there is this machine, not the model\n",
                 (unsigned long long)late.late, (unsigned long long)late.calls, what,
                 what[0] == 's' ? "--sim-os" : "--sim-or", overhead_us);
}

void sim_finalize(void* ctx)
{
    auto* c = static_cast<Context*>(ctx);
    if (c->connected) {
        report_late("sends", c->sends, c->model.send_overhead / 1e3);
        report_late("receives", c->recvs, c->model.recv_overhead / 1e3);
    }
    delete c;
}

const ngx_module_ops sim_ops = {
    sizeof(ngx_module_ops),
    sim_init,
    sim_connect,
    ngx::mod::heap_alloc<buffer_alignment>,
    ngx::mod::heap_free,
    sim_send,
    sim_recv,
    sim_isend,
    sim_irecv,
    sim_test,
    sim_wait,
    sim_finalize,
    nullptr, // resync: reliable, nothing is ever lost
    sim_set_layout,
    nullptr, // bcast
    nullptr, // prepare_recv
    sim_virtual_clock,
    sim_open_link,
    sim_select_peer,
    nullptr, // collective
    sim_expose,
    sim_put,
    sim_get,
    sim_flush,
};

const ngx_module sim_module = {
    NGX_MODULE_ABI_MAJOR,
    NGX_MODULE_ABI_MINOR,
    sizeof(ngx_module),
    "sim",
    "simulated LogGP/LogGPS network with known parameters, busy-waiting over shared memory",
    "1.0",
    NGX_CAP_RELIABLE | NGX_CAP_NONBLOCKING | NGX_CAP_SAME_NODE_ONLY | NGX_CAP_ZERO_BYTE | NGX_CAP_DATATYPES |
        NGX_CAP_PEER_LINKS | NGX_CAP_ONE_SIDED,
    0,
    option_table.specs(),
    option_table.size(),
    &sim_ops,
};

} // namespace

NGX_MODULE_EXPORT(sim_module)
