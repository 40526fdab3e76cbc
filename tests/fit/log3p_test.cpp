#include <models/log3p/log3p.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

using namespace ngx::fit;

namespace {

// Ground truth, microseconds: linear in s, l_mw linear in log2 of the stride.
double o_mw(double s)
{
    return 2 + 0.0015 * s;
}
double o_net(double s)
{
    return 8 + 0.008 * s;
}
double t_mem(double s)
{
    return 0.0002 * s;
}
double l_mw(double s, double d)
{
    return s * (0.001 + 0.0005 * std::log2(d / 16));
}

struct Data {
    std::vector<Log3PSample> contiguous;
    std::vector<Log3PStridedSample> strided;
};

Data generate(double noise, unsigned seed)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> nd(0, noise);
    auto j = [&] { return noise > 0 ? 1 + nd(rng) : 1.0; };
    Data d;
    for (double s = 1024; s <= 262144; s *= 2) {
        d.contiguous.push_back({s, (o_mw(s) + t_mem(s)) * j(), (o_mw(s) + o_net(s)) * j(), t_mem(s)});
        for (double st : {16.0, 64.0, 256.0, 1024.0})
            d.strided.push_back(
                {s, st, (o_mw(s) + l_mw(s, st) + t_mem(s)) * j(), (o_mw(s) + l_mw(s, st) + o_net(s)) * j()});
    }
    return d;
}

} // namespace

// Cameron et al. 2007, section 4.1, Titan at 16 KiB and stride 1 KiB: o_mw = 29,
// l_mw = 420, T_mem = 3, o_net = 131 us; T_00(s,d) = 452 us and the remote
// strided half round trip T_01(s,d) = 580 us.
TEST(Log3P, PaperTitanExample)
{
    const std::vector<Log3PSample> c{{16384, 29 + 3, 29 + 131, 3}};
    const std::vector<Log3PStridedSample> st{{16384, 1024, 452, 580.0}};
    const auto f = fit_log3p(c, st);
    ASSERT_TRUE(f);
    EXPECT_NEAR(f->params.o_mw_at(16384), 29, 1e-12);
    EXPECT_NEAR(f->params.o_net_at(16384), 131, 1e-12);
    EXPECT_NEAR(f->params.l_mw_at(16384, 1024), 420, 1e-12);
    EXPECT_NEAR(f->params.time(16384, 1024), 580, 1e-12);
    EXPECT_EQ(f->validation.count, 1u);
    EXPECT_LT(f->validation.max_rel, 1e-12);
}

TEST(Log3P, RecoversTermsAndPredictsRemoteStrided)
{
    const Data d = generate(0, 0);
    const auto f = fit_log3p(d.contiguous, d.strided);
    ASSERT_TRUE(f);
    const Log3PParams& p = f->params;
    for (double s : {1024.0, 3000.0, 65536.0, 200000.0}) { // measured and in between
        EXPECT_NEAR(p.o_mw_at(s), o_mw(s), 1e-9 * o_mw(s));
        EXPECT_NEAR(p.o_net_at(s), o_net(s), 1e-9 * o_net(s));
        EXPECT_NEAR(p.time(s), o_mw(s) + o_net(s), 1e-9 * o_net(s));
        for (double st : {16.0, 64.0, 128.0, 1024.0}) // 128: interpolated in log2(d)
            EXPECT_NEAR(p.l_mw_at(s, st), l_mw(s, st), 1e-9 * l_mw(s, 1024)) << s << " " << st;
    }
    EXPECT_EQ(p.l_mw_at(4096, 0), 0);
    EXPECT_NEAR(p.l_mw_at(4096, 8), l_mw(4096, 16), 1e-9); // below the smallest stride: nearest
    EXPECT_EQ(f->validation.count, d.strided.size());
    EXPECT_LT(f->validation.max_rel, 1e-9);
    EXPECT_LT(f->error.max_rel, 1e-9);
    ASSERT_TRUE(f->o_mw_line);
    EXPECT_NEAR(f->o_mw_line->slope.value, 0.0015, 1e-12);
}

TEST(Log3P, NoisyMeasurementsPredictWithinNoise)
{
    for (unsigned seed = 1; seed <= 10; ++seed) {
        const Data d = generate(0.01, seed);
        const auto f = fit_log3p(d.contiguous, d.strided);
        ASSERT_TRUE(f);
        EXPECT_LT(f->validation.mean_rel, 0.03) << seed;
        EXPECT_NEAR(f->o_net_line->slope.value, 0.008, 0.0004);
    }
}

TEST(Log3P, CollectivePredictions)
{
    const Data d = generate(0, 0);
    const auto f = fit_log3p(d.contiguous, d.strided);
    ASSERT_TRUE(f);
    const Log3PParams& p = f->params;
    const double s = 16384, st = 256;
    const double linear = 8 * (o_mw(s) / 2 + l_mw(s, st) / 2) + o_net(s); // P (o_mw/2 + l_mw/2) + o_net
    EXPECT_NEAR(p.linear_bcast(8, s, st), linear, 1e-9 * linear);
    const double round = o_mw(s) + l_mw(s, st) + o_net(s);
    EXPECT_NEAR(p.tree_bcast(8, s, st), 3 * round, 1e-9 * round); // log2(8) = 3
    EXPECT_NEAR(p.tree_bcast(9, s, st), 4 * round, 1e-9 * round); // whole rounds
    EXPECT_EQ(p.linear_bcast(1, s), 0);
    EXPECT_NEAR(p.rtt(s), 2 * (o_mw(s) + o_net(s)), 1e-9);
}

TEST(Log3P, InvalidInputs)
{
    EXPECT_EQ(fit_log3p({}).status().reason(), ngx::Reason::too_few_points);
    const std::vector<Log3PSample> unsorted{{4096, 1, 2, 0.1}, {1024, 1, 2, 0.1}};
    EXPECT_EQ(fit_log3p(unsorted).status().reason(), ngx::Reason::invalid_input);
    const std::vector<Log3PSample> ok{{1024, 1, 2, 0.1}};
    const std::vector<Log3PStridedSample> bad{{1024, 0, 3, std::nullopt}};
    EXPECT_EQ(fit_log3p(ok, bad).status().reason(), ngx::Reason::invalid_input);
}
