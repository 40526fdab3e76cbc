// Conformance suite for any ngx transport module: run it with the path of a
// module .so (first argument, or NGX_TEST_MODULE). It checks the descriptor
// against the ABI, option validation, message integrity over all sizes, the
// deadline with a silent, a dead and an absent peer, and the cancel flag.
// The peer is a forked process talking over a socketpair bootstrap.
//
//     module_conformance build/modules/tcp/ngx_tcp.so --gtest_filter='PingPong.*'
//     module_conformance build/modules/shm/ngx_shm.so shm-ring-bytes=4096
//
// NAME=VALUE arguments after the path are module options for every endpoint.
#include "harness.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>

namespace {

using harness::Child;
using harness::Endpoint;
using harness::PairBootstrap;

constexpr uint64_t short_timeout_ns = 1'000'000'000; // the deadline under test
constexpr double short_timeout_s = 1.0;
constexpr uint64_t setup_timeout_ns = 5'000'000'000;
constexpr size_t largest_message = size_t(1) << 20;

const harness::Module* module_under_test = nullptr;
Endpoint::Options extra_options; // NAME=VALUE arguments after the module path

const Endpoint::Options& run_options()
{
    return extra_options;
}

const harness::Module& module()
{
    return *module_under_test;
}
const ngx_module& descriptor()
{
    return *module().descriptor;
}

std::string file_name(const std::string& path)
{
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

size_t size_limit()
{
    uint64_t max = descriptor().max_message_size;
    return max != 0 && max < largest_message ? size_t(max) : largest_message;
}

std::vector<size_t> message_sizes()
{
    std::vector<size_t> sizes;
    if (module().has(NGX_CAP_ZERO_BYTE))
        sizes.push_back(0);
    for (size_t s : {1,   2,    3,    7,    8,    31,    55,    56,    57,    63,    64,     65,      127,
                     128, 1000, 4095, 4096, 4097, 16383, 16384, 65535, 65536, 65537, 262144, 1048575, 1048576})
        if (s <= size_limit())
            sizes.push_back(s);
    return sizes;
}

uint32_t seed_for(size_t size, int round, int direction)
{
    return uint32_t(size * 7919u + unsigned(round) * 104729u + unsigned(direction));
}

// The child's side of most tests: connect, meet at a barrier, then stay
// silent until killed.
Child::Body connect_then_sleep()
{
    return [](PairBootstrap& boot) {
        Endpoint peer(module(), run_options(), setup_timeout_ns);
        if (peer.init_status() != NGX_OK || peer.connect(boot) != NGX_OK) {
            std::fprintf(stderr, "child: init/connect: %s\n", peer.message());
            return 1;
        }
        if (boot.barrier() != NGX_OK)
            return 2;
        for (;;)
            pause();
    };
}

// ---- descriptor -------------------------------------------------------------

TEST(Descriptor, MatchesTheAbi)
{
    const ngx_module& d = descriptor();
    EXPECT_EQ(d.abi_major, uint32_t(NGX_MODULE_ABI_MAJOR));
    // Minor versions append members: what this suite reads must be there.
    EXPECT_GE(d.size, offsetof(ngx_module, ops) + sizeof d.ops);
    ASSERT_NE(d.name, nullptr);
    EXPECT_EQ(file_name(module().path), "ngx_" + std::string(d.name) + ".so");
    ASSERT_NE(d.description, nullptr);
    EXPECT_STRNE(d.description, "");
    ASSERT_NE(d.version, nullptr);
    EXPECT_STRNE(d.version, "");
    ASSERT_NE(d.ops, nullptr);
    EXPECT_GE(d.ops->size, offsetof(ngx_module_ops, finalize) + sizeof d.ops->finalize);
    EXPECT_NE(d.ops->init, nullptr);
    EXPECT_NE(d.ops->connect, nullptr);
    EXPECT_NE(d.ops->send, nullptr);
    EXPECT_NE(d.ops->recv, nullptr);
    EXPECT_NE(d.ops->finalize, nullptr);
    EXPECT_EQ(d.ops->alloc == nullptr, d.ops->free == nullptr) << "alloc and free come as a pair";
}

TEST(Descriptor, OptionsCarryTheModulePrefix)
{
    const ngx_module& d = descriptor();
    ASSERT_TRUE(d.option_count == 0 || d.options != nullptr);
    std::string prefix = std::string(d.name) + "-";
    std::set<std::string> seen;
    for (size_t i = 0; i < d.option_count; ++i) {
        const ngx_option_spec& o = d.options[i];
        ASSERT_NE(o.name, nullptr);
        EXPECT_EQ(std::string(o.name).rfind(prefix, 0), 0u) << o.name << " lacks the prefix " << prefix;
        EXPECT_TRUE(seen.insert(o.name).second) << o.name << " is listed twice";
        ASSERT_NE(o.help, nullptr) << o.name;
        EXPECT_STRNE(o.help, "") << o.name;
    }
}

TEST(Descriptor, CapabilitiesAreKnownAndBackedByOperations)
{
    const ngx_module& d = descriptor();
    constexpr uint32_t known = NGX_CAP_RELIABLE | NGX_CAP_NONBLOCKING | NGX_CAP_RDMA | NGX_CAP_REGISTERED_MEMORY |
                               NGX_CAP_SAME_NODE_ONLY | NGX_CAP_ZERO_BYTE | NGX_CAP_DATATYPES | NGX_CAP_COLLECTIVES |
                               NGX_CAP_SEND_TO_SELF | NGX_CAP_PEER_LINKS | NGX_CAP_LIBRARY_COLLECTIVES |
                               NGX_CAP_ONE_SIDED;
    EXPECT_EQ(d.capabilities & ~known, 0u) << "unknown capability bits";
    // ABI 1.2: the optional operations the two new capabilities promise.
    auto covers = [&](size_t end) { return d.ops->size >= end; };
    if (module().has(NGX_CAP_DATATYPES)) {
        EXPECT_TRUE(covers(offsetof(ngx_module_ops, set_layout) + sizeof d.ops->set_layout) &&
                    d.ops->set_layout != nullptr)
            << "NGX_CAP_DATATYPES needs set_layout()";
    }
    if (module().has(NGX_CAP_SEND_TO_SELF)) {
        EXPECT_TRUE(covers(offsetof(ngx_module_ops, set_layout) + sizeof d.ops->set_layout) &&
                    d.ops->set_layout != nullptr)
            << "NGX_CAP_SEND_TO_SELF needs set_layout()";
    }
    if (module().has(NGX_CAP_COLLECTIVES)) {
        EXPECT_TRUE(covers(offsetof(ngx_module_ops, bcast) + sizeof d.ops->bcast) && d.ops->bcast != nullptr)
            << "NGX_CAP_COLLECTIVES needs bcast()";
    }
    if (module().has(NGX_CAP_PEER_LINKS)) { // ABI 1.5: rank layouts with several peers
        EXPECT_TRUE(covers(offsetof(ngx_module_ops, select_peer) + sizeof d.ops->select_peer) &&
                    d.ops->open_link != nullptr && d.ops->select_peer != nullptr)
            << "NGX_CAP_PEER_LINKS needs open_link() and select_peer()";
    }
    if (module().has(NGX_CAP_ONE_SIDED)) { // ABI 1.7: put, get and flush into an exposed window
        EXPECT_TRUE(covers(offsetof(ngx_module_ops, flush) + sizeof d.ops->flush) && d.ops->expose != nullptr &&
                    d.ops->put != nullptr && d.ops->get != nullptr && d.ops->flush != nullptr)
            << "NGX_CAP_ONE_SIDED needs expose(), put(), get() and flush()";
    }
    if (module().has(NGX_CAP_NONBLOCKING)) {
        EXPECT_NE(d.ops->isend, nullptr);
        EXPECT_NE(d.ops->irecv, nullptr);
        EXPECT_NE(d.ops->test, nullptr);
        EXPECT_NE(d.ops->wait, nullptr);
    }
    if (d.ops->isend != nullptr || d.ops->irecv != nullptr) {
        EXPECT_TRUE(d.ops->test != nullptr && d.ops->wait != nullptr) << "isend/irecv without test/wait";
    }
    if (module().has(NGX_CAP_REGISTERED_MEMORY)) {
        EXPECT_NE(d.ops->alloc, nullptr) << "registered memory needs alloc()";
    }
}

// ---- lifecycle and options ----------------------------------------------------

TEST(Lifecycle, InitWithDefaultsThenFinalizeWithoutConnect)
{
    Endpoint endpoint(module(), run_options(), short_timeout_ns);
    EXPECT_EQ(endpoint.init_status(), NGX_OK) << endpoint.message();
}

TEST(Lifecycle, AllocGivesWritableAlignedBuffers)
{
    if (descriptor().ops->alloc == nullptr)
        GTEST_SKIP() << "the module has no alloc()";
    Endpoint endpoint(module(), run_options(), short_timeout_ns);
    ASSERT_EQ(endpoint.init_status(), NGX_OK) << endpoint.message();
    for (size_t len : {size_t(0), size_t(1), size_t(4096), largest_message}) {
        unsigned char* buf = endpoint.buffer(len);
        ASSERT_NE(buf, nullptr) << len << " bytes: " << endpoint.message();
        EXPECT_EQ(reinterpret_cast<uintptr_t>(buf) % alignof(std::max_align_t), 0u) << len << " bytes";
        harness::fill_pattern(buf, len, 1);
        EXPECT_EQ(harness::first_mismatch(buf, len, 1), -1);
    }
}

bool looks_numeric(const char* text)
{
    if (text == nullptr || *text == '\0')
        return false;
    char* end = nullptr;
    std::strtod(text, &end);
    return *end == '\0';
}

TEST(Options, NonNumericValuesForNumericOptionsAreRejected)
{
    int checked = 0;
    for (size_t i = 0; i < descriptor().option_count; ++i) {
        const ngx_option_spec& o = descriptor().options[i];
        if (!looks_numeric(o.default_value))
            continue;
        for (const char* junk : {"abc", "12x", "1..2"}) {
            Endpoint::Options options = run_options();
            options[o.name] = junk;
            Endpoint endpoint(module(), options, short_timeout_ns);
            EXPECT_EQ(endpoint.init_status(), NGX_ERR_INVALID_OPTION) << "--" << o.name << "=" << junk;
            EXPECT_NE(std::string(endpoint.message()).find(o.name), std::string::npos)
                << "the message should name the option: \"" << endpoint.message() << "\"";
            ++checked;
        }
    }
    if (checked == 0)
        GTEST_SKIP() << "the module has no option with a numeric default";
}

// ---- messages -------------------------------------------------------------------

// The child echoes every size twice, each reply with its own pattern, and
// checks every byte it receives.
int echo_all_sizes(PairBootstrap& boot)
{
    Endpoint peer(module(), run_options(), setup_timeout_ns);
    if (peer.init_status() != NGX_OK || peer.connect(boot) != NGX_OK) {
        std::fprintf(stderr, "child: init/connect: %s\n", peer.message());
        return 1;
    }
    unsigned char* buf = peer.buffer(largest_message);
    for (size_t size : message_sizes()) {
        for (int round = 0; round < 2; ++round) {
            if (peer.recv(buf, size) != NGX_OK) {
                std::fprintf(stderr, "child: recv %zu bytes: %s\n", size, peer.message());
                return 2;
            }
            if (long long at = harness::first_mismatch(buf, size, seed_for(size, round, 0)); at >= 0) {
                std::fprintf(stderr, "child: %zu-byte message corrupt at offset %lld\n", size, at);
                return 3;
            }
            harness::fill_pattern(buf, size, seed_for(size, round, 1));
            if (peer.send(buf, size) != NGX_OK) {
                std::fprintf(stderr, "child: send %zu bytes: %s\n", size, peer.message());
                return 4;
            }
        }
    }
    return 0;
}

TEST(PingPong, EverySizeArrivesIntactBothWays)
{
    Child child(echo_all_sizes, setup_timeout_ns);
    Endpoint self(module(), run_options(), setup_timeout_ns);
    ASSERT_EQ(self.init_status(), NGX_OK) << self.message();
    ASSERT_EQ(self.connect(child.bootstrap()), NGX_OK) << self.message();
    unsigned char* buf = self.buffer(largest_message);
    ASSERT_NE(buf, nullptr);
    for (size_t size : message_sizes()) {
        for (int round = 0; round < 2; ++round) {
            harness::fill_pattern(buf, size, seed_for(size, round, 0));
            ASSERT_EQ(self.send(buf, size), NGX_OK) << size << " bytes: " << self.message();
            std::memset(buf, 0xa5, size);
            ASSERT_EQ(self.recv(buf, size), NGX_OK) << size << " bytes: " << self.message();
            ASSERT_EQ(harness::first_mismatch(buf, size, seed_for(size, round, 1)), -1) << size << " bytes";
        }
    }
    EXPECT_EQ(child.wait_exit(5.0), 0) << "the child found a problem (see its stderr)";
}

// ---- send to self (NGX_CAP_SEND_TO_SELF) -----------------------------------------

// An endpoint connected to a sleeping peer, then addressed to its own process.
class SendToSelf : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (!module().has(NGX_CAP_SEND_TO_SELF))
            GTEST_SKIP() << "the module does not claim NGX_CAP_SEND_TO_SELF";
        child_ = std::make_unique<Child>(connect_then_sleep(), setup_timeout_ns);
        self_ = std::make_unique<Endpoint>(module(), run_options(), short_timeout_ns);
        ASSERT_EQ(self_->init_status(), NGX_OK) << self_->message();
        ASSERT_EQ(self_->connect(child_->bootstrap()), NGX_OK) << self_->message();
        ASSERT_EQ(child_->bootstrap().barrier(), NGX_OK);
        ASSERT_EQ(self_->set_layout(1, 1, true), NGX_OK) << self_->message();
    }
    std::unique_ptr<Child> child_;
    std::unique_ptr<Endpoint> self_;
};

// Every size, also those larger than a socket buffer or a ring, which one
// thread can only move piecewise between its send() and its recv().
TEST_F(SendToSelf, EverySizeArrivesIntact)
{
    unsigned char* out = self_->buffer(largest_message);
    unsigned char* in = self_->buffer(largest_message);
    ASSERT_TRUE(out != nullptr && in != nullptr);
    for (size_t size : message_sizes())
        for (int round = 0; round < 2; ++round) {
            harness::fill_pattern(out, size, seed_for(size, round, 0));
            std::memset(in, 0xa5, size);
            ASSERT_EQ(self_->send(out, size), NGX_OK) << size << " bytes: " << self_->message();
            ASSERT_EQ(self_->recv(in, size), NGX_OK) << size << " bytes: " << self_->message();
            ASSERT_EQ(harness::first_mismatch(in, size, seed_for(size, round, 0)), -1) << size << " bytes";
        }
}

TEST_F(SendToSelf, ReceivingMoreThanWasSentFailsWithinTheDeadline)
{
    unsigned char* buf = self_->buffer(64);
    ASSERT_EQ(self_->send(buf, 16), NGX_OK) << self_->message();
    uint64_t start = harness::now_ns();
    EXPECT_NE(self_->recv(buf, 64), NGX_OK);
    EXPECT_STRNE(self_->message(), "");
    EXPECT_LE(harness::seconds_since(start), short_timeout_s + 1.0);
}

TEST_F(SendToSelf, StridedLayoutNeedsDerivedDatatypes)
{
    if (module().has(NGX_CAP_DATATYPES))
        GTEST_SKIP() << "the module moves strided data itself";
    EXPECT_EQ(self_->set_layout(8, 4, true), NGX_ERR_UNSUPPORTED);
    EXPECT_STRNE(self_->message(), "");
}

constexpr int burst_messages = 300;
size_t burst_size(int i)
{
    static const size_t sizes[] = {1, 100, 5000, 70000, 57, 300000};
    return std::min(sizes[i % 6], size_limit());
}

TEST(Messages, ManyInFlightArriveInOrderWithTheirBoundaries)
{
    if (!module().has(NGX_CAP_RELIABLE)) // no flow control: a burst may overflow the receiver, by design
        GTEST_SKIP() << "unreliable module: an unpaced burst may be lost (udp-wire tests cover its ordering)";
    Child child(
        [](PairBootstrap& boot) {
            Endpoint peer(module(), run_options(), setup_timeout_ns);
            if (peer.init_status() != NGX_OK || peer.connect(boot) != NGX_OK)
                return 1;
            unsigned char* buf = peer.buffer(largest_message);
            for (int i = 0; i < burst_messages; ++i) {
                harness::fill_pattern(buf, burst_size(i), uint32_t(i));
                if (peer.send(buf, burst_size(i)) != NGX_OK) {
                    std::fprintf(stderr, "child: send #%d: %s\n", i, peer.message());
                    return 2;
                }
            }
            return peer.recv(buf, 1) == NGX_OK ? 0 : 3; // the final acknowledgement
        },
        setup_timeout_ns);
    Endpoint self(module(), run_options(), setup_timeout_ns);
    ASSERT_EQ(self.init_status(), NGX_OK) << self.message();
    ASSERT_EQ(self.connect(child.bootstrap()), NGX_OK) << self.message();
    unsigned char* buf = self.buffer(largest_message);
    for (int i = 0; i < burst_messages; ++i) {
        ASSERT_EQ(self.recv(buf, burst_size(i)), NGX_OK) << "message #" << i << ": " << self.message();
        ASSERT_EQ(harness::first_mismatch(buf, burst_size(i), uint32_t(i)), -1) << "message #" << i;
    }
    ASSERT_EQ(self.send(buf, 1), NGX_OK) << self.message();
    EXPECT_EQ(child.wait_exit(5.0), 0);
}

// The child's side of a 1-byte ping-pong: echoes `rounds` messages, then
// exits, or with `then_sleep` stays silent until killed.
Child::Body echo_one_byte(int rounds, bool then_sleep)
{
    return [rounds, then_sleep](PairBootstrap& boot) {
        Endpoint peer(module(), run_options(), setup_timeout_ns);
        if (peer.init_status() != NGX_OK || peer.connect(boot) != NGX_OK)
            return 1;
        unsigned char* buf = peer.buffer(1);
        for (int i = 0; i < rounds; ++i)
            if (peer.recv(buf, 1) != NGX_OK || peer.send(buf, 1) != NGX_OK)
                return 2;
        while (then_sleep)
            pause();
        return 0;
    };
}

TEST(PingPong, OneByteHalfRoundTripIsMeasured)
{
    constexpr int warmup = 500;
    constexpr int rounds = 3000;
    bool pinned = harness::usable_cpus() >= 2;
    Child child(echo_one_byte(warmup + rounds, false), setup_timeout_ns, pinned ? 1 : -1);
    harness::CpuPin pin(pinned ? 0 : -1);
    Endpoint self(module(), run_options(), setup_timeout_ns);
    ASSERT_EQ(self.init_status(), NGX_OK) << self.message();
    ASSERT_EQ(self.connect(child.bootstrap()), NGX_OK) << self.message();
    unsigned char* buf = self.buffer(1);
    buf[0] = 42;
    std::vector<double> half_rtt_us;
    for (int i = 0; i < warmup + rounds; ++i) {
        uint64_t start = harness::now_ns();
        ASSERT_EQ(self.send(buf, 1), NGX_OK) << self.message();
        ASSERT_EQ(self.recv(buf, 1), NGX_OK) << self.message();
        if (i >= warmup)
            half_rtt_us.push_back(double(harness::now_ns() - start) / 2e3);
    }
    double median_us = harness::median(half_rtt_us);
    std::printf("[ latency  ] %s: 1-byte half round trip, median of %d: %.3f us\n", descriptor().name, rounds,
                median_us);
    RecordProperty("half_round_trip_1B_us", std::to_string(median_us));
    EXPECT_GT(median_us, 0.0);
    EXPECT_LT(median_us, 1000.0) << "implausibly slow for two processes on one host";
    EXPECT_EQ(child.wait_exit(5.0), 0);
}

// ---- deadlines and failures --------------------------------------------------------

TEST(Deadline, SilentPeerGivesTimeoutWithinTheDeadline)
{
    Child child(connect_then_sleep(), setup_timeout_ns);
    Endpoint self(module(), run_options(), short_timeout_ns);
    ASSERT_EQ(self.init_status(), NGX_OK) << self.message();
    ASSERT_EQ(self.connect(child.bootstrap()), NGX_OK) << self.message();
    ASSERT_EQ(child.bootstrap().barrier(), NGX_OK);
    unsigned char* buf = self.buffer(1);
    uint64_t start = harness::now_ns();
    ngx_status status = self.recv(buf, 1);
    double elapsed = harness::seconds_since(start);
    EXPECT_EQ(status, NGX_ERR_TIMEOUT) << self.message();
    EXPECT_STRNE(self.message(), "");
    if (module().has(NGX_CAP_RELIABLE)) { // an unreliable one may declare a loss sooner
        EXPECT_GE(elapsed, 0.9 * short_timeout_s) << "gave up before the deadline";
    }
    EXPECT_LE(elapsed, short_timeout_s + 1.0);
}

TEST(Deadline, KilledPeerIsReportedToRecvWithinTheDeadline)
{
    Child child(connect_then_sleep(), setup_timeout_ns);
    Endpoint self(module(), run_options(), short_timeout_ns);
    ASSERT_EQ(self.init_status(), NGX_OK) << self.message();
    ASSERT_EQ(self.connect(child.bootstrap()), NGX_OK) << self.message();
    ASSERT_EQ(child.bootstrap().barrier(), NGX_OK);
    unsigned char* buf = self.buffer(1);
    child.kill_now(); // left unreaped (a zombie) while recv runs, as a crashed peer would be
    uint64_t start = harness::now_ns();
    ngx_status status = self.recv(buf, 1);
    double elapsed = harness::seconds_since(start);
    EXPECT_TRUE(status == NGX_ERR_PEER_LOST || status == NGX_ERR_TIMEOUT)
        << "status " << status << ": " << self.message();
    EXPECT_STRNE(self.message(), "");
    EXPECT_LE(elapsed, short_timeout_s + 1.0);
}

TEST(Deadline, SendingToAKilledPeerFailsWithinTheDeadline)
{
    Child child(connect_then_sleep(), setup_timeout_ns);
    Endpoint self(module(), run_options(), short_timeout_ns);
    ASSERT_EQ(self.init_status(), NGX_OK) << self.message();
    ASSERT_EQ(self.connect(child.bootstrap()), NGX_OK) << self.message();
    ASSERT_EQ(child.bootstrap().barrier(), NGX_OK);
    size_t size = std::min<size_t>(65536, size_limit());
    unsigned char* buf = self.buffer(size);
    harness::fill_pattern(buf, size, 7);
    child.kill_now();
    ASSERT_EQ(child.wait_exit(5.0), 128 + SIGKILL);
    uint64_t start = harness::now_ns();
    ngx_status status = NGX_OK;
    for (int i = 0; i < 4096 && status == NGX_OK; ++i)
        status = self.send(buf, size);
    double elapsed = harness::seconds_since(start);
    if (status == NGX_OK && !module().has(NGX_CAP_RELIABLE))
        GTEST_SKIP() << "an unreliable transport may drop messages to a dead peer silently";
    EXPECT_TRUE(status == NGX_ERR_PEER_LOST || status == NGX_ERR_TIMEOUT)
        << "status " << status << ": " << self.message();
    EXPECT_LE(elapsed, short_timeout_s + 1.0);
}

// So that ngx adds nothing a minimal ping-pong does not, the waits of a
// running ping-pong are specialised (shm spins clock-free first); a peer
// stopped in the middle of the series (SIGSTOP: alive, silent, not exited)
// must still end the next recv by the deadline.
TEST(Deadline, PeerStoppedInAPingPongGivesTimeoutWithinTheDeadline)
{
    constexpr int rounds = 2000;
    Child child(echo_one_byte(rounds, true), setup_timeout_ns);
    Endpoint self(module(), run_options(), short_timeout_ns);
    ASSERT_EQ(self.init_status(), NGX_OK) << self.message();
    ASSERT_EQ(self.connect(child.bootstrap()), NGX_OK) << self.message();
    unsigned char* buf = self.buffer(1);
    for (int i = 0; i < rounds - 1; ++i) {
        buf[0] = (unsigned char)i;
        ASSERT_EQ(self.send(buf, 1), NGX_OK) << self.message();
        ASSERT_EQ(self.recv(buf, 1), NGX_OK) << self.message();
        ASSERT_EQ(buf[0], (unsigned char)i) << "round " << i;
    }
    ASSERT_EQ(kill(child.pid(), SIGSTOP), 0);
    ngx_status sent = self.send(buf, 1); // the peer's last round, never answered
    uint64_t start = harness::now_ns();
    ngx_status status = sent == NGX_OK ? self.recv(buf, 1) : sent;
    double elapsed = harness::seconds_since(start);
    kill(child.pid(), SIGCONT);
    if (sent == NGX_OK && status == NGX_ERR_LOST && !module().has(NGX_CAP_RELIABLE))
        GTEST_SKIP() << "an unreliable module may call the silence a loss";
    EXPECT_EQ(status, NGX_ERR_TIMEOUT) << self.message();
    EXPECT_STRNE(self.message(), "");
    if (module().has(NGX_CAP_RELIABLE)) {
        EXPECT_GE(elapsed, 0.9 * short_timeout_s) << "gave up before the deadline";
    }
    EXPECT_LE(elapsed, short_timeout_s + 1.0);
}

TEST(Deadline, PeerThatNeverConnectsFailsConnect)
{
    Child child([](PairBootstrap&) { return 0; }, short_timeout_ns);
    Endpoint self(module(), run_options(), short_timeout_ns);
    ASSERT_EQ(self.init_status(), NGX_OK) << self.message();
    uint64_t start = harness::now_ns();
    ngx_status status = self.connect(child.bootstrap());
    double elapsed = harness::seconds_since(start);
    EXPECT_NE(status, NGX_OK);
    EXPECT_STRNE(self.message(), "");
    EXPECT_LE(elapsed, short_timeout_s + 1.0);
    EXPECT_EQ(child.wait_exit(5.0), 0);
}

// ---- cancel flag ----------------------------------------------------------------

volatile int cancel_flag = 0;

void raise_cancel_flag(int)
{
    cancel_flag = 1;
}

// Arms SIGALRM (without SA_RESTART, as a Ctrl-C handler would be) to raise the
// cancel flag after `delay_ms`; restores everything on destruction.
class CancelAlarm {
public:
    explicit CancelAlarm(int delay_ms)
    {
        cancel_flag = 0;
        struct sigaction action {};
        action.sa_handler = raise_cancel_flag;
        sigemptyset(&action.sa_mask);
        sigaction(SIGALRM, &action, &previous_);
        itimerval timer{};
        timer.it_value.tv_sec = delay_ms / 1000;
        timer.it_value.tv_usec = (delay_ms % 1000) * 1000;
        setitimer(ITIMER_REAL, &timer, nullptr);
    }
    ~CancelAlarm()
    {
        itimerval off{};
        setitimer(ITIMER_REAL, &off, nullptr);
        sigaction(SIGALRM, &previous_, nullptr);
        cancel_flag = 0;
    }

private:
    struct sigaction previous_ {};
};

TEST(Cancel, RaisedFlagInterruptsABlockedRecv)
{
    constexpr uint64_t long_timeout_ns = 10'000'000'000;
    Child child(connect_then_sleep(), setup_timeout_ns);
    Endpoint self(module(), run_options(), long_timeout_ns, &cancel_flag);
    ASSERT_EQ(self.init_status(), NGX_OK) << self.message();
    ASSERT_EQ(self.connect(child.bootstrap()), NGX_OK) << self.message();
    ASSERT_EQ(child.bootstrap().barrier(), NGX_OK);
    unsigned char* buf = self.buffer(1);
    ngx_status status = NGX_OK;
    double elapsed = 0;
    {
        CancelAlarm alarm(50);
        uint64_t start = harness::now_ns();
        status = self.recv(buf, 1);
        elapsed = harness::seconds_since(start);
    }
    EXPECT_EQ(status, NGX_ERR_INTERRUPTED) << self.message();
    EXPECT_STRNE(self.message(), "");
    EXPECT_LT(elapsed, 2.0) << "the flag was raised after 0.05 s; the deadline is 10 s";
}

} // namespace

int main(int argc, char** argv)
{
    testing::InitGoogleTest(&argc, argv);
    std::string path = harness::module_path_from(argc, argv);
    if (path.empty()) {
        std::fprintf(stderr, "usage: %s MODULE.so [gtest flags]  (or set NGX_TEST_MODULE)\n", argv[0]);
        return 2;
    }
    std::string error;
    static std::optional<harness::Module> loaded = harness::Module::load(path, &error);
    if (!loaded) {
        std::fprintf(stderr, "cannot load %s: %s\n", path.c_str(), error.c_str());
        return 1;
    }
    module_under_test = &*loaded;
    extra_options = harness::options_from(argc, argv);
    return RUN_ALL_TESTS();
}
