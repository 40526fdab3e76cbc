#include <models/loggp/exchange_share.hpp>

#include <gtest/gtest.h>

#include <random>
#include <utility>
#include <vector>

using namespace ngx::fit;

namespace {

// A rendezvous-like range: O_s a third of G (a send that waits for the
// socket to drain), L 20 us, o_s 150 us.
LogGPRange waiting_range()
{
    LogGPRange r;
    r.from_bytes = 65536;
    r.to_bytes = 1 << 20;
    r.L = Measured::exact(20);
    r.g = Measured::exact(12);
    r.G = Measured::exact(0.0557);
    r.send_line = OverheadLine::exact(150, 0.029);
    r.recv_line = OverheadLine::exact(1, 0.002);
    r.overlapped = true;
    return r;
}

// Exchanges of the sizes 64 KiB .. 1 MiB as X_f(s) gives them, with
// proportional noise of `noise` (seeded).
std::vector<PrttSample> exchanges(const LogGPRange& r, double share, double noise)
{
    std::mt19937 random(29);
    std::normal_distribution<double> relative(0, noise);
    std::vector<PrttSample> samples;
    for (double s = 65536; s <= (1 << 20); s *= 1.5) {
        PrttSample p;
        p.size = s;
        p.exchange = exchange_time(r, s, share) * (1 + (noise > 0 ? relative(random) : 0));
        samples.push_back(p);
    }
    return samples;
}

} // namespace

TEST(ExchangeShare, ExactExchangesGiveTheirShareBack)
{
    const LogGPRange r = waiting_range();
    for (double share : {0.0, 0.3, 0.75, 1.0}) {
        const std::optional<ExchangeShareFit> f = fit_exchange_share(r, exchanges(r, share, 0));
        ASSERT_TRUE(f) << share;
        EXPECT_NEAR(f->share, share, 1e-3) << share;
        EXPECT_LT(f->mean_rel, 1e-3) << share;
        EXPECT_EQ(f->points, exchanges(r, share, 0).size());
    }
}

TEST(ExchangeShare, NoisyExchangesStillTellWaitingFromCpuWork)
{
    const LogGPRange r = waiting_range();
    const std::optional<ExchangeShareFit> waiting = fit_exchange_share(r, exchanges(r, 0, 0.02));
    const std::optional<ExchangeShareFit> cpu = fit_exchange_share(r, exchanges(r, 1, 0.02));
    ASSERT_TRUE(waiting && cpu);
    EXPECT_LT(waiting->share, 0.25);
    EXPECT_GT(cpu->share, 0.75);
    // All of O_s as CPU time misses the waiting exchanges by far more than the noise.
    EXPECT_GT(waiting->mean_rel_cpu, 5 * waiting->mean_rel);
}

// An exchange is one message of eq. (1) when the send is all CPU work:
// X_1(s) = L + o_s(s) + o_r(s) + (s-1)G, the half round trip of an additive range.
TEST(ExchangeShare, AllCpuExchangeIsOneMessageOfEquationOne)
{
    LogGPRange r = waiting_range();
    r.overlapped = false;
    for (double s : {65536.0, 262144.0, 1048576.0})
        EXPECT_NEAR(exchange_time(r, s, 1), r.L.value + r.transfer_at(s), 1e-9 * s);
}

TEST(ExchangeShare, NoneWithoutExchangesOrPerByteOverheads)
{
    LogGPRange r = waiting_range();
    std::vector<PrttSample> none(3);
    none[0].size = 65536, none[1].size = 131072, none[2].size = 262144;
    EXPECT_FALSE(fit_exchange_share(r, none));
    const std::vector<PrttSample> measured = exchanges(r, 0.5, 0);
    r.send_line = OverheadLine::exact(150, 0);
    EXPECT_TRUE(fit_exchange_share(r, measured)); // O_r alone has a share
    r.recv_line = OverheadLine::exact(1, 0);
    EXPECT_FALSE(fit_exchange_share(r, measured));
}

// Open MPI's tcp BTL between two emulated nodes (50 Mbit/s, the rendezvous
// range 192..512 KiB of a tests/coll/mpi-cluster.sh run): the receive's
// per-byte overhead O_r (0.126 us/B, three quarters of G) is the receive
// call waiting for the data as it streams in, not CPU time after it; the
// measured exchanges take one message at the link's rate. With the share
// applied to O_s alone, X_0 still charged all of O_r after the flight and
// missed them by 66%.
TEST(ExchangeShare, AReceiveThatWaitsForTheFlightIsNotChargedAfterIt)
{
    LogGPRange r;
    r.from_bytes = 196608;
    r.to_bytes = 524288;
    r.L = Measured::exact(0);
    r.g = Measured::exact(-19.64);
    r.G = Measured::exact(0.1675);
    r.send_line = OverheadLine::exact(0, 0.03414);
    r.recv_line = OverheadLine::exact(0, 0.1264);
    r.overlapped = true;
    std::vector<PrttSample> measured;
    for (auto [size, us] :
         {std::pair{196608.0, 34087.0}, {262144.0, 46241.0}, {393216.0, 70135.0}, {524288.0, 93913.0}}) {
        PrttSample p;
        p.size = size;
        p.exchange = us;
        measured.push_back(p);
    }
    const std::optional<ExchangeShareFit> f = fit_exchange_share(r, measured);
    ASSERT_TRUE(f);
    EXPECT_LT(f->share, 0.1);
    EXPECT_LT(f->mean_rel, 0.03);
    EXPECT_GT(f->mean_rel_cpu, 0.5);
}
