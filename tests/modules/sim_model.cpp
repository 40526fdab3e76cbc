// Checks that the `sim` module realises the network it claims: PRTT(n, d, s)
// of Hoefler et al. 2007 (Listing 1), measured through the module's own
// send/recv by a forked peer, must match eqs. (1) and (5), and a rendezvous
// ping-pong must cost one extra round trip per direction (LogGPS). The rules
// are checked in virtual time (--sim-clock virtual, the module's simulated
// clock read through its ABI 1.4 virtual_clock): exact, whatever the load of
// this machine. In real time only what holds on any machine is asserted: a
// busy-wait never ends before the model's time, so no round trip's median is
// shorter than the model's, and a bounded round trip shows the module does
// wait rather than hang. How close real time comes to the model depends on
// the machine's load (one CI run took 4.6 us more of 95.5), so that accuracy
// is measured by bench/loggp/sim-realtime.sh, not asserted here.
//
//     sim_model_test build/modules/ngx_sim.so
#include "harness.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using harness::Child;
using harness::Endpoint;
using harness::PairBootstrap;

const harness::Module* sim = nullptr;
constexpr uint64_t timeout_ns = 5'000'000'000;
constexpr int warmup = 20;
constexpr int repetitions = 200;
constexpr double virtual_tolerance = 1e-6; // relative, in virtual time: rounding to picoseconds

// The parameters the tests give the module, in microseconds.
struct Params {
    double L = 5, o_s = 1.5, o_r = 1, g = 4, G = 0.005;
    double O_s = 0, O_r = 0; // per-byte overheads, us/byte
    size_t S = 0;
    bool virtual_time = true;

    Endpoint::Options options() const
    {
        return {{"sim-L", std::to_string(L)},
                {"sim-os", std::to_string(o_s)},
                {"sim-or", std::to_string(o_r)},
                {"sim-g", std::to_string(g)},
                {"sim-G", std::to_string(G)},
                {"sim-S", std::to_string(S)},
                {"sim-O", std::to_string(O_s)},
                {"sim-Or", std::to_string(O_r)},
                {"sim-clock", virtual_time ? "virtual" : "real"}};
    }
    double per_byte(size_t s, double x) const { return s == 0 ? 0 : double(s - 1) * x; }
    double wire(size_t s) const { return per_byte(s, G); }
    // Hoefler et al. 2007, section 4: o_s(s) = o_s + (s-1) O_s, o_r(s) = o_r + (s-1) O_r.
    double send_overhead(size_t s) const { return o_s + per_byte(s, O_s); }
    double recv_overhead(size_t s) const { return o_r + per_byte(s, O_r); }
    // Hoefler et al. 2007, eq. (1) with o = (o_s(s) + o_r(s)) / 2.
    double prtt1(size_t s) const { return 2 * (L + send_overhead(s) + recv_overhead(s) + wire(s)); }
    // Hoefler et al. 2007, eq. (5) with o = o_s(s).
    double prtt(int n, double d, size_t s) const
    {
        return prtt1(s) + (n - 1) * std::max(send_overhead(s) + d, g + wire(s));
    }
    // LogGPS, Table 3 eq. (3) both ways, the receiver already waiting
    // (request and acknowledgement are zero-byte messages).
    double rendezvous_round_trip(size_t s) const { return prtt1(s) + 2 * 2 * (o_s + L + o_r); }
};

struct Case {
    int n;
    double d_us;
    size_t s;
    double expected_us;
};

// The client's clock: the module's simulated one in virtual time, else
// CLOCK_MONOTONIC; in microseconds.
class Clock {
public:
    explicit Clock(std::optional<ngx_virtual_clock> simulated) : simulated_(simulated) {}
    double now_us() const
    {
        return simulated_ ? double(simulated_->now(simulated_->ctx)) / simulated_->ticks_per_us
                          : double(harness::now_ns()) / 1e3;
    }
    // wait(d) of Listing 1: spins in real time, advances virtual time.
    void wait_us(double us) const
    {
        if (simulated_) {
            simulated_->advance_to(simulated_->ctx, simulated_->now(simulated_->ctx) +
                                                        uint64_t(std::llround(us * simulated_->ticks_per_us)));
            return;
        }
        uint64_t until = harness::now_ns() + uint64_t(us * 1e3);
        while (harness::now_ns() < until) {
        }
    }

private:
    std::optional<ngx_virtual_clock> simulated_;
};

// The server of Listing 1: n receptions, one reply.
int serve(const Params& params, const std::vector<Case>& cases, PairBootstrap& boot)
{
    Endpoint peer(*sim, params.options(), timeout_ns);
    if (peer.init_status() != NGX_OK || peer.connect(boot) != NGX_OK) {
        std::fprintf(stderr, "server: init/connect: %s\n", peer.message());
        return 1;
    }
    size_t largest = 0;
    for (const Case& c : cases)
        largest = std::max(largest, c.s);
    unsigned char* buf = peer.buffer(largest);
    for (const Case& c : cases)
        for (int rep = 0; rep < warmup + repetitions; ++rep) {
            for (int i = 0; i < c.n; ++i)
                if (peer.recv(buf, c.s) != NGX_OK) {
                    std::fprintf(stderr, "server: recv: %s\n", peer.message());
                    return 2;
                }
            if (peer.send(buf, c.s) != NGX_OK) {
                std::fprintf(stderr, "server: send: %s\n", peer.message());
                return 3;
            }
        }
    return 0;
}

// The client of Listing 1; the median PRTT of each case in microseconds.
std::vector<double> measure(const Params& params, const std::vector<Case>& cases)
{
    bool pin = harness::usable_cpus() >= 2;
    Child child([&](PairBootstrap& boot) { return serve(params, cases, boot); }, timeout_ns, pin ? 1 : -1);
    harness::CpuPin pinned(pin ? 0 : -1);
    Endpoint self(*sim, params.options(), timeout_ns);
    EXPECT_EQ(self.init_status(), NGX_OK) << self.message();
    EXPECT_EQ(self.connect(child.bootstrap()), NGX_OK) << self.message();
    size_t largest = 0;
    for (const Case& c : cases)
        largest = std::max(largest, c.s);
    unsigned char* buf = self.buffer(largest);
    const Clock clock(self.virtual_clock());
    EXPECT_EQ(params.virtual_time, self.virtual_clock().has_value()) << "the module's clock is not the one asked";
    std::vector<double> medians;
    for (const Case& c : cases) {
        std::vector<double> samples;
        for (int rep = 0; rep < warmup + repetitions; ++rep) {
            double start = clock.now_us();
            bool ok = self.send(buf, c.s) == NGX_OK;
            for (int i = 1; i < c.n && ok; ++i) {
                clock.wait_us(c.d_us);
                ok = self.send(buf, c.s) == NGX_OK;
            }
            ok = ok && self.recv(buf, c.s) == NGX_OK;
            if (!ok) {
                ADD_FAILURE() << "PRTT(" << c.n << ", " << c.d_us << ", " << c.s << "): " << self.message();
                return {};
            }
            if (rep >= warmup)
                samples.push_back(clock.now_us() - start);
        }
        medians.push_back(harness::median(samples));
    }
    EXPECT_EQ(child.wait_exit(10.0), 0) << "the server failed (see its stderr)";
    return medians;
}

void expect_matches(const std::vector<Case>& cases, const std::vector<double>& measured)
{
    ASSERT_EQ(measured.size(), cases.size());
    for (size_t i = 0; i < cases.size(); ++i) {
        const Case& c = cases[i];
        std::printf("[ model    ] PRTT(%d, %g, %zu): measured %.6g us, model %.6g us\n", c.n, c.d_us, c.s, measured[i],
                    c.expected_us);
        EXPECT_NEAR(measured[i], c.expected_us, virtual_tolerance * c.expected_us)
            << "PRTT(" << c.n << ", " << c.d_us << ", " << c.s << ")";
    }
}

// Real time: the median never undercuts the model (the clock's resolution,
// 0.1 us, aside) and stays below a bound no working busy-wait reaches
// (ten times the model plus a millisecond of scheduling).
void expect_within_physical_bounds(const std::vector<Case>& cases, const std::vector<double>& measured)
{
    constexpr double clock_resolution_us = 0.1;
    ASSERT_EQ(measured.size(), cases.size());
    for (size_t i = 0; i < cases.size(); ++i) {
        const Case& c = cases[i];
        std::printf("[ model    ] PRTT(%d, %g, %zu) in real time: measured %.6g us, model %.6g us\n", c.n, c.d_us, c.s,
                    measured[i], c.expected_us);
        EXPECT_GE(measured[i], c.expected_us - clock_resolution_us)
            << "PRTT(" << c.n << ", " << c.d_us << ", " << c.s << ") ended before the model's time";
        EXPECT_LE(measured[i], 10 * c.expected_us + 1000)
            << "PRTT(" << c.n << ", " << c.d_us << ", " << c.s << ") took far longer than the model";
    }
}

TEST(SimModel, SingleMessageRoundTripFollowsEquation1)
{
    Params p;
    std::vector<Case> cases;
    for (size_t s : {size_t(0), size_t(1), size_t(1024), size_t(16384)})
        cases.push_back({1, 0, s, p.prtt1(s)});
    expect_matches(cases, measure(p, cases));
}

TEST(SimModel, BackToBackMessagesFollowEquation5)
{
    Params p;
    std::vector<Case> cases;
    for (size_t s : {size_t(1), size_t(1024), size_t(16384)})
        cases.push_back({8, 0, s, p.prtt(8, 0, s)});
    expect_matches(cases, measure(p, cases));
}

TEST(SimModel, DelayedMessagesFollowEquation5)
{
    Params p;
    std::vector<Case> cases = {{8, 10, 1, p.prtt(8, 10, 1)}, {8, 2, 1024, p.prtt(8, 2, 1024)}};
    expect_matches(cases, measure(p, cases));
}

TEST(SimModel, RendezvousAddsOneRoundTripPerDirection)
{
    Params p;
    p.S = 4096;
    std::vector<Case> cases = {{1, 0, 4096, p.prtt1(4096)}, {1, 0, 16384, p.rendezvous_round_trip(16384)}};
    expect_matches(cases, measure(p, cases));
}

// --sim-O and --sim-Or: the sender is busy o_s + (s-1) O_s, the receiver
// o_r + (s-1) O_r. At 16 KiB they add 2 (32.8 + 8.2) us to PRTT(1,0,s), and
// PRTT(8,60,s) tells O_s from O_r (swapped, it would be 6% lower: the gap
// would then pace the sends).
TEST(SimModel, PerByteOverheadsFollowEquations1And5)
{
    Params p;
    p.O_s = 0.002;
    p.O_r = 0.0005;
    std::vector<Case> cases;
    for (size_t s : {size_t(1), size_t(4096), size_t(16384)})
        cases.push_back({1, 0, s, p.prtt1(s)});
    cases.push_back({8, 60, 16384, p.prtt(8, 60, 16384)});
    expect_matches(cases, measure(p, cases));
}

// Real time, end to end: the busy-waits keep the model on this machine's
// clock for short messages (their copy through the ring is negligible).
TEST(SimModel, RealTimeBusyWaitsNeverEndBeforeTheModel)
{
    Params p;
    p.virtual_time = false;
    std::vector<Case> cases;
    for (size_t s : {size_t(1), size_t(1024)})
        cases.push_back({1, 0, s, p.prtt1(s)});
    cases.push_back({8, 0, 1, p.prtt(8, 0, 1)});
    cases.push_back({8, 10, 1, p.prtt(8, 10, 1)});
    expect_within_physical_bounds(cases, measure(p, cases));
}

TEST(SimModel, InvalidParametersAreRejectedByName)
{
    struct Bad {
        const char* name;
        const char* value;
    };
    for (Bad bad : {Bad{"sim-L", "0.5"}, Bad{"sim-L", "-1"}, Bad{"sim-os", "-0.1"}, Bad{"sim-or", "nan"},
                    Bad{"sim-g", "inf"}, Bad{"sim-G", "-1e-3"}, Bad{"sim-S", "-5"}, Bad{"sim-ring-bytes", "5000"},
                    Bad{"sim-O", "-0.001"}, Bad{"sim-Or", "nan"}}) {
        Endpoint endpoint(*sim, {{bad.name, bad.value}}, timeout_ns);
        EXPECT_EQ(endpoint.init_status(), NGX_ERR_INVALID_OPTION) << bad.name << "=" << bad.value;
        EXPECT_NE(std::string(endpoint.message()).find(bad.name), std::string::npos) << endpoint.message();
    }
}

} // namespace

int main(int argc, char** argv)
{
    testing::InitGoogleTest(&argc, argv);
    std::string path = harness::module_path_from(argc, argv);
    std::string error;
    static std::optional<harness::Module> loaded = path.empty() ? std::nullopt : harness::Module::load(path, &error);
    if (!loaded) {
        std::fprintf(stderr, "usage: %s path/to/ngx_sim.so (%s)\n", argv[0], error.c_str());
        return 2;
    }
    sim = &*loaded;
    return RUN_ALL_TESTS();
}
