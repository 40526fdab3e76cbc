#include <models/base/linear_model.hpp>
#include <models/base/model_choice.hpp>
#include <models/base/student_t.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

using namespace ngx::fit;

namespace {

double rss(const LinearFit& f)
{
    double s = 0;
    for (double r : f.residuals)
        s += r * r;
    return s;
}

// Least squares of y on the first `p` powers of x (1, x, x^2, ...).
FitEvidence polynomial(const std::vector<double>& x, const std::vector<double>& y, std::size_t p)
{
    std::vector<double> design;
    for (double xi : x)
        for (std::size_t j = 0; j < p; ++j)
            design.push_back(std::pow(xi, double(j)));
    const ngx::Result<LinearFit> f = fit_linear(design, p, y);
    EXPECT_TRUE(f);
    return {f ? rss(*f) : NAN, x.size(), p};
}

} // namespace

TEST(ModelChoice, ChiSquareTailMatchesClosedFormsAndTables)
{
    for (double x : {0.1, 1.0, 4.0, 20.0})
        EXPECT_NEAR(chi_square_upper_tail(x, 2), std::exp(-x / 2), 1e-12) << x; // k = 2: exp(-x/2)
    EXPECT_NEAR(chi_square_upper_tail(3.841459, 1), 0.05, 1e-6);                // tables: chi^2_{0.95}(1)
    EXPECT_NEAR(chi_square_upper_tail(6.634897, 1), 0.01, 1e-6);
    EXPECT_NEAR(chi_square_upper_tail(23.209251, 10), 0.01, 1e-6);
    EXPECT_NEAR(chi_square_upper_tail(20.090235, 8), 0.01, 1e-6);
    EXPECT_EQ(chi_square_upper_tail(1e6, 3), 0.0);
    EXPECT_EQ(chi_square_upper_tail(0, 3), 1.0);
    EXPECT_TRUE(std::isnan(chi_square_upper_tail(1, 0)));
}

TEST(ModelChoice, FTailIsTheSquaredStudentTWithOneNumeratorDegree)
{
    for (double f : {0.5, 2.0, 7.5})
        for (double d2 : {3.0, 10.0, 40.0})
            EXPECT_NEAR(f_upper_tail(f, 1, d2), 2 * (1 - student_t_cdf(std::sqrt(f), d2)), 1e-9) << f << " " << d2;
    EXPECT_NEAR(f_upper_tail(4.102821, 2, 10), 0.05, 1e-6); // tables: F_{0.95}(2, 10)
    EXPECT_EQ(f_upper_tail(INFINITY, 2, 10), 0.0);
    EXPECT_TRUE(std::isnan(f_upper_tail(1, 2, 0)));
}

// The stated rate: where the simpler model is the truth, the richer one
// wins in at most alpha of the cases, with the measured noise (chi^2 test)
// and without it (F test); where the richer one is the truth, it wins.
TEST(ModelChoice, PureNoisePicksTheRicherModelAtTheStatedRate)
{
    constexpr double sigma = 0.01;
    constexpr int runs = 2000;
    std::mt19937_64 rng(7);
    std::normal_distribution<double> noise(0.0, sigma);
    std::vector<double> x;
    for (int i = 0; i < 30; ++i)
        x.push_back(i / 29.0);
    int with_noise = 0, without_noise = 0, curved_found = 0;
    for (int run = 0; run < runs; ++run) {
        std::vector<double> line, curve;
        for (double xi : x) {
            line.push_back(1 + 0.5 * xi + noise(rng));
            curve.push_back(1 + 0.5 * xi + 0.2 * xi * xi + noise(rng));
        }
        const FitEvidence a = polynomial(x, line, 2), b = polynomial(x, line, 4);
        with_noise += richer_fit_wins(a, b, sigma);
        without_noise += richer_fit_wins(a, b, NAN);
        curved_found += richer_fit_wins(polynomial(x, curve, 2), polynomial(x, curve, 3), sigma);
    }
    // Binomial(2000, 0.01): mean 20, standard deviation 4.4.
    EXPECT_GE(with_noise, 8);
    EXPECT_LE(with_noise, 34);
    EXPECT_GE(without_noise, 8);
    EXPECT_LE(without_noise, 34);
    EXPECT_GT(curved_found, runs * 99 / 100); // 0.2 x^2 against 1% noise: about 10 standard errors
}

TEST(ModelChoice, NoBetterFitOrNoMoreParametersNeverWins)
{
    EXPECT_EQ(improvement_p_value({1.0, 20, 3}, {1.0, 20, 4}, 0.01), 1.0); // no drop
    EXPECT_EQ(improvement_p_value({2.0, 20, 3}, {1.0, 20, 3}, 0.01), 1.0); // no parameter more
    EXPECT_EQ(improvement_p_value({2.0, 4, 2}, {0.0, 4, 4}, NAN), 1.0);    // no residual, no measured noise
    EXPECT_LT(improvement_p_value({2.0, 4, 2}, {0.0, 4, 4}, 0.01), 1e-12); // the measured noise judges it
    EXPECT_EQ(improvement_p_value({1e-30, 9, 7}, {0.0, 9, 8}, NAN), 1.0);  // rounding, not evidence
}
