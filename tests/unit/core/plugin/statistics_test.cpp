// Summary statistics against values computed by hand.
#include <ngx/statistics.hpp>

#include <gtest/gtest.h>

#include <cmath>

namespace ngx {
namespace {

TEST(Statistics, HandComputedSummary)
{
    // Samples 1..10: mean 5.5, median 5.5, variance (n-1) = 82.5 / 9.
    std::vector<double> samples = {7, 3, 1, 10, 2, 9, 4, 6, 8, 5};
    const double ranks[] = {90.0};
    Summary s = summarize(samples, ranks);
    EXPECT_EQ(s.count, 10u);
    EXPECT_DOUBLE_EQ(s.min, 1.0);
    EXPECT_DOUBLE_EQ(s.max, 10.0);
    EXPECT_DOUBLE_EQ(s.mean, 5.5);
    EXPECT_DOUBLE_EQ(s.median, 5.5);
    EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(82.5 / 9.0));
    // Linear interpolation between ranks: position 0.99 * 9 = 8.91 -> 9 + 0.91.
    EXPECT_DOUBLE_EQ(s.p99, 9.91);
    ASSERT_EQ(s.percentiles.size(), 1u);
    EXPECT_DOUBLE_EQ(s.percentiles[0].value, 9.1);
}

TEST(Statistics, OddCountMedianIsTheMiddleValue)
{
    EXPECT_DOUBLE_EQ(median({5, 1, 3}), 3.0);
    EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
}

TEST(Statistics, OneSampleHasNoSpread)
{
    Summary s = summarize({4.25});
    EXPECT_EQ(s.count, 1u);
    EXPECT_DOUBLE_EQ(s.median, 4.25);
    EXPECT_DOUBLE_EQ(s.p99, 4.25);
    EXPECT_DOUBLE_EQ(s.stddev, 0.0);
}

TEST(Statistics, EmptySeriesIsAllZero)
{
    Summary s = summarize({});
    EXPECT_EQ(s.count, 0u);
    EXPECT_DOUBLE_EQ(s.mean, 0.0);
}

TEST(Statistics, PercentileEndsAreMinAndMax)
{
    std::vector<double> sorted = {1, 2, 3, 4};
    EXPECT_DOUBLE_EQ(percentile_of_sorted(sorted, 0), 1.0);
    EXPECT_DOUBLE_EQ(percentile_of_sorted(sorted, 100), 4.0);
    EXPECT_DOUBLE_EQ(percentile_of_sorted(sorted, 50), 2.5);
}

// Ranks of the 95% interval of the median, k and n+1-k (1-based), from the
// binomial(n, 1/2) tail by hand: n = 6: P(B <= 0) = 1/64 = 0.016 <= 0.025 <
// P(B <= 1) = 7/64, so k = 1; n = 10: P(B <= 1) = 11/1024 = 0.011 <= 0.025 <
// P(B <= 2) = 56/1024, so k = 2; n = 5: P(B <= 0) = 1/32 = 0.031 > 0.025, no
// interval. 20, 30, 100 and 1000 agree with the published tables (6, 10,
// 40, 469), 10000 with a sum in exact integers (4902).
TEST(Statistics, MedianIntervalRanksMatchTheBinomialTail)
{
    EXPECT_EQ(median_ci95_rank(0), 0u);
    EXPECT_EQ(median_ci95_rank(5), 0u);
    EXPECT_EQ(median_ci95_rank(6), 1u);
    EXPECT_EQ(median_ci95_rank(7), 1u);
    EXPECT_EQ(median_ci95_rank(10), 2u);
    EXPECT_EQ(median_ci95_rank(20), 6u);
    EXPECT_EQ(median_ci95_rank(30), 10u);
    EXPECT_EQ(median_ci95_rank(100), 40u);
    EXPECT_EQ(median_ci95_rank(1000), 469u);
    EXPECT_EQ(median_ci95_rank(10000), 4902u);
}

TEST(Statistics, MedianIntervalIsTheOrderStatisticsAtThoseRanks)
{
    std::vector<double> sorted = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    MedianInterval ci = median_ci95(sorted); // n = 10: x_(2), x_(9)
    EXPECT_DOUBLE_EQ(ci.low, 2.0);
    EXPECT_DOUBLE_EQ(ci.high, 9.0);
    EXPECT_DOUBLE_EQ(relative_width(ci, 5.5), 7.0 / 5.5);
    std::vector<double> hundred(100);
    for (size_t i = 0; i < hundred.size(); ++i)
        hundred[i] = 10.0 + double(i) / 100; // x_(40) = 10.39, x_(61) = 10.60
    ci = median_ci95(hundred);
    EXPECT_DOUBLE_EQ(ci.low, 10.39);
    EXPECT_DOUBLE_EQ(ci.high, 10.60);
}

TEST(Statistics, TooFewSamplesHaveNoMedianInterval)
{
    std::vector<double> five = {1, 2, 3, 4, 5};
    MedianInterval ci = median_ci95(five);
    EXPECT_TRUE(std::isnan(ci.low));
    EXPECT_TRUE(std::isnan(ci.high));
    EXPECT_TRUE(std::isnan(relative_width(ci, 3.0)));
    EXPECT_TRUE(std::isnan(relative_width({1.0, 2.0}, 0.0))); // no relative width around a zero median
}

} // namespace
} // namespace ngx
