// ngx module `sim`: a simulated network with known LogGP/LogGPS parameters,
// the ground truth that ngx's fitting must recover. Messages really travel
// (through the shared-memory rings of ../shm), but every send and receive
// busy-waits (or, with --sim-clock virtual, advances a simulated clock) so
// that its timing follows the model exactly. The timing specification, the
// rules every call below implements (eager, rendezvous, send modes,
// non-blocking, strided, one-sided, limits), is docs/sim.md.
#include "sim_context.hpp"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>

namespace ngx::sim {
namespace {

using ngx::mod::fail;

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
} // namespace ngx::sim

using ngx::sim::sim_module;

NGX_MODULE_EXPORT(sim_module)
