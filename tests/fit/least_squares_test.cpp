#include <models/base/least_squares.hpp>
#include <models/base/student_t.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

using namespace ngx::fit;
using ngx::Result;

// Hand computation for x = 1..5, y = 2, 4, 5, 4, 5:
//   xbar = 3, ybar = 4, Sxx = 10, Sxy = 6  =>  b = 0.6, a = 2.2
//   residuals -0.8, 0.6, 1.0, -0.6, -0.2; RSS = 2.4; Syy = 6; r^2 = 0.6
//   s^2 = 0.8; se(b) = sqrt(0.08); se(a) = sqrt(0.8 (1/5 + 9/10)) = sqrt(0.88)
//   cov(a,b) = -3 * 0.8 / 10 = -0.24
TEST(LeastSquares, HandComputedExample)
{
    const std::vector<double> x{1, 2, 3, 4, 5}, y{2, 4, 5, 4, 5};
    const Result<LineFit> r = fit_line(x, y, 0.95);
    ASSERT_TRUE(r);
    EXPECT_NEAR(r->slope.value, 0.6, 1e-12);
    EXPECT_NEAR(r->intercept.value, 2.2, 1e-12);
    const double expected_res[] = {-0.8, 0.6, 1.0, -0.6, -0.2};
    ASSERT_EQ(r->residuals.size(), 5u);
    for (int i = 0; i < 5; ++i)
        EXPECT_NEAR(r->residuals[i], expected_res[i], 1e-12);
    EXPECT_NEAR(r->rss, 2.4, 1e-12);
    EXPECT_NEAR(r->r_squared, 0.6, 1e-12);
    EXPECT_NEAR(r->slope.std_error, std::sqrt(0.08), 1e-12);
    EXPECT_NEAR(r->intercept.std_error, std::sqrt(0.88), 1e-12);
    EXPECT_NEAR(r->cov, -0.24, 1e-12);
    EXPECT_NEAR(r->sigma, std::sqrt(0.8), 1e-12);
    const double t = t_critical(0.95, 3); // 3.182446305284263
    EXPECT_NEAR(t, 3.182446305284263, 1e-9);
    EXPECT_NEAR(r->slope.lower, 0.6 - t * std::sqrt(0.08), 1e-12);
    EXPECT_NEAR(r->slope.upper, 0.6 + t * std::sqrt(0.08), 1e-12);
    EXPECT_NEAR(r->intercept.lower, 2.2 - t * std::sqrt(0.88), 1e-12);
    EXPECT_NEAR(r->intercept.upper, 2.2 + t * std::sqrt(0.88), 1e-12);
    EXPECT_EQ(r->slope.level, 0.95);
    EXPECT_NEAR(r->predict(10), 8.2, 1e-12);
}

TEST(LeastSquares, WeightedWithEqualWeightsEqualsOrdinary)
{
    const std::vector<double> x{1, 2, 3, 4, 5}, y{2, 4, 5, 4, 5}, w(5, 7.0);
    const auto a = fit_line(x, y);
    const auto b = fit_line_weighted(x, y, w);
    ASSERT_TRUE(a && b);
    EXPECT_NEAR(a->slope.value, b->slope.value, 1e-12);
    EXPECT_NEAR(a->intercept.std_error, b->intercept.std_error, 1e-12);
    EXPECT_NEAR(a->slope.upper, b->slope.upper, 1e-12);
}

TEST(LeastSquares, WeightedFitHandExample)
{
    // Points (0,0) w=1, (1,1) w=1, (2,4) w=2:
    // sw = 4, xbar = (0+1+4)/4 = 1.25, ybar = (0+1+8)/4 = 2.25
    // Sxx = 1.5625 + 0.0625 + 2*0.5625 = 2.75, Sxy = 2.8125 + 0.3125 + 2*1.3125 = 5.75
    const std::vector<double> x{0, 1, 2}, y{0, 1, 4}, w{1, 1, 2};
    const auto r = fit_line_weighted(x, y, w);
    ASSERT_TRUE(r);
    EXPECT_NEAR(r->slope.value, 5.75 / 2.75, 1e-12);
    EXPECT_NEAR(r->intercept.value, 2.25 - 5.75 / 2.75 * 1.25, 1e-12);
}

TEST(LeastSquares, TwoPointsGiveALineButNoIntervals)
{
    const std::vector<double> x{1, 3}, y{2, 6};
    const auto r = fit_line(x, y);
    ASSERT_TRUE(r);
    EXPECT_NEAR(r->slope.value, 2, 1e-12);
    EXPECT_NEAR(r->intercept.value, 0, 1e-12);
    EXPECT_FALSE(r->has_intervals());
    EXPECT_FALSE(r->slope.has_interval());
    EXPECT_TRUE(std::isnan(r->slope.std_error));
}

TEST(LeastSquares, BadInputsFailWithAStatus)
{
    const std::vector<double> one{1}, two{1, 2}, three{1, 2, 3}, same{2, 2, 2};
    EXPECT_EQ(fit_line(one, one).status().reason(), ngx::Reason::too_few_points);
    EXPECT_EQ(fit_line(two, three).status().reason(), ngx::Reason::invalid_input);
    EXPECT_EQ(fit_line(same, three).status().reason(), ngx::Reason::degenerate);
    const std::vector<double> with_nan{1, NAN, 3};
    EXPECT_EQ(fit_line(three, with_nan).status().reason(), ngx::Reason::invalid_input);
    const std::vector<double> bad_w{1, 0, 1};
    EXPECT_EQ(fit_line_weighted(three, three, bad_w).status().reason(), ngx::Reason::invalid_input);
    EXPECT_EQ(fit_line(three, three, 1.0).status().reason(), ngx::Reason::invalid_input);
}

TEST(LeastSquares, ExactLineHasZeroResidualsAndUnitRSquared)
{
    std::vector<double> x, y;
    for (int i = 0; i < 20; ++i) {
        x.push_back(std::ldexp(1.0, i));
        y.push_back(3.5 + 0.001 * x.back());
    }
    const auto r = fit_line_weighted(x, y, relative_weights(y));
    ASSERT_TRUE(r);
    EXPECT_NEAR(r->intercept.value, 3.5, 1e-9);
    EXPECT_NEAR(r->slope.value, 0.001, 1e-15);
    EXPECT_NEAR(r->r_squared, 1.0, 1e-12);
}

// y = a + b x with 2 % multiplicative noise; the true coefficients must be
// recovered within the noise and lie inside the 95 % intervals in the vast
// majority of seeds (nominal coverage 95 of 100).
TEST(LeastSquares, NoisySyntheticDataIsRecoveredAndIntervalsCover)
{
    const double a = 5.0, b = 0.002;
    int covered_a = 0, covered_b = 0;
    for (unsigned seed = 1; seed <= 100; ++seed) {
        std::mt19937_64 rng(seed);
        std::normal_distribution<double> noise(0.0, 0.02);
        std::vector<double> x, y;
        for (int i = 0; i <= 20; ++i) {
            x.push_back(std::ldexp(1.0, i));
            y.push_back((a + b * x.back()) * (1 + noise(rng)));
        }
        const auto r = fit_line_weighted(x, y, relative_weights(y), 0.95);
        ASSERT_TRUE(r);
        EXPECT_NEAR(r->intercept.value, a, 0.05 * a) << seed;
        EXPECT_NEAR(r->slope.value, b, 0.05 * b) << seed;
        covered_a += r->intercept.contains(a);
        covered_b += r->slope.contains(b);
    }
    EXPECT_GE(covered_a, 85);
    EXPECT_GE(covered_b, 85);
}

TEST(LeastSquares, OrdinaryIntervalsCoverWithAdditiveNoise)
{
    const double a = -2.0, b = 0.75;
    int covered_a = 0, covered_b = 0;
    for (unsigned seed = 1; seed <= 100; ++seed) {
        std::mt19937_64 rng(seed);
        std::normal_distribution<double> noise(0.0, 0.5);
        std::vector<double> x, y;
        for (int i = 0; i < 12; ++i) {
            x.push_back(i);
            y.push_back(a + b * i + noise(rng));
        }
        const auto r = fit_line(x, y);
        ASSERT_TRUE(r);
        covered_a += r->intercept.contains(a);
        covered_b += r->slope.contains(b);
    }
    EXPECT_GE(covered_a, 85);
    EXPECT_GE(covered_b, 85);
}
