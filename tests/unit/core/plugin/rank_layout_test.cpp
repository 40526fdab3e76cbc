// The rounds of every rank layout, for even and odd P: who sends to whom,
// which ordered pairs a layout covers, who idles, and the refusals.
#include <ngx/rank_layout.hpp>

#include <gtest/gtest.h>

#include <set>
#include <utility>

namespace ngx {
namespace {

std::vector<Round> plan_ok(LayoutRequest request)
{
    Result<std::vector<Round>> rounds = plan_layout(request);
    EXPECT_TRUE(rounds.has_value()) << rounds.status().message();
    return rounds ? *rounds : std::vector<Round>{};
}

using OrderedPairs = std::multiset<std::pair<int, int>>;

OrderedPairs ordered_pairs(const std::vector<Round>& rounds)
{
    OrderedPairs pairs;
    for (const Round& round : rounds)
        for (const Transfer& t : round.transfers)
            pairs.insert({t.from, t.to});
    return pairs;
}

OrderedPairs every_ordered_pair(int nranks)
{
    OrderedPairs pairs;
    for (int a = 0; a < nranks; ++a)
        for (int b = 0; b < nranks; ++b)
            if (a != b)
                pairs.insert({a, b});
    return pairs;
}

TEST(RankLayout, FixedPairsIsTodaysPairingForSixRanks)
{
    std::vector<Round> rounds = plan_ok({.kind = LayoutKind::fixed_pairs, .nranks = 6});
    ASSERT_EQ(rounds.size(), 1u);
    for (int i = 0; i < 3; ++i) {
        RoundRole low = role_of(rounds[0], i), high = role_of(rounds[0], i + 3);
        EXPECT_EQ(low.send_to, std::vector<int>{i + 3});
        EXPECT_EQ(low.recv_from, std::vector<int>{i + 3});
        EXPECT_EQ(high.send_to, std::vector<int>{i});
    }
}

TEST(RankLayout, FixedPairsWithOddRanksIdlesTheLastRank)
{
    std::vector<Round> rounds = plan_ok({.kind = LayoutKind::fixed_pairs, .nranks = 5});
    EXPECT_TRUE(role_of(rounds[0], 4).idle());
    EXPECT_EQ(role_of(rounds[0], 0).send_to, std::vector<int>{2});
    EXPECT_EQ(role_of(rounds[0], 1).send_to, std::vector<int>{3});
}

class ShiftRounds : public ::testing::TestWithParam<int> {};

TEST_P(ShiftRounds, CoverEveryOrderedPairOnceInPMinusOneRounds)
{
    const int nranks = GetParam();
    std::vector<Round> rounds = plan_ok({.kind = LayoutKind::shift_rounds, .nranks = nranks});
    ASSERT_EQ(rounds.size(), size_t(nranks - 1));
    EXPECT_EQ(ordered_pairs(rounds), every_ordered_pair(nranks));
    for (size_t r = 0; r < rounds.size(); ++r)
        for (int i = 0; i < nranks; ++i) { // all links busy at once: i sends to i + r, receives from i - r
            RoundRole role = role_of(rounds[r], i);
            const int shift = int(r) + 1;
            EXPECT_EQ(role.send_to, std::vector<int>{(i + shift) % nranks});
            EXPECT_EQ(role.recv_from, std::vector<int>{(i - shift + nranks) % nranks});
        }
}

INSTANTIATE_TEST_SUITE_P(EvenAndOdd, ShiftRounds, ::testing::Values(2, 3, 5, 6, 7, 16));

TEST(RankLayout, OneAtATimeHasOneTransferPerRoundAndEveryPair)
{
    std::vector<Round> rounds = plan_ok({.kind = LayoutKind::one_at_a_time, .nranks = 5});
    ASSERT_EQ(rounds.size(), 20u);
    for (const Round& round : rounds)
        EXPECT_EQ(round.transfers.size(), 1u);
    EXPECT_EQ(ordered_pairs(rounds), every_ordered_pair(5));
}

TEST(RankLayout, RandomMatchingsArePerfectAndRepeatable)
{
    for (int nranks : {6, 7}) {
        LayoutRequest request{.kind = LayoutKind::random_matchings, .nranks = nranks, .rounds = 8, .seed = 42};
        std::vector<Round> rounds = plan_ok(request);
        ASSERT_EQ(rounds.size(), 8u);
        int differs = 0;
        for (const Round& round : rounds) {
            int idle = 0;
            for (int i = 0; i < nranks; ++i) {
                RoundRole role = role_of(round, i);
                idle += role.idle();
                if (!role.idle()) { // matched with exactly one partner, both ways
                    ASSERT_EQ(role.send_to.size(), 1u);
                    EXPECT_EQ(role.send_to, role.recv_from);
                    EXPECT_EQ(role_of(round, role.send_to[0]).send_to, std::vector<int>{i});
                }
            }
            EXPECT_EQ(idle, nranks % 2) << "odd P idles exactly one rank";
            differs += !(round.transfers == rounds[0].transfers);
        }
        EXPECT_GT(differs, 0) << "eight matchings, all the same";
        std::vector<Round> again = plan_ok(request);
        for (size_t k = 0; k < rounds.size(); ++k)
            EXPECT_EQ(again[k].transfers, rounds[k].transfers);
        request.seed = 43;
        std::vector<Round> other = plan_ok(request);
        bool all_same = true;
        for (size_t k = 0; k < rounds.size(); ++k)
            all_same = all_same && other[k].transfers == rounds[k].transfers;
        EXPECT_FALSE(all_same) << "another seed gave the same matchings";
    }
}

TEST(RankLayout, OneToManyGrowsTheFanOutFromTheRoot)
{
    std::vector<Round> rounds = plan_ok({.kind = LayoutKind::one_to_many, .nranks = 5, .root = 2});
    ASSERT_EQ(rounds.size(), 4u);
    for (size_t n = 0; n < rounds.size(); ++n) {
        EXPECT_EQ(role_of(rounds[n], 2).send_to.size(), n + 1);
        EXPECT_TRUE(role_of(rounds[n], 2).recv_from.empty());
    }
    EXPECT_EQ(role_of(rounds[0], 2).send_to, std::vector<int>{3});
    EXPECT_EQ(role_of(rounds[3], 1).recv_from, std::vector<int>{2});
}

TEST(RankLayout, ManyToOneMirrorsOneToMany)
{
    std::vector<Round> rounds = plan_ok({.kind = LayoutKind::many_to_one, .nranks = 4});
    ASSERT_EQ(rounds.size(), 3u);
    EXPECT_EQ(role_of(rounds[2], 0).recv_from, (std::vector<int>{1, 2, 3}));
    EXPECT_TRUE(role_of(rounds[0], 3).idle());
}

TEST(RankLayout, GroupIsOneRoundOfEveryone)
{
    std::vector<Round> rounds = plan_ok({.kind = LayoutKind::group, .nranks = 3});
    ASSERT_EQ(rounds.size(), 1u);
    EXPECT_TRUE(rounds[0].group);
    EXPECT_TRUE(rounds[0].transfers.empty());
}

TEST(RankLayout, PeersAreTheLinksAModuleMustOpen)
{
    std::vector<Round> fixed = plan_ok({.kind = LayoutKind::fixed_pairs, .nranks = 6});
    EXPECT_EQ(peers_of(fixed, 1), std::vector<int>{4});
    std::vector<Round> shift = plan_ok({.kind = LayoutKind::shift_rounds, .nranks = 5});
    EXPECT_EQ(peers_of(shift, 2), (std::vector<int>{0, 1, 3, 4}));
}

TEST(RankLayout, RefusesWhatCannotBePlanned)
{
    Result<std::vector<Round>> one = plan_layout({.kind = LayoutKind::shift_rounds, .nranks = 1});
    ASSERT_FALSE(one.has_value());
    EXPECT_EQ(one.status().kind(), ErrorKind::usage);
    EXPECT_NE(one.status().message().find("at least 2 ranks"), std::string::npos);
    Result<std::vector<Round>> root = plan_layout({.kind = LayoutKind::one_to_many, .nranks = 4, .root = 4});
    ASSERT_FALSE(root.has_value());
    EXPECT_NE(root.status().message().find("root rank 4"), std::string::npos);
    Result<std::vector<Round>> none = plan_layout({.kind = LayoutKind::random_matchings, .nranks = 4, .rounds = 0});
    EXPECT_FALSE(none.has_value());
}

TEST(RankLayout, NamesRoundTripAndUnknownNamesListTheKnownOnes)
{
    for (LayoutKind kind : all_layouts) {
        Result<LayoutKind> parsed = parse_layout(layout_name(kind));
        ASSERT_TRUE(parsed.has_value());
        EXPECT_EQ(*parsed, kind);
    }
    Result<LayoutKind> bad = parse_layout("ring");
    ASSERT_FALSE(bad.has_value());
    EXPECT_EQ(bad.status().kind(), ErrorKind::usage);
    EXPECT_NE(bad.status().message().find("shift"), std::string::npos) << bad.status().message();
}

} // namespace
} // namespace ngx
