#include <models/base/least_squares.hpp>
#include <models/base/linear_model.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

using namespace ngx::fit;

TEST(LinearModel, RecoversExactQuadratic)
{
    // y = 1 + 0.5 x + 2 x^2, rows [1, x, x^2]
    std::vector<double> X, y;
    for (int i = 0; i < 6; ++i) {
        const double x = i;
        X.insert(X.end(), {1.0, x, x * x});
        y.push_back(1 + 0.5 * x + 2 * x * x);
    }
    const auto r = fit_linear(X, 3, y);
    ASSERT_TRUE(r);
    EXPECT_NEAR(r->coef[0].value, 1.0, 1e-12);
    EXPECT_NEAR(r->coef[1].value, 0.5, 1e-12);
    EXPECT_NEAR(r->coef[2].value, 2.0, 1e-12);
    EXPECT_NEAR(r->rss, 0.0, 1e-20);
}

TEST(LinearModel, TwoColumnsAgreeWithLineFit)
{
    const std::vector<double> x{1, 2, 3, 4, 5}, y{2, 4, 5, 4, 5}, w{1, 2, 1, 3, 1};
    std::vector<double> X;
    for (double xi : x)
        X.insert(X.end(), {1.0, xi});
    const auto lin = fit_linear(X, 2, y, w);
    const auto line = fit_line_weighted(x, y, w);
    ASSERT_TRUE(lin && line);
    EXPECT_NEAR(lin->coef[0].value, line->intercept.value, 1e-12);
    EXPECT_NEAR(lin->coef[1].value, line->slope.value, 1e-12);
    EXPECT_NEAR(lin->coef[0].std_error, line->intercept.std_error, 1e-12);
    EXPECT_NEAR(lin->coef[1].std_error, line->slope.std_error, 1e-12);
    EXPECT_NEAR(lin->covariance[1], line->cov, 1e-12);
    EXPECT_NEAR(lin->coef[1].upper, line->slope.upper, 1e-12);
    EXPECT_NEAR(lin->rss, line->rss, 1e-12);
}

TEST(LinearModel, ColumnsOfVeryDifferentScaleKeepTheirDigits)
{
    std::vector<double> X, y;
    for (int i = 0; i <= 20; ++i) {
        const double s = std::ldexp(1.0, i);
        X.insert(X.end(), {1.0, s, s > 4096 ? s - 4096 : 0.0});
        y.push_back(7.0 + 1e-3 * s + 5e-4 * (s > 4096 ? s - 4096 : 0.0));
    }
    const auto r = fit_linear(X, 3, y);
    ASSERT_TRUE(r);
    EXPECT_NEAR(r->coef[0].value, 7.0, 1e-9);
    EXPECT_NEAR(r->coef[1].value, 1e-3, 1e-15);
    EXPECT_NEAR(r->coef[2].value, 5e-4, 1e-15);
}

TEST(LinearModel, DependentColumnsAreDegenerate)
{
    std::vector<double> X, y;
    for (int i = 0; i < 5; ++i) {
        X.insert(X.end(), {1.0, double(i), 2.0 * i});
        y.push_back(i);
    }
    EXPECT_EQ(fit_linear(X, 3, y).status().reason(), ngx::Reason::degenerate);
    const std::vector<double> zero_col{1, 0, 1, 0, 1, 0};
    const std::vector<double> y3{1, 2, 3};
    EXPECT_EQ(fit_linear(zero_col, 2, y3).status().reason(), ngx::Reason::degenerate);
    EXPECT_EQ(fit_linear(zero_col, 4, y3).status().reason(), ngx::Reason::invalid_input);
    const std::vector<double> y2{1, 2};
    EXPECT_EQ(fit_linear(std::vector<double>{1, 1, 1, 1, 1, 1}, 3, y2).status().reason(), ngx::Reason::too_few_points);
}

TEST(LinearModel, IntervalsCoverTrueCoefficients)
{
    int covered = 0;
    for (unsigned seed = 1; seed <= 100; ++seed) {
        std::mt19937_64 rng(seed);
        std::normal_distribution<double> noise(0, 0.3);
        std::vector<double> X, y;
        for (int i = 0; i < 15; ++i) {
            const double x = i * 0.5;
            X.insert(X.end(), {1.0, x, std::sin(x)});
            y.push_back(2 - 0.3 * x + 1.5 * std::sin(x) + noise(rng));
        }
        const auto r = fit_linear(X, 3, y);
        ASSERT_TRUE(r);
        covered += r->coef[2].contains(1.5);
    }
    EXPECT_GE(covered, 85);
}
