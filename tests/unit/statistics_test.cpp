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

} // namespace
} // namespace ngx
