#include <models/maxrate/maxrate.hpp>
#include <models/postal/postal.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

using namespace ngx::fit;

namespace {

// Rates in bytes/us (= MB/s), times in us; Gropp et al. 2016, Table 1 magnitudes.
MaxRateParams eager3() // three parameters: s = 11 us, R_C = 1.7 GB/s, R_N = 5.5 GB/s
{
    MaxRateParams p;
    p.s = 11;
    p.R_Cb = p.R_Ci = 1700;
    p.R_N = 5500;
    return p;
}

MaxRateParams rendezvous4() // four parameters: s = 20, R_Cb = 3.6, R_Ci = 0.61, R_N = 5.5 GB/s
{
    MaxRateParams p;
    p.s = 20;
    p.R_Cb = 3600;
    p.R_Ci = 610;
    p.R_N = 5500;
    return p;
}

std::vector<NodeCommPoint> nodecomm(const MaxRateParams& p, double noise, unsigned seed, double k_max = 16)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> nd(0, noise);
    std::vector<NodeCommPoint> v;
    for (double k = 1; k <= k_max; ++k)
        for (double n = 1024; n <= 65536; n *= 2)
            v.push_back({k, n, p.time(k, n) * (noise > 0 ? 1 + nd(rng) : 1.0)});
    return v;
}

void expect_rel(double got, double want, double rel, const char* what)
{
    EXPECT_NEAR(got, want, rel * std::fabs(want)) << what;
}

} // namespace

TEST(MaxRate, ModelFormulasAndKStar)
{
    const MaxRateParams p = eager3();
    EXPECT_NEAR(p.time(1, 1700), 11 + 1, 1e-12);     // s + n / R_C
    EXPECT_NEAR(p.time(2, 1700), 11 + 1, 1e-12);     // k R_C = 3400 < R_N: each pair at R_C
    EXPECT_NEAR(p.time(8, 5500), 11 + 8, 1e-12);     // network-limited: s + k n / R_N
    EXPECT_NEAR(p.k_star(), 5500.0 / 1700.0, 1e-12); // Gropp et al. 2016: k* = R_N / R_C
    const MaxRateParams q = rendezvous4();
    EXPECT_NEAR(q.rate(3), std::min(5500.0, 3600 + 2 * 610.0), 1e-12);
    EXPECT_NEAR(q.k_star(), 1 + (5500 - 3600) / 610.0, 1e-12);
    MaxRateParams unlimited = eager3();
    unlimited.R_N = MaxRateParams::inf;
    EXPECT_TRUE(std::isinf(unlimited.k_star()));
    EXPECT_TRUE(std::isnan(q.time(0, 10)));
}

TEST(MaxRate, ThreeParameterRecoversExactParameters)
{
    const MaxRateParams t = eager3();
    const auto f = fit_maxrate(nodecomm(t, 0, 0));
    ASSERT_TRUE(f);
    expect_rel(f->params.s, t.s, 1e-9, "s");
    expect_rel(f->params.R_Cb, t.R_Cb, 1e-9, "R_C");
    expect_rel(f->params.R_N, t.R_N, 1e-9, "R_N");
    expect_rel(f->params.k_star(), t.k_star(), 1e-9, "k*");
    EXPECT_EQ(f->network_limited, 13u * 7u); // k = 4..16 are network-limited (k* = 3.2)
    EXPECT_LT(f->error.max_rel, 1e-12);
}

TEST(MaxRate, ThreeParameterNoisyWithinFivePercent)
{
    const MaxRateParams t = eager3();
    int covered = 0;
    for (unsigned seed = 1; seed <= 20; ++seed) {
        const auto f = fit_maxrate(nodecomm(t, 0.01, seed));
        ASSERT_TRUE(f);
        expect_rel(f->params.s, t.s, 0.05, "s");
        expect_rel(f->params.R_Cb, t.R_Cb, 0.05, "R_C");
        expect_rel(f->params.R_N, t.R_N, 0.05, "R_N");
        EXPECT_LT(f->error.mean_rel, 0.02);
        covered += f->R_N.contains(t.R_N);
    }
    EXPECT_GE(covered, 16);
}

TEST(MaxRate, FourParameterRecoversExactParameters)
{
    const MaxRateParams t = rendezvous4();
    const auto f = fit_maxrate(nodecomm(t, 0, 0), MaxRateVariant::four_parameter);
    ASSERT_TRUE(f);
    expect_rel(f->params.s, t.s, 1e-6, "s");
    expect_rel(f->params.R_Cb, t.R_Cb, 1e-6, "R_Cb");
    expect_rel(f->params.R_Ci, t.R_Ci, 1e-6, "R_Ci");
    expect_rel(f->params.R_N, t.R_N, 1e-6, "R_N");
    EXPECT_LT(f->error.max_rel, 1e-6);
}

TEST(MaxRate, FourParameterNoisy)
{
    const MaxRateParams t = rendezvous4();
    for (unsigned seed = 1; seed <= 5; ++seed) {
        const auto f = fit_maxrate(nodecomm(t, 0.01, seed), MaxRateVariant::four_parameter);
        ASSERT_TRUE(f);
        expect_rel(f->params.s, t.s, 0.05, "s");
        expect_rel(f->params.R_Cb, t.R_Cb, 0.05, "R_Cb");
        expect_rel(f->params.R_N, t.R_N, 0.05, "R_N");
        expect_rel(f->params.R_Ci, t.R_Ci, 0.25, "R_Ci");
    }
}

// R_Ci's 95% interval (delta method over the profiled rho): finite, around
// the estimate, and holding the true R_Ci in about 95% of noisy data sets
// (at least 16 of 20, as the three-parameter R_N above).
TEST(MaxRate, FourParameterRCiIntervalCoversTruth)
{
    const MaxRateParams t = rendezvous4();
    int covered = 0;
    for (unsigned seed = 1; seed <= 20; ++seed) {
        const auto f = fit_maxrate(nodecomm(t, 0.01, seed), MaxRateVariant::four_parameter);
        ASSERT_TRUE(f);
        ASSERT_TRUE(f->R_Ci.has_interval()) << "seed " << seed;
        EXPECT_EQ(f->R_Ci.value, f->params.R_Ci);
        EXPECT_LT(f->R_Ci.lower, f->R_Ci.value);
        EXPECT_GT(f->R_Ci.upper, f->R_Ci.value);
        EXPECT_NEAR(f->R_Ci.level, 0.95, 1e-12);
        covered += f->R_Ci.contains(t.R_Ci);
    }
    EXPECT_GE(covered, 16);
    const auto f3 = fit_maxrate(nodecomm(eager3(), 0.01, 1)); // three parameters: R_Ci is R_C
    ASSERT_TRUE(f3);
    EXPECT_EQ(f3->R_Ci.value, f3->R_Cb.value);
    EXPECT_EQ(f3->R_Ci.lower, f3->R_Cb.lower);
}

TEST(MaxRate, FourParameterWithNegativeIncrementAndNoNetworkLimit)
{
    // Gropp et al. 2016, Table 1, short regime: R_Ci < 0 and R_N = inf.
    MaxRateParams t;
    t.s = 4;
    t.R_Cb = 630;
    t.R_Ci = -18;
    const auto f = fit_maxrate(nodecomm(t, 0, 0), MaxRateVariant::four_parameter);
    ASSERT_TRUE(f);
    expect_rel(f->params.R_Cb, 630, 1e-6, "R_Cb");
    expect_rel(f->params.R_Ci, -18, 1e-5, "R_Ci");
    EXPECT_TRUE(std::isinf(f->params.R_N));
    EXPECT_EQ(f->network_limited, 0u);
}

TEST(MaxRate, ThreeParameterWithoutNetworkLimitGivesInfiniteRN)
{
    MaxRateParams t = eager3();
    t.R_N = MaxRateParams::inf;
    const auto f = fit_maxrate(nodecomm(t, 0, 0));
    ASSERT_TRUE(f);
    EXPECT_TRUE(std::isinf(f->params.R_N));
    expect_rel(f->params.R_Cb, 1700, 1e-9, "R_C");
}

// The point of Gropp et al. 2016: on multi-pair data the postal model fits badly, the
// max-rate model well.
TEST(MaxRate, BeatsPostalOnMultiPairData)
{
    const auto pts = nodecomm(eager3(), 0.01, 7);
    const auto m = fit_maxrate(pts);
    const auto p = fit_postal(pts);
    ASSERT_TRUE(m && p);
    EXPECT_LT(m->error.mean_rel, 0.02);
    EXPECT_GT(p->error.mean_rel, 5 * m->error.mean_rel);
}

TEST(MaxRate, BroadcastPredictionsUseOneStream)
{
    const MaxRateParams p = eager3();
    EXPECT_NEAR(p.rtt(1700), 24, 1e-12);
    EXPECT_NEAR(p.linear_bcast(4, 1700), 36, 1e-12);
    EXPECT_NEAR(p.tree_bcast(4, 1700), 24, 1e-12);
}

TEST(MaxRate, InvalidAndDegenerateInputs)
{
    std::vector<NodeCommPoint> one_k{{1, 10, 1}, {1, 20, 2}, {1, 30, 3}};
    EXPECT_EQ(fit_maxrate(one_k).status().reason(), ngx::Reason::degenerate);
    std::vector<NodeCommPoint> bad{{0, 10, 1}, {1, 20, 2}, {2, 30, 3}};
    EXPECT_EQ(fit_maxrate(bad).status().reason(), ngx::Reason::invalid_input);
    EXPECT_EQ(fit_maxrate(std::span(one_k).first(2)).status().reason(), ngx::Reason::too_few_points);
    std::vector<NodeCommPoint> one_n{{1, 1, 10}, {2, 1, 10}, {3, 1, 10}, {4, 1, 11}, {5, 1, 11}};
    EXPECT_EQ(fit_maxrate(one_n).status().reason(), ngx::Reason::degenerate); // nodecomm's 1-byte regime
    std::vector<NodeCommPoint> four{{1, 10, 1}, {2, 20, 2}, {1, 30, 3}, {2, 40, 4}};
    EXPECT_TRUE(fit_maxrate(four).has_value());
    EXPECT_EQ(fit_maxrate(four, MaxRateVariant::four_parameter).status().reason(), ngx::Reason::too_few_points);
}
