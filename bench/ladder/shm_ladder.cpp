// shm_ladder.cpp: the variant ladder from the minimal shared-memory ping-pong
// to what ngx's shm module does, one step at a time, so that each step's cost
// is measured on its own. Every step adds one thing to the one before it:
//
//   batch     the minimal program: one 64-byte line per direction (sequence
//             flag + 1-byte payload), spin on acquire loads, no pause; the
//             timer (rdtscp) read once per batch of -B round trips, a sample
//             is the batch's mean
//   clock     + clock_gettime(CLOCK_MONOTONIC) around every round trip (what
//             bench/minimal/shm_pingpong.c, the "floor", does)
//   tsc       + rdtscp around every round trip instead (ngx's timer)
//   pause     + a pause instruction in the spin loop (shm_pingpong -p): not
//             on ngx's way, but the best hand-written loop where it is faster
//   ring      + ngx's message ring (modules/shm/ring.hpp) instead of the bare
//             line, waiting with nothing but the poll
//   ops       + the module's calling convention: send/recv through a table
//             of function pointers (ctx, buf, len, err), as Transport does
//   oldwait   + the wait the module had before it was specialised: a pause
//             per failed poll, the clock read at the first one, the cancel
//             flag at each (kept here so the step it cost stays measurable)
//   spinwait  + the module's SpinWait (a pause per failed poll, deadline,
//             cancel flag and peer watch only after 4096 of them): exactly
//             what shm_send/shm_recv run
//
// bench/ladder/run.sh runs the steps and `ngx -m shm -x pingpong` side by side.
// With -S one process talks to itself (the message is always there, nothing
// spins), so `valgrind --tool=callgrind` counts the instructions of one round
// trip of a step without any waiting in it.
//
//     shm_ladder -v ring -a 1 -b 0 -w 1000 -n 20000
//   prints   variant median_us min_us mean_us samples
#include "ladder.hpp"

#include "../../modules/shm/ring.hpp"

#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <x86intrin.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

[[noreturn]] void usage()
{
    std::fprintf(stderr,
                 "usage: shm_ladder -v batch|clock|tsc|pause|ring|ops|oldwait|spinwait [-a CPU] [-b CPU] [-w N] [-n N]"
                 " [-B N] [-S]\n"
                 "  -a/-b  CPU of the timing / echo process (negative: unpinned)\n"
                 "  -w/-n  warm-up / timed round trips; -B round trips per batch (batch)\n"
                 "  -R     bytes of each ring (ring steps; default 65536, the shm module's default)\n"
                 "  -S     one process talking to itself (for instruction counts)\n");
    std::exit(2);
}

namespace {

using namespace ladder;

using ngx::shm::cache_line;

[[noreturn]] void die(const char* what)
{
    std::fprintf(stderr, "shm_ladder: %s: %s\n", what, std::strerror(errno));
    std::exit(1);
}

void pin(int cpu)
{
    if (cpu < 0)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(size_t(cpu), &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        die("sched_setaffinity");
}

// ---- links: how one message goes out and the answer comes back --------------

struct alignas(cache_line) Line {
    uint64_t seq;
    unsigned char payload;
};

// The minimal program's link: one line per direction.
struct LineLink {
    Line* out;
    Line* in;
    bool pause = false;
    void send(uint64_t seq, unsigned char byte)
    {
        out->payload = byte;
        std::atomic_ref<uint64_t>(out->seq).store(seq, std::memory_order_release);
    }
    unsigned char recv(uint64_t seq)
    {
        while (std::atomic_ref<uint64_t>(in->seq).load(std::memory_order_acquire) != seq)
            if (pause)
                ngx::shm::cpu_relax();
        return in->payload;
    }
};

// A wait that does nothing but let the ring poll again.
struct BareWait {
    ngx_status idle(ngx_error*) { return NGX_OK; }
};

// The module's wait before it was specialised, for the "oldwait" step: a
// pause at every failed poll, the clock read at the first, the cancel flag at
// each; the clock compared with the deadline every 1024 spins.
struct OldWait {
    uint64_t timeout_ns;
    const volatile int* cancel;
    uint64_t start_ns = 0;
    uint64_t spins = 0;
    ngx_status idle(ngx_error* err)
    {
        ngx::shm::cpu_relax();
        if (spins++ == 0)
            start_ns = monotonic_ns();
        if (ngx::mod::cancelled(cancel))
            return ngx::mod::fail(err, NGX_ERR_INTERRUPTED, "interrupted");
        if ((spins & 1023) == 0 && monotonic_ns() - start_ns >= timeout_ns)
            return ngx::mod::fail(err, NGX_ERR_TIMEOUT, "timeout");
        return NGX_OK;
    }
};

struct RingEnds {
    ngx::shm::RingWriter out;
    ngx::shm::RingReader in;
    ngx::shm::PeerWatch peer;
    uint64_t timeout_ns = 10'000'000'000;
    const volatile int* cancel = nullptr;
};

// ngx's ring, called inline, waiting with nothing.
struct RingLink {
    RingEnds* ends;
    ngx_error err{};
    void send(uint64_t, unsigned char byte)
    {
        BareWait wait;
        if (ends->out.write(nullptr, 0, &byte, 1, wait, &err) != NGX_OK)
            std::abort();
    }
    unsigned char recv(uint64_t)
    {
        BareWait wait;
        unsigned char byte = 0;
        if (ends->in.read(nullptr, 0, &byte, 1, wait, &err) != NGX_OK)
            std::abort();
        return byte;
    }
};

// The module ABI's calling convention (ngx_module_ops::send/recv).
struct Ops {
    ngx_status (*send)(void* ctx, const void* buf, size_t len, ngx_error* err);
    ngx_status (*recv)(void* ctx, void* buf, size_t len, ngx_error* err);
};

[[gnu::noinline]] ngx_status bare_send(void* ctx, const void* buf, size_t len, ngx_error* err)
{
    BareWait wait;
    return static_cast<RingEnds*>(ctx)->out.write(nullptr, 0, buf, len, wait, err);
}
[[gnu::noinline]] ngx_status bare_recv(void* ctx, void* buf, size_t len, ngx_error* err)
{
    BareWait wait;
    return static_cast<RingEnds*>(ctx)->in.read(nullptr, 0, buf, len, wait, err);
}
[[gnu::noinline]] ngx_status old_send(void* ctx, const void* buf, size_t len, ngx_error* err)
{
    auto* e = static_cast<RingEnds*>(ctx);
    OldWait wait{e->timeout_ns, e->cancel};
    return e->out.write(nullptr, 0, buf, len, wait, err);
}
[[gnu::noinline]] ngx_status old_recv(void* ctx, void* buf, size_t len, ngx_error* err)
{
    auto* e = static_cast<RingEnds*>(ctx);
    OldWait wait{e->timeout_ns, e->cancel};
    return e->in.read(nullptr, 0, buf, len, wait, err);
}
// What modules/shm/shm.cpp's shm_send/shm_recv do.
[[gnu::noinline]] ngx_status spin_send(void* ctx, const void* buf, size_t len, ngx_error* err)
{
    auto* e = static_cast<RingEnds*>(ctx);
    ngx::shm::SpinWait wait(e->timeout_ns, e->cancel, &e->peer, ngx::shm::Waiting::for_space);
    return e->out.write(nullptr, 0, buf, len, wait, err);
}
[[gnu::noinline]] ngx_status spin_recv(void* ctx, void* buf, size_t len, ngx_error* err)
{
    auto* e = static_cast<RingEnds*>(ctx);
    ngx::shm::SpinWait wait(e->timeout_ns, e->cancel, &e->peer, ngx::shm::Waiting::for_message);
    return e->in.read(nullptr, 0, buf, len, wait, err);
}

struct OpsLink {
    const Ops* ops;
    void* ctx;
    ngx_error err{};
    void send(uint64_t, unsigned char byte)
    {
        if (ops->send(ctx, &byte, 1, &err) != NGX_OK)
            fail();
    }
    unsigned char recv(uint64_t)
    {
        unsigned char byte = 0;
        if (ops->recv(ctx, &byte, 1, &err) != NGX_OK)
            fail();
        return byte;
    }
    [[noreturn]] void fail() const
    {
        std::fprintf(stderr, "shm_ladder: %s\n", err.message);
        std::exit(1);
    }
};

// ---- the timed loops --------------------------------------------------------------

enum class Timing { batch, clock, tsc };

struct Run : ladder::Counts {
    Timing timing = Timing::tsc;
};

// The timing side: samples are half round trips in ns (per round trip, or
// per batch mean).
template <typename Link>
std::vector<double> time_side(Link link, const Run& run, double ticks_per_ns)
{
    uint64_t seq = 1;
    for (long i = 0; i < run.warmup; ++i, ++seq) {
        link.send(seq, (unsigned char)seq);
        link.recv(seq);
    }
    std::vector<double> samples;
    if (run.timing == Timing::batch) {
        for (long b = 0; b < run.iters / run.batch; ++b) {
            uint64_t t0 = tsc();
            for (long i = 0; i < run.batch; ++i, ++seq) {
                link.send(seq, (unsigned char)seq);
                link.recv(seq);
            }
            samples.push_back(double(tsc() - t0) / ticks_per_ns / double(run.batch) / 2);
        }
        return samples;
    }
    samples.resize(size_t(run.iters));
    for (long i = 0; i < run.iters; ++i, ++seq) {
        if (run.timing == Timing::clock) {
            uint64_t t0 = monotonic_ns();
            link.send(seq, (unsigned char)seq);
            link.recv(seq);
            samples[size_t(i)] = double(monotonic_ns() - t0) / 2;
        } else {
            uint64_t t0 = tsc();
            link.send(seq, (unsigned char)seq);
            link.recv(seq);
            samples[size_t(i)] = double(tsc() - t0) / ticks_per_ns / 2;
        }
    }
    return samples;
}

template <typename Link>
void echo_side(Link link, long total)
{
    for (long seq = 1; seq <= total; ++seq)
        link.send(uint64_t(seq), link.recv(uint64_t(seq)));
}

// One process, talking to itself: send, then receive the same message.
// The variant's timer reads are part of it (batch: none per round trip).
template <typename Link>
void self_loop(Link link, long total, Timing timing)
{
    for (long seq = 1; seq <= total; ++seq) {
        uint64_t t0 = timing == Timing::tsc ? tsc() : timing == Timing::clock ? monotonic_ns() : 0;
        link.send(uint64_t(seq), (unsigned char)seq);
        if (link.recv(uint64_t(seq)) != (unsigned char)seq)
            std::abort();
        uint64_t t1 = timing == Timing::tsc ? tsc() : timing == Timing::clock ? monotonic_ns() : 0;
        asm volatile("" ::"r"(t1 - t0));
    }
}

struct Shared {
    Line ping, pong;
};

struct Setup {
    Shared* lines = nullptr;
    void* ring_a = nullptr;
    void* ring_b = nullptr;
};

Setup map_shared(size_t ring_bytes)
{
    size_t region = ngx::shm::ring_region_bytes(ring_bytes);
    size_t bytes = ngx::shm::page_bytes + 2 * region;
    void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (base == MAP_FAILED)
        die("mmap");
    auto* bytes_at = static_cast<unsigned char*>(base);
    return Setup{static_cast<Shared*>(base), bytes_at + ngx::shm::page_bytes, bytes_at + ngx::shm::page_bytes + region};
}

// Runs `body(link)` with the link of `variant`, `side` 0 the timing process
// (or the self loop), 1 the echo process.
template <typename Body>
void with_link(const std::string& variant, const Setup& s, size_t ring_bytes, int side, bool self, pid_t peer,
               Body body)
{
    const volatile int cancel = 0;
    if (variant == "batch" || variant == "clock" || variant == "tsc" || variant == "pause") {
        Line* a = &s.lines->ping;
        Line* b = self ? a : &s.lines->pong;
        bool pause = variant == "pause";
        body(side == 0 ? LineLink{a, b, pause} : LineLink{b, a, pause});
        return;
    }
    void* mine = side == 0 ? s.ring_a : s.ring_b;
    void* theirs = self ? mine : (side == 0 ? s.ring_b : s.ring_a);
    RingEnds ends;
    ends.out = ngx::shm::RingWriter(mine, ring_bytes);
    ends.in = ngx::shm::RingReader(theirs, ring_bytes);
    ends.cancel = &cancel;
    if (peer > 0)
        ends.peer.watch(peer);
    static const Ops bare{bare_send, bare_recv};
    static const Ops spin{spin_send, spin_recv};
    static const Ops old{old_send, old_recv};
    const Ops* ops = variant == "spinwait" ? &spin : variant == "oldwait" ? &old : &bare;
    asm volatile("" : "+r"(ops)); // an opaque table, as a dlopen()ed module's is
    if (variant == "ring")
        body(RingLink{&ends});
    else if (variant == "ops" || variant == "oldwait" || variant == "spinwait")
        body(OpsLink{ops, &ends});
    else
        usage();
}

} // namespace

int main(int argc, char** argv)
{
    std::string variant;
    int cpu_a = 0, cpu_b = 1;
    bool self = false;
    size_t ring_bytes = 65536; // the shm module's default (--shm-ring-bytes)
    Run run;
    for (int c; (c = getopt(argc, argv, "v:a:b:w:n:B:R:Sh")) != -1;) {
        switch (c) {
        case 'v':
            variant = optarg;
            break;
        case 'a':
            cpu_a = int(parse_long(optarg));
            break;
        case 'b':
            cpu_b = int(parse_long(optarg));
            break;
        case 'R':
            ring_bytes = size_t(parse_long(optarg));
            break;
        case 'S':
            self = true;
            break;
        default:
            if (!ladder::parse_count(c, optarg, run))
                usage();
        }
    }
    const std::string known[] = {"batch", "clock", "tsc", "pause", "ring", "ops", "oldwait", "spinwait"};
    if (optind != argc || std::find(std::begin(known), std::end(known), variant) == std::end(known) || !run.valid() ||
        !ngx::shm::valid_ring_bytes(ring_bytes))
        usage();
    run.timing = variant == "batch" ? Timing::batch : variant == "clock" ? Timing::clock : Timing::tsc;
    Setup shared = map_shared(ring_bytes);
    if (self) {
        pin(cpu_a);
        with_link(variant, shared, ring_bytes, 0, true, 0,
                  [&](auto link) { self_loop(link, run.warmup + run.iters, run.timing); });
        return 0;
    }
    pid_t parent = getpid();
    std::fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        pin(cpu_b);
        with_link(variant, shared, ring_bytes, 1, false, parent,
                  [&](auto link) { echo_side(link, run.warmup + run.iters); });
        _exit(0);
    }
    pin(cpu_a);
    double ticks_per_ns = tsc_ticks_per_ns();
    std::vector<double> ns;
    with_link(variant, shared, ring_bytes, 0, false, pid, [&](auto link) { ns = time_side(link, run, ticks_per_ns); });
    int status = 0;
    if (waitpid(pid, &status, 0) < 0)
        die("waitpid");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "shm_ladder: the echo process failed\n");
        return 1;
    }
    report(variant, ns);
    return 0;
}
