// Two-sample tests against known values: scipy.stats.mannwhitneyu's own
// documented example, and p-values computed by brute force (every ordering
// of the pooled samples) or by hand from the formulas named in each test.
#include <ngx/two_sample.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace ngx {
namespace {

// scipy.stats.mannwhitneyu documentation: ages of male and female workers.
const std::vector<double> males = {19, 22, 16, 29, 24};
const std::vector<double> females = {20, 11, 17, 12};

TEST(RankSum, ScipyDocumentedExampleExact)
{
    RankSum r = rank_sum_test(males, females);
    EXPECT_TRUE(r.exact);
    EXPECT_DOUBLE_EQ(r.u, 17.0);
    EXPECT_NEAR(r.p, 0.1111111111111111, 1e-12); // scipy: method "exact"
}

TEST(RankSum, ScipyDocumentedExampleAsymptotic)
{
    RankSum r = rank_sum_test(males, females, RankSumMethod::normal);
    EXPECT_FALSE(r.exact);
    EXPECT_DOUBLE_EQ(r.u, 17.0);
    EXPECT_NEAR(r.p, 0.11134688653314041, 1e-12); // scipy: method "asymptotic"
}

TEST(RankSum, CompleteSeparationIsTwoOverChoose)
{
    // U = 0: the one most extreme ordering of C(7, 3) = 35, both sides.
    RankSum r = rank_sum_test(std::vector<double>{1.1, 2.3, 3.0, 4.2}, std::vector<double>{5.5, 6.1, 7.7});
    EXPECT_DOUBLE_EQ(r.u, 0.0);
    EXPECT_NEAR(r.p, 2.0 / 35, 1e-12);
}

TEST(RankSum, ExactMatchesBruteForce)
{
    // U = 13; 2 P(U >= 17) = 0.792207792... over all C(11, 5) = 462 orderings.
    RankSum r = rank_sum_test(std::vector<double>{1, 4, 6, 8, 9}, std::vector<double>{2, 3, 5, 7, 10, 11});
    EXPECT_DOUBLE_EQ(r.u, 13.0);
    EXPECT_NEAR(r.p, 0.7922077922077922, 1e-12);
}

TEST(RankSum, TiesUseTheCorrectedNormalApproximation)
{
    // Mid-ranks for ties, variance m n / 12 ((N + 1) - sum(t^3 - t) / (N (N - 1))), continuity 0.5.
    std::vector<double> a = {3, 5, 5, 7, 8, 8, 8, 10, 12, 13, 15, 15};
    std::vector<double> b = {1, 2, 2, 3, 5, 6, 6, 7, 9, 9, 11};
    RankSum r = rank_sum_test(a, b);
    EXPECT_FALSE(r.exact);
    EXPECT_DOUBLE_EQ(r.u, 98.0);
    EXPECT_NEAR(r.p, 0.05172313549975391, 1e-12);
}

TEST(RankSum, SymmetricInItsArguments)
{
    RankSum ab = rank_sum_test(males, females), ba = rank_sum_test(females, males);
    EXPECT_DOUBLE_EQ(ab.u + ba.u, 20.0);
    EXPECT_DOUBLE_EQ(ab.p, ba.p);
}

TEST(RankSum, AllEqualIsNoEvidence)
{
    RankSum r = rank_sum_test(std::vector<double>(20, 5.0), std::vector<double>(30, 5.0));
    EXPECT_DOUBLE_EQ(r.p, 1.0);
}

TEST(RankSum, EmptyHasNoPValue)
{
    EXPECT_TRUE(std::isnan(rank_sum_test(std::vector<double>{}, males).p));
}

TEST(RankSum, LargeSeparatedSamplesAreSignificant)
{
    std::vector<double> a, b;
    for (int i = 0; i < 200; ++i) {
        a.push_back(5.0 + 0.001 * i);
        b.push_back(5.5 + 0.001 * i);
    }
    RankSum r = rank_sum_test(a, b);
    EXPECT_LT(r.p, 1e-50);
}

TEST(IntervalTest, StandardErrorsFromTheIntervalWidths)
{
    // se = 0.2 / (2 * 1.96) each; z = 0.5 / (sqrt(2) se) = 6.93: p = 4.22e-12.
    EXPECT_NEAR(interval_test({5.0, 4.9, 5.1}, {5.5, 5.4, 5.6}), 4.222735487689805e-12, 1e-20);
    // se 0.2 / 3.92 and 0.6 / 3.92: z = 0.3 / 0.161 = 1.86: p = 0.063.
    EXPECT_NEAR(interval_test({5.0, 4.9, 5.1}, {5.3, 5.0, 5.6}), 0.06297257269759568, 1e-12);
}

TEST(IntervalTest, DegenerateAndUnknownIntervals)
{
    EXPECT_DOUBLE_EQ(interval_test({5, 5, 5}, {5, 5, 5}), 1.0);
    EXPECT_DOUBLE_EQ(interval_test({5, 5, 5}, {6, 6, 6}), 0.0);
    EXPECT_TRUE(std::isnan(interval_test({5, NAN, 5.1}, {5, 4.9, 5.1})));
}

TEST(Holm, StepDownAdjustment)
{
    // Sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04 -> running max.
    std::vector<double> p = {0.01, 0.04, 0.03, 0.005};
    std::vector<double> adjusted = holm_adjust(p);
    ASSERT_EQ(adjusted.size(), 4u);
    EXPECT_DOUBLE_EQ(adjusted[0], 0.03);
    EXPECT_DOUBLE_EQ(adjusted[1], 0.06);
    EXPECT_DOUBLE_EQ(adjusted[2], 0.06);
    EXPECT_DOUBLE_EQ(adjusted[3], 0.02);
}

TEST(Holm, NaNIsSkippedAndCappedAtOne)
{
    std::vector<double> p = {0.6, NAN, 0.7};
    std::vector<double> adjusted = holm_adjust(p);
    EXPECT_DOUBLE_EQ(adjusted[0], 1.0);
    EXPECT_TRUE(std::isnan(adjusted[1]));
    EXPECT_DOUBLE_EQ(adjusted[2], 1.0);
}

} // namespace
} // namespace ngx
