// Per-mode checks of the ibv module (send, write, read) between two processes
// on one RDMA device, built on the module test harness of tests/modules
// (dlopen, fork, socketpair bootstrap). The generic conformance suite runs the
// module with its default options; this adds what depends on --ibv-mode:
// every size intact both ways, a one-way burst (write-mode credits), isend /
// irecv, a dead peer, and the 1-byte half round trip. Option errors are
// checked once, without a peer.
//
//     ibv_modes build/modules/ibv/ngx_ibv.so send|write|read|options [NAME=VALUE...]
//
// NAME=VALUE arguments add module options (ibv-inline=0); IBV_MODES_ONLY=latency
// runs only the latency check.
// Exit 0 when every check passed; each check prints one line.
#include "../modules/harness.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using harness::Child;
using harness::PairBootstrap;

constexpr uint64_t kTimeout = 10'000'000'000;
constexpr size_t kLargest = size_t(1) << 20;

const harness::Module* mod = nullptr;
std::string mode;
std::vector<std::pair<std::string, std::string>> extra_options; // NAME=VALUE arguments
int failures = 0;

void report(bool ok, const std::string& what, const std::string& detail = "")
{
    if (ok)
        std::printf("ibv_modes: %-5s %-34s ok\n", mode.c_str(), what.c_str());
    else
        std::printf("ibv_modes: %-5s %-34s FAIL: %s\n", mode.c_str(), what.c_str(), detail.c_str());
    std::fflush(stdout);
    failures += ok ? 0 : 1;
}

// One instance of the module driven through its ops table, with isend/irecv.
class Peer {
public:
    explicit Peer(std::vector<std::pair<std::string, std::string>> extra = {}, uint64_t timeout = kTimeout)
    {
        values_ = std::move(extra); // first: the module takes the first value of a name
        values_.push_back({"ibv-mode", mode});
        values_.insert(values_.end(), extra_options.begin(), extra_options.end());
        for (auto& [name, value] : values_)
            opts_.push_back({name.c_str(), value.c_str()});
        ngx_init_args args{};
        args.size = sizeof args;
        args.options = opts_.data();
        args.option_count = opts_.size();
        args.timeout_ns = timeout;
        args.max_message_size = kLargest;
        status = ops().init(&args, &ctx_, &err);
    }
    ~Peer()
    {
        for (void* b : bufs_)
            ops().free(ctx_, b);
        if (status == NGX_OK || ctx_ != nullptr)
            ops().finalize(ctx_);
    }
    Peer(const Peer&) = delete;
    Peer& operator=(const Peer&) = delete;

    static const ngx_module_ops& ops() { return mod->ops(); }
    bool connect(PairBootstrap& boot) { return (status = ops().connect(ctx_, boot.get(), &err)) == NGX_OK; }
    unsigned char* buffer(size_t len)
    {
        void* b = nullptr;
        if (ops().alloc(ctx_, len, &b, &err) != NGX_OK)
            return nullptr;
        bufs_.push_back(b);
        return static_cast<unsigned char*>(b);
    }
    ngx_status send(const void* b, size_t n) { return ops().send(ctx_, b, n, &err); }
    ngx_status recv(void* b, size_t n) { return ops().recv(ctx_, b, n, &err); }
    ngx_status isend(const void* b, size_t n, ngx_request* r) { return ops().isend(ctx_, b, n, r, &err); }
    ngx_status irecv(void* b, size_t n, ngx_request* r) { return ops().irecv(ctx_, b, n, r, &err); }
    ngx_status wait(ngx_request* r) { return ops().wait(ctx_, r, &err); }
    ngx_status test(ngx_request* r, int* done) { return ops().test(ctx_, r, done, &err); }

    ngx_status status = NGX_ERR_SYSTEM;
    ngx_error err{};

private:
    void* ctx_ = nullptr;
    std::vector<std::pair<std::string, std::string>> values_;
    std::vector<ngx_option_value> opts_;
    std::vector<void*> bufs_;
};

std::vector<size_t> sizes()
{
    return {0, 1, 7, 63, 64, 65, 255, 256, 257, 1000, 4095, 4096, 4097, 65536, 65537, 262144, 1048575, 1048576};
}

uint32_t seed(size_t size, int dir)
{
    return uint32_t(size * 2654435761u + unsigned(dir));
}

int child_fail(const char* what, const Peer& p)
{
    std::fprintf(stderr, "ibv_modes child: %s: %s\n", what, p.err.message);
    return 1;
}

// ---- checks -----------------------------------------------------------------

void check_every_size()
{
    Child child(
        [](PairBootstrap& boot) {
            Peer p;
            unsigned char* buf = nullptr;
            if (p.status != NGX_OK || !p.connect(boot) || (buf = p.buffer(kLargest)) == nullptr)
                return child_fail("setup", p);
            for (size_t n : sizes()) {
                if (p.recv(buf, n) != NGX_OK)
                    return child_fail("recv", p);
                if (harness::first_mismatch(buf, n, seed(n, 0)) >= 0)
                    return child_fail("corrupt message", p);
                harness::fill_pattern(buf, n, seed(n, 1));
                if (p.send(buf, n) != NGX_OK)
                    return child_fail("send", p);
            }
            return 0;
        },
        kTimeout);
    Peer p;
    unsigned char* buf = nullptr;
    if (p.status != NGX_OK || !p.connect(child.bootstrap()) || (buf = p.buffer(kLargest)) == nullptr)
        return report(false, "every size intact both ways", p.err.message);
    for (size_t n : sizes()) {
        harness::fill_pattern(buf, n, seed(n, 0));
        ngx_status st = p.send(buf, n);
        std::memset(buf, 0x5a, n);
        if (st == NGX_OK)
            st = p.recv(buf, n);
        if (st != NGX_OK)
            return report(false, "every size intact both ways", std::to_string(n) + " B: " + p.err.message);
        if (harness::first_mismatch(buf, n, seed(n, 1)) >= 0)
            return report(false, "every size intact both ways", std::to_string(n) + " B reply corrupt");
    }
    report(child.wait_exit(10) == 0, "every size intact both ways", "(child failed)");
}

constexpr int kBurst = 200;
size_t burst_size(int i)
{
    return std::vector<size_t>{1, 100, 5000, 70000, 0, 300000}[size_t(i) % 6];
}

void check_burst()
{
    Child child(
        [](PairBootstrap& boot) {
            Peer p;
            unsigned char* buf = nullptr;
            if (p.status != NGX_OK || !p.connect(boot) || (buf = p.buffer(kLargest)) == nullptr)
                return child_fail("setup", p);
            for (int i = 0; i < kBurst; ++i) {
                harness::fill_pattern(buf, burst_size(i), uint32_t(i));
                if (p.send(buf, burst_size(i)) != NGX_OK)
                    return child_fail("send", p);
            }
            return p.recv(buf, 1) == NGX_OK ? 0 : child_fail("final recv", p);
        },
        kTimeout);
    Peer p;
    unsigned char* buf = nullptr;
    if (p.status != NGX_OK || !p.connect(child.bootstrap()) || (buf = p.buffer(kLargest)) == nullptr)
        return report(false, "burst of 200 in order", p.err.message);
    for (int i = 0; i < kBurst; ++i) {
        if (p.recv(buf, burst_size(i)) != NGX_OK)
            return report(false, "burst of 200 in order", "#" + std::to_string(i) + ": " + p.err.message);
        if (harness::first_mismatch(buf, burst_size(i), uint32_t(i)) >= 0)
            return report(false, "burst of 200 in order", "#" + std::to_string(i) + " corrupt");
    }
    bool ok = p.send(buf, 1) == NGX_OK;
    report(ok && child.wait_exit(10) == 0, "burst of 200 in order", p.err.message);
}

// Both sides post irecv before isend, twice over four buffers, and poll test().
int nonblocking_side(Peer& p, int rank)
{
    unsigned char* s = p.buffer(65536);
    unsigned char* r = p.buffer(65536);
    if (s == nullptr || r == nullptr)
        return 1;
    for (size_t n : {size_t(8), size_t(65536)}) {
        ngx_request rr = 0, sr = 0;
        harness::fill_pattern(s, n, seed(n, rank));
        if (p.irecv(r, n, &rr) != NGX_OK || p.isend(s, n, &sr) != NGX_OK)
            return 2;
        int done = 0;
        for (int spins = 0; !done && spins < 100000000; ++spins)
            if (p.test(&rr, &done) != NGX_OK)
                return 3;
        if (!done || p.wait(&sr) != NGX_OK)
            return 4;
        if (harness::first_mismatch(r, n, seed(n, 1 - rank)) >= 0)
            return 5;
    }
    return 0;
}

void check_nonblocking()
{
    Child child(
        [](PairBootstrap& boot) {
            Peer p;
            if (p.status != NGX_OK || !p.connect(boot))
                return child_fail("setup", p);
            int rc = nonblocking_side(p, 1);
            return rc == 0 ? 0 : child_fail(("step " + std::to_string(rc)).c_str(), p);
        },
        kTimeout);
    Peer p;
    if (p.status != NGX_OK || !p.connect(child.bootstrap()))
        return report(false, "isend/irecv/test/wait", p.err.message);
    int rc = nonblocking_side(p, 0);
    report(rc == 0 && child.wait_exit(10) == 0, "isend/irecv/test/wait",
           "step " + std::to_string(rc) + ": " + p.err.message);
}

void check_unregistered()
{
    Child child(
        [](PairBootstrap& boot) {
            Peer p;
            return p.status == NGX_OK && p.connect(boot) ? 0 : 1;
        },
        kTimeout);
    Peer p;
    if (p.status != NGX_OK || !p.connect(child.bootstrap()))
        return report(false, "unregistered memory refused", p.err.message);
    static char stack_buffer[64];
    ngx_status st = p.send(stack_buffer, sizeof stack_buffer);
    bool ok = st == NGX_ERR_UNSUPPORTED && std::strstr(p.err.message, "not registered") != nullptr;
    report(ok, "unregistered memory refused", p.err.message);
    child.wait_exit(10);
}

void check_dead_peer()
{
    Child child(
        [](PairBootstrap& boot) {
            Peer p;
            if (p.status != NGX_OK || !p.connect(boot))
                return 1;
            boot.barrier();
            _exit(0); // vanish without finalize: the QP dies with the process
        },
        kTimeout);
    Peer p({}, 2'000'000'000);
    unsigned char* buf = nullptr;
    if (p.status != NGX_OK || !p.connect(child.bootstrap()) || (buf = p.buffer(65536)) == nullptr)
        return report(false, "dead peer detected", p.err.message);
    child.bootstrap().barrier();
    child.wait_exit(5);
    uint64_t start = harness::now_ns();
    ngx_status st = NGX_OK;
    for (int i = 0; i < 64 && st == NGX_OK; ++i)
        st = p.send(buf, 65536);
    if (st == NGX_OK)
        st = p.recv(buf, 1);
    double secs = harness::seconds_since(start);
    bool ok = (st == NGX_ERR_PEER_LOST || st == NGX_ERR_TIMEOUT) && secs < 3.5;
    report(ok, "dead peer detected",
           "status " + std::to_string(st) + " after " + std::to_string(secs) + " s: " + p.err.message);
}

void check_latency()
{
    // A functional check: the median is printed, not judged (TCG).
    constexpr int warmup = 10, rounds = 50;
    bool pinned = harness::usable_cpus() >= 2; // spinning peers on one CPU wait for time slices
    Child child(
        [](PairBootstrap& boot) {
            Peer p;
            unsigned char* buf = nullptr;
            if (p.status != NGX_OK || !p.connect(boot) || (buf = p.buffer(1)) == nullptr)
                return child_fail("setup", p);
            for (int i = 0; i < warmup + rounds; ++i)
                if (p.recv(buf, 1) != NGX_OK || p.send(buf, 1) != NGX_OK)
                    return child_fail("pingpong", p);
            return 0;
        },
        kTimeout, pinned ? 1 : -1);
    harness::CpuPin pin(pinned ? 0 : -1);
    Peer p;
    unsigned char* buf = nullptr;
    if (p.status != NGX_OK || !p.connect(child.bootstrap()) || (buf = p.buffer(1)) == nullptr)
        return report(false, "1-byte half round trip", p.err.message);
    std::vector<double> us;
    for (int i = 0; i < warmup + rounds; ++i) {
        uint64_t t0 = harness::now_ns();
        if (p.send(buf, 1) != NGX_OK || p.recv(buf, 1) != NGX_OK)
            return report(false, "1-byte half round trip", p.err.message);
        if (i >= warmup)
            us.push_back(double(harness::now_ns() - t0) / 2e3);
    }
    double median = harness::median(us);
    char text[64];
    std::snprintf(text, sizeof text, "median %.1f us", median);
    report(median > 0 && child.wait_exit(10) == 0, "1-byte half round trip (" + std::string(text) + ")", text);
    std::printf("ibv_modes: result mode=%s half_rtt_1B_us=%.2f\n", mode.c_str(), median);
}

void expect_option_error(const std::vector<std::pair<std::string, std::string>>& opts, const char* needle,
                         const std::string& what)
{
    Peer p(opts);
    bool ok = p.status == NGX_ERR_INVALID_OPTION && std::strstr(p.err.message, needle) != nullptr;
    report(ok, what, std::string("status ") + std::to_string(p.status) + ": " + p.err.message);
    if (ok)
        std::printf("           message: %s\n", p.err.message);
}

void check_options()
{
    expect_option_error({{"ibv-device", "nosuch0"}}, "no such RDMA device", "unknown device refused");
    expect_option_error({{"ibv-port", "9"}}, "no such port", "nonexistent port refused");
    expect_option_error({{"ibv-gid", "4000"}}, "out of range", "GID index out of range refused");
    expect_option_error({{"ibv-gid", "200"}}, "empty", "empty GID entry refused");
    expect_option_error({{"ibv-mode", "atomic"}}, "expected send, write or read", "unknown mode refused");
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s MODULE.so send|write|read|options [NAME=VALUE...]\n", argv[0]);
        return 2;
    }
    std::string error;
    static std::optional<harness::Module> loaded = harness::Module::load(argv[1], &error);
    if (!loaded) {
        std::fprintf(stderr, "cannot load %s: %s\n", argv[1], error.c_str());
        return 1;
    }
    mod = &*loaded;
    mode = argv[2];
    for (int i = 3; i < argc; ++i) {
        const char* eq = std::strchr(argv[i], '=');
        if (eq != nullptr)
            extra_options.push_back({std::string(argv[i], size_t(eq - argv[i])), std::string(eq + 1)});
    }
    const char* only = std::getenv("IBV_MODES_ONLY");
    if (only != nullptr && std::string(only) == "latency") {
        check_latency();
    } else if (mode == "options") {
        mode = "send";
        check_options();
    } else {
        check_every_size();
        check_burst();
        check_nonblocking();
        check_unregistered();
        check_dead_peer();
        check_latency();
    }
    std::printf("ibv_modes: %s: %d failure(s)\n", argv[2], failures);
    return failures == 0 ? 0 : 1;
}
