#include <models/postal/postal.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

using namespace ngx::fit;

namespace {

struct Data {
    std::vector<double> n, t;
};

Data postal_data(double s, double r, double noise, unsigned seed)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> nd(0, noise);
    Data d;
    for (double n = 8; n <= 1 << 20; n *= 2) {
        d.n.push_back(n);
        d.t.push_back((s + r * n) * (noise > 0 ? 1 + nd(rng) : 1.0));
    }
    return d;
}

} // namespace

TEST(Postal, RecoversExactParameters)
{
    const Data d = postal_data(4.0, 0.001, 0, 0);
    const auto f = fit_postal(d.n, d.t);
    ASSERT_TRUE(f);
    EXPECT_NEAR(f->params.s, 4.0, 1e-9);
    EXPECT_NEAR(f->params.r, 0.001, 1e-15);
    EXPECT_LT(f->error.max_rel, 1e-12);
    EXPECT_NEAR(f->params.time(1000), 5.0, 1e-9);
}

TEST(Postal, NoisyDataWithinNoiseAndIntervalsCover)
{
    int covered = 0;
    for (unsigned seed = 1; seed <= 100; ++seed) {
        const Data d = postal_data(4.0, 0.001, 0.02, seed);
        const auto f = fit_postal(d.n, d.t);
        ASSERT_TRUE(f);
        EXPECT_NEAR(f->params.s, 4.0, 0.2);
        EXPECT_NEAR(f->params.r, 0.001, 5e-5);
        EXPECT_LT(f->error.mean_rel, 0.04);
        covered += f->s.contains(4.0) && f->r.contains(0.001);
    }
    EXPECT_GE(covered, 80); // joint coverage of two 95 % intervals
}

TEST(Postal, PredictionsAndPooledOverload)
{
    const PostalParams p{2.0, 0.5};
    EXPECT_EQ(p.rtt(10), 14.0);
    EXPECT_EQ(p.linear_bcast(5, 10), 28.0);
    EXPECT_EQ(p.tree_bcast(8, 10), 21.0);
    EXPECT_EQ(p.tree_bcast(9, 10), 28.0);
    EXPECT_EQ(p.linear_bcast(1, 10), 0.0);
    std::vector<NodeCommPoint> pts;
    for (double k : {1.0, 4.0})
        for (double n : {100.0, 1000.0, 10000.0})
            pts.push_back({k, n, p.time(n)});
    const auto f = fit_postal(pts);
    ASSERT_TRUE(f);
    EXPECT_NEAR(f->params.r, 0.5, 1e-12);
}

TEST(Postal, InvalidInputs)
{
    const std::vector<double> n{1, 2, 3}, t{1, 0, 3};
    EXPECT_EQ(fit_postal(n, t).status().reason(), ngx::Reason::invalid_input); // zero time: no relative weight
    EXPECT_EQ(fit_postal(std::vector<double>{1}, std::vector<double>{1}).status().reason(),
              ngx::Reason::too_few_points);
}
