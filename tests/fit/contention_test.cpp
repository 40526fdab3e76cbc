// models/contention/contention.hpp: the rounds of a schedule, the messages
// of each that cross the uplink, and the delay alpha + B / min(R_N, c R_C)
// adds to the round's LogGP time, exactly, on a cost whose numbers are
// worked out by hand.
#include <models/contention/contention.hpp>

#include <gtest/gtest.h>

#include <cmath>

namespace ngx::fit {
namespace {

constexpr double G = 0.01; // us per byte

// o_s = 1, L = 5, o_r = 1, per byte G: an exchange of n bytes with an idle
// peer takes 1 + 5 + 1 + n G (the send's CPU, then the message's arrival at
// 6 and its receive 1 + n G).
MessageCostFn cost()
{
    return [](double n) {
        MessageCost m;
        m.send_cpu = 1;
        m.send_gap = 1 + n * G;
        m.arrival = 6;
        m.recv_cpu = 1 + n * G;
        m.recv_gap = 1 + n * G;
        return m;
    };
}

MaxRateParams uplink(double alpha, double R_C, double R_N)
{
    MaxRateParams link;
    link.s = alpha;
    link.R_Cb = link.R_Ci = R_C;
    link.R_N = R_N;
    return link;
}

Schedule pairwise(int P, double n)
{
    return collective_schedule({CollectiveOp::alltoall, Algorithm::pairwise, P, n});
}

TEST(Contention, PairwiseAlltoallOnTwoPlusTwo)
{
    // Round 1: 1 -> 2 and 3 -> 0 cross (one flow each way), round 2:
    // 0 -> 2, 1 -> 3 and back (two each way), round 3 like round 1.
    const Result<ContentionPrice> p =
        price_contention(pairwise(4, 1000), cost(), {}, {0, 0, 1, 1}, uplink(2, 100, 100));
    ASSERT_TRUE(p) << p.status().message();
    ASSERT_EQ(p->rounds.size(), 3u);
    const int flows[3] = {1, 2, 1};
    for (int j = 0; j < 3; ++j) {
        const ContentionRound& r = p->rounds[j];
        EXPECT_EQ(r.flows[0], flows[j]);
        EXPECT_EQ(r.flows[1], flows[j]);
        EXPECT_DOUBLE_EQ(r.bytes[0], 1000.0 * flows[j]);
        EXPECT_DOUBLE_EQ(r.loggp_us, 7 + 1000 * G); // 17 us
        // alpha + B / min(R_N, c R_C): 2 + 1000 / 100 = 12, 2 + 2000 / 100 = 22.
        EXPECT_DOUBLE_EQ(r.link_us, 2 + 1000.0 * flows[j] / 100);
    }
    EXPECT_DOUBLE_EQ(p->rounds[0].delay_us, 0);
    EXPECT_DOUBLE_EQ(p->rounds[1].delay_us, 22 - 17);
    EXPECT_DOUBLE_EQ(p->delay_us, 5);
}

TEST(Contention, AnUplinkThatFlowsDoNotFillAddsNothing)
{
    // R_N = inf: c flows get c R_C, no more than each alone.
    const Result<ContentionPrice> p =
        price_contention(pairwise(4, 1000), cost(), {}, {0, 0, 1, 1}, uplink(2, 100, MaxRateParams::inf));
    ASSERT_TRUE(p);
    EXPECT_DOUBLE_EQ(p->delay_us, 0);
}

TEST(Contention, NoMessageAcrossNoDelay)
{
    const Result<ContentionPrice> p = price_contention(pairwise(4, 1e6), cost(), {}, {1, 1, 1, 1}, uplink(0, 1, 1));
    ASSERT_TRUE(p);
    EXPECT_DOUBLE_EQ(p->delay_us, 0);
    for (const ContentionRound& r : p->rounds)
        EXPECT_EQ(r.flows[0] + r.flows[1], 0);
}

TEST(Contention, ScheduleWithoutRoundsIsRefused)
{
    // A binomial bcast: the root's second send is rank 1's first receive.
    const Schedule bcast = collective_schedule({CollectiveOp::bcast, Algorithm::binomial, 4, 1000});
    const Result<ContentionPrice> p = price_contention(bcast, cost(), {}, {0, 0, 1, 1}, uplink(0, 1, 1));
    ASSERT_FALSE(p);
    EXPECT_NE(p.status().message().find("no rounds"), std::string::npos) << p.status().message();
}

TEST(Contention, SwitchListsAreChecked)
{
    EXPECT_EQ(*parse_switches("0,0,1,1", 4), (std::vector<int>{0, 0, 1, 1}));
    EXPECT_EQ(*parse_switches("1,0,1", 3), (std::vector<int>{1, 0, 1}));
    for (const char* bad : {"0,0,1", "0,0,1,1,0", "0,0,2,1", "0,,1,1", "0,0,1,x", "", "0,0,0,0"})
        EXPECT_FALSE(parse_switches(bad, 4)) << bad;
    EXPECT_FALSE(price_contention(pairwise(4, 10), cost(), {}, {0, 1}, uplink(0, 1, 1)));
    EXPECT_FALSE(price_contention(pairwise(4, 10), cost(), {}, {0, 0, 1, 1}, uplink(0, 0, 1)));
}

} // namespace
} // namespace ngx::fit
