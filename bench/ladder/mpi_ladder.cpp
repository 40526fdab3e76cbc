// mpi_ladder.cpp: the variant ladder from the minimal MPI_Send/MPI_Recv
// ping-pong to what `ngx -m mpi -x pingpong` runs, one step at a time, so
// that what ngx adds over the minimal program is known step by step. Every
// step adds one thing to the one before it:
//
//   batch    the minimal program: MPI_Send then MPI_Recv on MPI_COMM_WORLD,
//            the timer (rdtscp) read once per batch of -B round trips, a
//            sample is the batch's mean
//   wtime    + MPI_Wtime() around every round trip (bench/mpi/pingpong.c)
//   tsc      + rdtscp around every round trip instead (ngx's timer)
//   ops      + the module's calling convention: send/recv through a table of
//            function pointers (ctx, buf, len, err) on a duplicated
//            communicator, as ngx's Transport calls modules/mpi
//   checks   + what ngx's timed loop does per repetition besides the calls:
//            the cancel flag, the progress mark for the watchdog, the sample
//            stored as ticks, and the module's mode and layout branches
//   funneled + MPI initialised with MPI_THREAD_FUNNELED instead of MPI_Init
//            (as core/src/mpi_bootstrap.cpp does)
//   threads  + a second thread waking every 50 ms (ngx's watchdog): what
//            ngx's process has around the loop
//
//     mpirun -np 2 build/bench/mpi_ladder -v tsc -n 20000 -w 1000
//   rank 0 prints   variant median_us min_us mean_us samples
#include "ladder.hpp"

#include <mpi.h>
#include <unistd.h>
#include <x86intrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

[[noreturn]] void usage()
{
    std::fprintf(stderr,
                 "usage: mpi_ladder -v batch|wtime|tsc|ops|checks|funneled|threads [-w N] [-n N] [-B N] [-s BYTES]\n");
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (initialised)
        MPI_Abort(MPI_COMM_WORLD, 2);
    std::exit(2);
}

namespace {

using namespace ladder;

// ---- links ----------------------------------------------------------------------

struct Plain {
    MPI_Comm comm;
    int peer;
    void send(void* buf, int len) { MPI_Send(buf, len, MPI_BYTE, peer, 0, comm); }
    void recv(void* buf, int len) { MPI_Recv(buf, len, MPI_BYTE, peer, 0, comm, MPI_STATUS_IGNORE); }
};

struct Error {
    char message[512];
};

struct Context {
    MPI_Comm comm;
    int peer;
    // What modules/mpi looks at before each blocking call.
    int mode = 0; // 0: standard
    bool poll = false;
    bool preposted = false;
    size_t element_stride = 1;
};

struct Ops {
    int (*send)(void* ctx, const void* buf, size_t len, Error* err);
    int (*recv)(void* ctx, void* buf, size_t len, Error* err);
};

[[gnu::noinline]] int direct_send(void* ctx, const void* buf, size_t len, Error*)
{
    auto* c = static_cast<Context*>(ctx);
    return MPI_Send(buf, int(len), MPI_BYTE, c->peer, 1, c->comm);
}
[[gnu::noinline]] int direct_recv(void* ctx, void* buf, size_t len, Error*)
{
    auto* c = static_cast<Context*>(ctx);
    return MPI_Recv(buf, int(len), MPI_BYTE, c->peer, 1, c->comm, MPI_STATUS_IGNORE);
}
// With the branches modules/mpi's blocking path takes before it calls MPI.
[[gnu::noinline]] int branchy_send(void* ctx, const void* buf, size_t len, Error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (c->poll || c->mode != 0 || c->element_stride != 1) {
        std::snprintf(err->message, sizeof err->message, "unexpected mode");
        return 1;
    }
    return MPI_Send(buf, int(len), MPI_BYTE, c->peer, 1, c->comm);
}
[[gnu::noinline]] int branchy_recv(void* ctx, void* buf, size_t len, Error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (c->preposted || c->poll || c->mode != 0 || c->element_stride != 1) {
        std::snprintf(err->message, sizeof err->message, "unexpected mode");
        return 1;
    }
    return MPI_Recv(buf, int(len), MPI_BYTE, c->peer, 1, c->comm, MPI_STATUS_IGNORE);
}

struct OpsLink {
    const Ops* ops;
    Context* ctx;
    Error err{};
    void send(void* buf, int len)
    {
        if (ops->send(ctx, buf, size_t(len), &err) != 0)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    void recv(void* buf, int len)
    {
        if (ops->recv(ctx, buf, size_t(len), &err) != 0)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
};

// ---- the timed loops ----------------------------------------------------------------

struct Run : ladder::Counts {
    std::string variant;
    int bytes = 1;
};

// Per-repetition work of ngx's driver loop (patterns/measure/src/prtt.cpp).
struct LoopChecks {
    const volatile int* cancel;
    std::atomic<uint64_t>* progress;
    bool interrupted() const { return *cancel != 0; }
};

// Not inlined, so that callgrind can tell the loop's own instructions (run.sh).
template <typename Link>
[[gnu::noinline]] std::vector<double> time_side(Link link, const Run& run, char* buf, double ticks_per_ns,
                                                const LoopChecks* checks)
{
    long total = run.warmup + run.iters;
    std::vector<double> ns;
    if (run.variant == "batch") {
        for (long i = 0; i < run.warmup; ++i) {
            link.send(buf, run.bytes);
            link.recv(buf, run.bytes);
        }
        for (long b = 0; b < run.iters / run.batch; ++b) {
            uint64_t t0 = tsc();
            for (long i = 0; i < run.batch; ++i) {
                link.send(buf, run.bytes);
                link.recv(buf, run.bytes);
            }
            ns.push_back(double(tsc() - t0) / ticks_per_ns / double(run.batch) / 2);
        }
        return ns;
    }
    if (run.variant == "wtime") {
        for (long i = 0; i < total; ++i) {
            double t0 = MPI_Wtime();
            link.send(buf, run.bytes);
            link.recv(buf, run.bytes);
            double t1 = MPI_Wtime();
            if (i >= run.warmup)
                ns.push_back((t1 - t0) * 1e9 / 2);
        }
        return ns;
    }
    std::vector<uint64_t> ticks(size_t(run.iters));
    for (long i = 0; i < total; ++i) {
        if (checks != nullptr) {
            if (checks->interrupted())
                MPI_Abort(MPI_COMM_WORLD, 1);
            checks->progress->store(uint64_t(i), std::memory_order_relaxed);
        }
        uint64_t t0 = tsc();
        link.send(buf, run.bytes);
        link.recv(buf, run.bytes);
        uint64_t t1 = tsc();
        if (i >= run.warmup)
            ticks[size_t(i - run.warmup)] = t1 - t0;
    }
    for (uint64_t t : ticks)
        ns.push_back(double(t) / ticks_per_ns / 2);
    return ns;
}

template <typename Link>
[[gnu::noinline]] void echo_side(Link link, const Run& run, char* buf, const LoopChecks* checks)
{
    for (long i = 0; i < run.warmup + run.iters; ++i) {
        if (checks != nullptr) {
            if (checks->interrupted())
                MPI_Abort(MPI_COMM_WORLD, 1);
            checks->progress->store(uint64_t(i), std::memory_order_relaxed);
        }
        link.recv(buf, run.bytes);
        link.send(buf, run.bytes);
    }
}

} // namespace

int main(int argc, char** argv)
{
    Run run;
    for (int c; (c = getopt(argc, argv, "v:w:n:B:s:h")) != -1;) {
        switch (c) {
        case 'v':
            run.variant = optarg;
            break;
        case 's':
            run.bytes = int(parse_long(optarg));
            break;
        default:
            if (!ladder::parse_count(c, optarg, run))
                usage();
        }
    }
    const std::string known[] = {"batch", "wtime", "tsc", "ops", "checks", "funneled", "threads"};
    if (optind != argc || std::find(std::begin(known), std::end(known), run.variant) == std::end(known) ||
        !run.valid() || run.bytes < 0)
        usage();
    bool threads = run.variant == "threads";
    bool funneled = threads || run.variant == "funneled";
    if (funneled) {
        int provided = 0;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    } else {
        MPI_Init(&argc, &argv);
    }
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2)
        usage();
    std::atomic<bool> stop{false};
    std::thread watchdog([&] {
        while (threads && !stop.load())
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
    });
    std::vector<char> buffer(size_t(run.bytes) + 1);
    double ticks_per_ns = rank == 0 ? tsc_ticks_per_ns() : 0;
    int peer = 1 - rank;
    Context ctx{MPI_COMM_NULL, peer};
    MPI_Comm_dup(MPI_COMM_WORLD, &ctx.comm);
    static const Ops direct{direct_send, direct_recv};
    static const Ops branchy{branchy_send, branchy_recv};
    bool with_checks = run.variant == "checks" || funneled;
    const Ops* ops = with_checks ? &branchy : &direct;
    asm volatile("" : "+r"(ops)); // an opaque table, as a dlopen()ed module's is
    const volatile int cancel = 0;
    std::atomic<uint64_t> progress{0};
    LoopChecks loop{&cancel, &progress};
    const LoopChecks* checks = with_checks ? &loop : nullptr;
    bool through_ops = run.variant == "ops" || with_checks;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        std::vector<double> ns = through_ops
                                     ? time_side(OpsLink{ops, &ctx}, run, buffer.data(), ticks_per_ns, checks)
                                     : time_side(Plain{MPI_COMM_WORLD, peer}, run, buffer.data(), ticks_per_ns, checks);
        report(run.variant, ns);
    } else if (through_ops) {
        echo_side(OpsLink{ops, &ctx}, run, buffer.data(), checks);
    } else {
        echo_side(Plain{MPI_COMM_WORLD, peer}, run, buffer.data(), checks);
    }
    stop = true;
    watchdog.join();
    MPI_Comm_free(&ctx.comm);
    MPI_Finalize();
    return 0;
}
