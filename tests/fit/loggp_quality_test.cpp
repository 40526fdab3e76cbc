#include <models/loggp/loggp_quality.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using namespace ngx::fit;

namespace {

constexpr double n_msgs = 16;

// Hoefler et al. 2007, eqs. (1) and (5) with an eager range up to 8 KiB and a
// rendezvous-like one above (g jumps, G changes), microseconds.
struct Truth {
    double L = 5.0, o = 1.5;
    double g(double s) const { return s <= 8192 ? 3.0 : 12.0; }
    double G(double s) const { return s <= 8192 ? 0.001 : 0.0008; }
    double prtt1(double s) const { return 2 * (L + 2 * o + (s - 1) * G(s)); }
    double prtt(double n, double d, double s) const
    {
        return prtt1(s) + (n - 1) * std::max(o + d, g(s) + (s - 1) * G(s));
    }
};

std::vector<PrttSample> generate(double noise = 0, unsigned seed = 0, double max_size = 1 << 20)
{
    const Truth t;
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> nd(0.0, noise);
    auto jitter = [&] { return noise > 0 ? 1 + nd(rng) : 1.0; };
    std::vector<PrttSample> v;
    for (double s = 1; s <= max_size; s *= 2) {
        PrttSample p;
        p.size = s;
        p.delay = t.prtt1(s);
        p.prtt_1_0 = t.prtt1(s) * jitter();
        p.prtt_n_0 = t.prtt(n_msgs, 0, s) * jitter();
        p.prtt_n_d = t.prtt(n_msgs, p.delay, s) * jitter();
        v.push_back(p);
    }
    return v;
}

const QualityMiss* find_miss(const RangeQuality& r, std::size_t index, PrttCurve curve)
{
    auto it = std::find_if(r.misses.begin(), r.misses.end(),
                           [&](const QualityMiss& m) { return m.index == index && m.curve == curve; });
    return it == r.misses.end() ? nullptr : &*it;
}

} // namespace

TEST(LogGPQuality, ExactDataMeetsTheGoalAndEqualsTheFitsError)
{
    const auto samples = generate(0.01, 1);
    const auto fit = fit_loggp(samples, n_msgs);
    ASSERT_TRUE(fit);
    const auto q = assess_loggp(samples, n_msgs, fit->params);
    ASSERT_TRUE(q);
    EXPECT_TRUE(q->meets_goal);
    ASSERT_EQ(q->ranges.size(), fit->params.ranges.size());
    EXPECT_EQ(q->overall.all.max_rel, fit->error.max_rel);
    EXPECT_EQ(q->overall.all.mean_rel, fit->error.mean_rel);
    EXPECT_EQ(q->overall.prtt_1_0.count, samples.size());
    EXPECT_EQ(q->ranges[0].points + q->ranges[1].points, samples.size());
    for (const RangeQuality& r : q->ranges) {
        EXPECT_TRUE(r.misses.empty());
        EXPECT_LE(r.error.prtt_n_d.max_rel, r.error.all.max_rel);
    }
}

TEST(LogGPQuality, AnOutlierIsListedWithItsSizeCurveAndError)
{
    auto samples = generate();
    const auto fit = fit_loggp(samples, n_msgs);
    ASSERT_TRUE(fit);
    samples[6].prtt_1_0 *= 1.5; // 64 B: one burst of noise after the fit
    const auto q = assess_loggp(samples, n_msgs, fit->params);
    ASSERT_TRUE(q);
    EXPECT_FALSE(q->meets_goal);
    const RangeQuality& r = q->ranges[0];
    EXPECT_FALSE(r.meets_goal);
    ASSERT_EQ(r.misses.size(), 1u);
    const QualityMiss& m = r.misses[0];
    EXPECT_EQ(m.index, 6u);
    EXPECT_EQ(m.size, 64);
    EXPECT_EQ(m.curve, PrttCurve::prtt_1_0);
    EXPECT_NEAR(m.rel_error, 0.5 / 1.5, 1e-9);
    EXPECT_EQ(m.reason, MissReason::unexplained);
    EXPECT_EQ(reason_name(m.reason), "unexplained");
    EXPECT_EQ(curve_name(m.curve), "prtt_1_0");
    EXPECT_TRUE(q->ranges[1].meets_goal);
}

TEST(LogGPQuality, AWideMeasuredIntervalIsNamedAsTheReason)
{
    auto samples = generate();
    const auto fit = fit_loggp(samples, n_msgs);
    ASSERT_TRUE(fit);
    samples[6].prtt_1_0 *= 1.5;
    std::vector<double> rel_ci(samples.size(), 0.01);
    rel_ci[6] = 0.4;
    QualityOptions opt;
    opt.rel_ci = rel_ci;
    const auto q = assess_loggp(samples, n_msgs, fit->params, opt);
    ASSERT_TRUE(q);
    const QualityMiss* m = find_miss(q->ranges[0], 6, PrttCurve::prtt_1_0);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->reason, MissReason::noise_too_wide);
}

TEST(LogGPQuality, ASwitchInsideOneRangeIsNamedWithItsSize)
{
    const auto samples = generate();
    LogGPOptions one_range;
    one_range.method = ChangePointMethod::none;
    const auto fit = fit_loggp(samples, n_msgs, one_range);
    ASSERT_TRUE(fit);
    const auto q = assess_loggp(samples, n_msgs, fit->params);
    ASSERT_TRUE(q);
    ASSERT_EQ(q->ranges.size(), 1u);
    EXPECT_FALSE(q->ranges[0].meets_goal);
    ASSERT_FALSE(q->ranges[0].misses.empty());
    bool named = false;
    for (const QualityMiss& m : q->ranges[0].misses)
        if (m.reason == MissReason::switch_inside_range) {
            named = true;
            EXPECT_NEAR(std::log2(m.switch_after_bytes), 13, 1) << "8 KiB";
        }
    EXPECT_TRUE(named);
}

TEST(LogGPQuality, ASendThatCostsMoreWhenSpacedIsNamed)
{
    // tcp with a blocking receiver: a send d apart must wake the receiver
    // (o(s) of eq. (6) = 5 * 1.5 us), back to back it need not (y(s) = g =
    // 3 us): no one o fits PRTT(n,0,s) and PRTT(n,d,s).
    auto samples = generate(0, 0, 4096);
    const auto fit = fit_loggp(samples, n_msgs);
    ASSERT_TRUE(fit);
    const Truth t;
    for (PrttSample& s : samples)
        s.prtt_n_d += (n_msgs - 1) * 4 * t.o;
    const auto q = assess_loggp(samples, n_msgs, fit->params);
    ASSERT_TRUE(q);
    const QualityMiss* m = find_miss(q->ranges[0], 0, PrttCurve::prtt_n_d);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->reason, MissReason::overhead_grows_with_delay);
    EXPECT_EQ(reason_name(m->reason), "overhead_grows_with_delay");
    // The unchanged data of the other tests keep their reasons: o(s) < y(s) there.
    const auto exact = generate(0, 0, 4096);
    for (const PrttSample& s : exact)
        EXPECT_LT((s.prtt_n_d - s.prtt_1_0) / (n_msgs - 1) - s.delay, (s.prtt_n_0 - s.prtt_1_0) / (n_msgs - 1));
}

TEST(LogGPQuality, TooFewPointsIsNamed)
{
    auto samples = generate(0, 0, 8); // 1, 2, 4, 8 B
    LogGPOptions one_range;
    one_range.method = ChangePointMethod::none;
    const auto fit = fit_loggp(samples, n_msgs, one_range);
    ASSERT_TRUE(fit);
    samples[2].prtt_n_0 *= 1.3;
    const auto q = assess_loggp(samples, n_msgs, fit->params);
    ASSERT_TRUE(q);
    const QualityMiss* m = find_miss(q->ranges[0], 2, PrttCurve::prtt_n_0);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->reason, MissReason::too_few_points);
}

TEST(LogGPQuality, TheGoalIsTheCallers)
{
    const auto samples = generate(0.03, 2);
    const auto fit = fit_loggp(samples, n_msgs);
    ASSERT_TRUE(fit);
    QualityOptions strict;
    strict.goal = {0.001, 0.002};
    const auto q = assess_loggp(samples, n_msgs, fit->params, strict);
    ASSERT_TRUE(q);
    EXPECT_FALSE(q->meets_goal);
    for (const RangeQuality& r : q->ranges)
        for (const QualityMiss& m : r.misses)
            EXPECT_GT(m.rel_error, strict.goal.mean_rel);
    QualityOptions loose;
    loose.goal = {0.5, 0.9};
    EXPECT_TRUE(assess_loggp(samples, n_msgs, fit->params, loose)->meets_goal);
}

TEST(LogGPQuality, InvalidInputs)
{
    const auto samples = generate();
    const auto fit = fit_loggp(samples, n_msgs);
    ASSERT_TRUE(fit);
    EXPECT_EQ(assess_loggp(samples, 1, fit->params).status().reason(), ngx::Reason::invalid_input);
    EXPECT_EQ(assess_loggp(samples, n_msgs, LogGPParams{}).status().reason(), ngx::Reason::invalid_input);
    std::vector<double> short_ci(3, 0.01);
    QualityOptions opt;
    opt.rel_ci = short_ci;
    EXPECT_EQ(assess_loggp(samples, n_msgs, fit->params, opt).status().reason(), ngx::Reason::invalid_input);
}
