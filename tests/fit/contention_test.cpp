// models/contention/contention.hpp: the rounds of a schedule, the messages
// of each that cross the uplink, and LoGPC's delay B / min(R_N, c R_C) -
// b / min(R_N, R_C) per round, exactly, with numbers worked out by hand.
#include <models/contention/contention.hpp>

#include <gtest/gtest.h>

#include <algorithm>

namespace ngx::fit {
namespace {

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
    const Result<ContentionPrice> p = price_contention(pairwise(4, 1000), {0, 0, 1, 1}, uplink(2, 100, 150));
    ASSERT_TRUE(p) << p.status().message();
    ASSERT_EQ(p->rounds.size(), 3u);
    const int flows[3] = {1, 2, 1};
    for (int j = 0; j < 3; ++j) {
        const ContentionRound& r = p->rounds[j];
        EXPECT_EQ(r.flows[0], flows[j]);
        EXPECT_EQ(r.flows[1], flows[j]);
        EXPECT_DOUBLE_EQ(r.bytes[0], 1000.0 * flows[j]);
        EXPECT_DOUBLE_EQ(r.largest[1], 1000.0);
    }
    // One flow each way: what LogGP prices already.
    EXPECT_DOUBLE_EQ(p->rounds[0].delay_us, 0);
    EXPECT_DOUBLE_EQ(p->rounds[2].delay_us, 0);
    // Two: 2000 B at min(150, 2 x 100) = 150 B/us, less 1000 B at 100 B/us alone.
    EXPECT_DOUBLE_EQ(p->rounds[1].delay_us, 2000.0 / 150 - 1000.0 / 100);
    EXPECT_DOUBLE_EQ(p->delay_us, 2000.0 / 150 - 10);
}

TEST(Contention, EightRanksTwoSwitches)
{
    // P = 8, 4 + 4, R_N = R_C (k* = 1): in round k rank r sends to r + k,
    // and c = min(k, 8 - k) messages cross each way; sharing the link, the
    // last is through (c - 1) b / R after it would be alone.
    const Result<ContentionPrice> p = price_contention(pairwise(8, 500), {0, 0, 0, 0, 1, 1, 1, 1}, uplink(0, 10, 10));
    ASSERT_TRUE(p);
    ASSERT_EQ(p->rounds.size(), 7u);
    double sum = 0;
    for (int k = 1; k < 8; ++k) {
        const int c = std::min(k, 8 - k);
        EXPECT_EQ(p->rounds[k - 1].flows[0], c) << k;
        EXPECT_DOUBLE_EQ(p->rounds[k - 1].delay_us, (c - 1) * 500.0 / 10) << k;
        sum += (c - 1) * 50.0;
    }
    EXPECT_DOUBLE_EQ(p->delay_us, sum);
}

TEST(Contention, AnUplinkThatFlowsDoNotFillAddsNothing)
{
    // R_N = inf: c flows get c R_C, each what it gets alone.
    const Result<ContentionPrice> p =
        price_contention(pairwise(4, 1000), {0, 0, 1, 1}, uplink(2, 100, MaxRateParams::inf));
    ASSERT_TRUE(p);
    EXPECT_DOUBLE_EQ(p->delay_us, 0);
}

TEST(Contention, NoMessageAcrossNoDelay)
{
    const Result<ContentionPrice> p = price_contention(pairwise(4, 1e6), {1, 1, 1, 1}, uplink(0, 1, 1));
    ASSERT_TRUE(p);
    EXPECT_DOUBLE_EQ(p->delay_us, 0);
    for (const ContentionRound& r : p->rounds)
        EXPECT_EQ(r.flows[0] + r.flows[1], 0);
}

TEST(Contention, ScheduleWithoutRoundsIsRefused)
{
    // A binomial bcast: the root's second send is rank 1's first receive.
    const Schedule bcast = collective_schedule({CollectiveOp::bcast, Algorithm::binomial, 4, 1000});
    const Result<ContentionPrice> p = price_contention(bcast, {0, 0, 1, 1}, uplink(0, 1, 1));
    ASSERT_FALSE(p);
    EXPECT_NE(p.status().message().find("no rounds"), std::string::npos) << p.status().message();
}

TEST(Contention, SwitchListsAreChecked)
{
    EXPECT_EQ(*parse_switches("0,0,1,1", 4), (std::vector<int>{0, 0, 1, 1}));
    EXPECT_EQ(*parse_switches("1,0,1", 3), (std::vector<int>{1, 0, 1}));
    for (const char* bad : {"0,0,1", "0,0,1,1,0", "0,0,2,1", "0,,1,1", "0,0,1,x", "", "0,0,0,0"})
        EXPECT_FALSE(parse_switches(bad, 4)) << bad;
    EXPECT_FALSE(price_contention(pairwise(4, 10), {0, 1}, uplink(0, 1, 1)));
    EXPECT_FALSE(price_contention(pairwise(4, 10), {0, 0, 1, 1}, uplink(0, 0, 1)));
}

} // namespace
} // namespace ngx::fit
