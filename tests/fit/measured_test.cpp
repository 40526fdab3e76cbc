#include <models/base/measured.hpp>
#include <models/base/model_error.hpp>
#include <models/base/student_t.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace ngx::fit;

TEST(Measured, MeanOfHasTIntervalFromSpread)
{
    const std::vector<double> v{1, 2, 3, 4, 5};
    const Measured m = mean_of(v, 0.95);
    EXPECT_DOUBLE_EQ(m.value, 3.0);
    const double se = std::sqrt(2.5 / 5);
    EXPECT_NEAR(m.std_error, se, 1e-12);
    EXPECT_NEAR(m.upper - m.value, t_critical(0.95, 4) * se, 1e-12);
    EXPECT_TRUE(m.contains(3.5));
    EXPECT_FALSE(m.contains(10));
}

TEST(Measured, SingleValueHasNoInterval)
{
    const std::vector<double> v{4.2};
    const Measured m = mean_of(v);
    EXPECT_DOUBLE_EQ(m.value, 4.2);
    EXPECT_FALSE(m.has_interval());
    EXPECT_TRUE(std::isnan(mean_of(std::vector<double>{}).value));
    EXPECT_FALSE(Measured::exact(1.0).has_interval());
}

TEST(Measured, WeightedMeanWithEqualWeightsIsTheMean)
{
    const std::vector<double> v{1, 2, 3, 4, 5}, w(5, 0.3);
    const Measured a = mean_of(v), b = weighted_mean_of(v, w);
    EXPECT_NEAR(a.value, b.value, 1e-12);
    EXPECT_NEAR(a.std_error, b.std_error, 1e-12);
    const std::vector<double> w2{1, 0, 0, 0, 1};
    EXPECT_NEAR(weighted_mean_of(v, w2).value, 3.0, 1e-12);
}

TEST(Measured, MedianOfOddAndEven)
{
    EXPECT_DOUBLE_EQ(median_of(std::vector<double>{5, 1, 3}), 3);
    EXPECT_DOUBLE_EQ(median_of(std::vector<double>{4, 1, 3, 2}), 2.5);
    EXPECT_TRUE(std::isnan(median_of(std::vector<double>{})));
}

TEST(ModelError, ReportsMaxMeanRelativeAndRms)
{
    const std::vector<double> meas{10, 20, 0}, pred{11, 19, 1};
    const ModelError e = model_error(meas, pred);
    EXPECT_EQ(e.count, 3u);
    EXPECT_NEAR(e.max_rel, 0.1, 1e-12);
    EXPECT_NEAR(e.mean_rel, (0.1 + 0.05) / 2, 1e-12); // zero measurement skipped
    EXPECT_NEAR(e.rms, 1.0, 1e-12);
}
