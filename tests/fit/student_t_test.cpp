#include <models/base/student_t.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

using namespace ngx::fit;

TEST(StudentT, TwoSided95MatchesTableValues)
{
    EXPECT_NEAR(t_critical(0.95, 1), 12.706, 5e-4);
    EXPECT_NEAR(t_critical(0.95, 10), 2.228, 5e-4);
    EXPECT_NEAR(t_critical(0.95, 30), 2.042, 5e-4);
    // More digits (from closed forms / standard tables).
    EXPECT_NEAR(t_critical(0.95, 1), 12.706204736174698, 1e-9);
    EXPECT_NEAR(t_critical(0.95, 10), 2.2281388519649385, 1e-9);
    EXPECT_NEAR(t_critical(0.95, 30), 2.0422724563012373, 1e-9);
    EXPECT_NEAR(t_critical(0.99, 5), 4.032142983557536, 1e-9);
}

TEST(StudentT, QuantileMatchesClosedFormsForDf1AndDf2)
{
    for (double p = 0.0005; p < 0.9996; p += 0.0173) {
        const double cauchy = std::tan(std::numbers::pi * (p - 0.5)); // df = 1
        EXPECT_NEAR(student_t_quantile(p, 1), cauchy, 1e-9 * std::max(1.0, std::fabs(cauchy))) << p;
        const double df2 = (2 * p - 1) / std::sqrt(2 * p * (1 - p)); // df = 2
        EXPECT_NEAR(student_t_quantile(p, 2), df2, 1e-9 * std::max(1.0, std::fabs(df2))) << p;
    }
}

TEST(StudentT, LargeDfApproachesNormal)
{
    EXPECT_NEAR(t_critical(0.95, 1e7), 1.959963984540054, 1e-6);
}

TEST(StudentT, CdfInvertsQuantile)
{
    for (double df : {1.0, 2.5, 7.0, 40.0})
        for (double p : {0.01, 0.3, 0.5, 0.8, 0.999})
            EXPECT_NEAR(student_t_cdf(student_t_quantile(p, df), df), p, 1e-12);
}

TEST(StudentT, IncompleteBetaMatchesBinomialSum)
{
    // I_x(2,3) = sum_{j=2..4} C(4,j) x^j (1-x)^(4-j)
    const double x = 0.4;
    const double exact = 6 * x * x * 0.36 + 4 * x * x * x * 0.6 + x * x * x * x;
    EXPECT_NEAR(incomplete_beta(2, 3, x), exact, 1e-14);
    EXPECT_DOUBLE_EQ(incomplete_beta(2, 3, 0), 0);
    EXPECT_DOUBLE_EQ(incomplete_beta(2, 3, 1), 1);
}

TEST(StudentT, InvalidArgumentsGiveNaN)
{
    EXPECT_TRUE(std::isnan(student_t_quantile(0, 3)));
    EXPECT_TRUE(std::isnan(student_t_quantile(1, 3)));
    EXPECT_TRUE(std::isnan(student_t_quantile(0.5, 0)));
    EXPECT_TRUE(std::isnan(t_critical(1.5, 3)));
    EXPECT_TRUE(std::isnan(incomplete_beta(-1, 1, 0.5)));
}
