// The pass plan of the interleaved sweep (ngx/measure/passes.hpp) by hand.
#include <ngx/measure/modes.hpp>
#include <ngx/measure/passes.hpp>

#include <gtest/gtest.h>

#include <cmath>

namespace ngx::patterns {
namespace {

RunSettings settings_with(uint64_t count, uint64_t warmup, uint64_t passes)
{
    RunSettings settings;
    settings.count = count;
    settings.warmup = warmup;
    settings.passes = passes;
    return settings;
}

TEST(Passes, AutomaticPlanKeepsAtLeast25RepetitionsPerPass)
{
    EXPECT_EQ(plan_passes(settings_with(100, 10, 0)).passes, 4u); // the main job's loggp: 4 x 25
    EXPECT_EQ(plan_passes(settings_with(1000, 100, 0)).passes, 4u);
    EXPECT_EQ(plan_passes(settings_with(60, 10, 0)).passes, 2u);
    EXPECT_EQ(plan_passes(settings_with(10, 2, 0)).passes, 1u);
}

TEST(Passes, PlanHonoursTheOptionAndBoundsTheExtraPasses)
{
    PassPlan plan = plan_passes(settings_with(100, 10, 7));
    EXPECT_EQ(plan.passes, 7u);
    EXPECT_EQ(plan.extra, 3u);        // passes / 2
    EXPECT_EQ(plan.rewarm, 1u);       // ceil(10 / 28)
    EXPECT_EQ(plan.extra_slices, 1u); // no sizes: still one
    RunSettings main_job = settings_with(100, 10, 0);
    main_job.sizes.assign(18, 1); // 1 B .. 128 KiB
    plan = plan_passes(main_job);
    EXPECT_EQ(plan.rewarm, 1u);       // ceil(10 / 16)
    EXPECT_EQ(plan.extra_slices, 3u); // 18 x 4 / 20
    plan = plan_passes(settings_with(100, 0, 1));
    EXPECT_EQ(plan.extra, 1u); // one pass still gets one extra
    EXPECT_EQ(plan.rewarm, 0u);
}

TEST(Passes, RegularPassesKeepExactlyTheCount)
{
    for (uint64_t count : {1u, 7u, 100u, 101u, 1003u})
        for (uint64_t passes = 1; passes <= std::min<uint64_t>(count, 9); ++passes) {
            uint64_t total = 0;
            for (uint64_t pass = 0; pass < passes; ++pass)
                total += samples_in_pass(count, passes, pass);
            EXPECT_EQ(total, count) << count << " in " << passes;
        }
    EXPECT_EQ(samples_in_pass(10, 4, 0), 3u); // 3 3 2 2
    EXPECT_EQ(samples_in_pass(10, 4, 1), 3u);
    EXPECT_EQ(samples_in_pass(10, 4, 2), 2u);
    EXPECT_EQ(samples_in_pass(10, 4, 4), 2u); // an extra pass: count / passes
    EXPECT_EQ(samples_in_pass(3, 4, 5), 1u);
}

TEST(Passes, WidestIntervalOverTheSeries)
{
    std::vector<double> narrow(100), wide(100);
    for (size_t i = 0; i < 100; ++i) {
        narrow[i] = 10.0 + double(i) / 100; // x_(40) 10.39, x_(61) 10.60, median 10.495
        wide[i] = 10.0 + double(i);         // x_(40) 49, x_(61) 70, median 59.5
    }
    EXPECT_NEAR(widest_rel_ci95({narrow}), 0.21 / 10.495, 1e-12);
    EXPECT_NEAR(widest_rel_ci95({narrow, wide}), 21.0 / 59.5, 1e-12);
    EXPECT_TRUE(std::isnan(widest_rel_ci95({narrow, {1.0, 2.0}}))); // too short to judge: not narrow
}

TEST(Passes, AdaptivePlanStepsByAnEighthOfTheCapAtLeast30)
{
    RunSettings settings = settings_with(1000, 100, 0);
    settings.adaptive = true;
    settings.sizes.assign(10, 1);
    PassPlan plan = plan_passes(settings);
    EXPECT_TRUE(plan.adaptive);
    EXPECT_EQ(plan.step, 125u); // 1000 / 8
    EXPECT_EQ(plan.passes, 1u); // the first pass over all sizes
    EXPECT_EQ(plan.extra, 7u);  // then at most 7 more: 8 x 125 = -c
    EXPECT_EQ(plan.rewarm, 4u); // ceil(100 / 32)
    settings.count = 100;       // loggp's default: steps of ceil(100 / 8) = 13 (7 x 13, then 9)
    plan = plan_passes(settings);
    EXPECT_EQ(plan.step, 13u);
    EXPECT_EQ(plan.extra, 7u);
    settings.count = 40; // -c / 8 below the floor of 10: steps of 10
    plan = plan_passes(settings);
    EXPECT_EQ(plan.step, 10u);
    EXPECT_EQ(plan.extra, 3u);
    settings.count = 8; // fewer than a step: one pass keeps them all
    plan = plan_passes(settings);
    EXPECT_EQ(plan.step, 8u);
    EXPECT_EQ(plan.extra, 0u);
}

std::vector<double> repeated(std::vector<std::pair<double, size_t>> values)
{
    std::vector<double> samples;
    for (auto [value, times] : values)
        samples.insert(samples.end(), times, value);
    return samples;
}

TEST(Modes, TwoSeparatedClustersAreBimodal)
{
    std::vector<double> samples = repeated({{10.0, 60}, {10.2, 10}, {15.0, 30}, {15.3, 5}});
    Modes modes = find_modes(samples);
    EXPECT_TRUE(modes.bimodal);
    EXPECT_DOUBLE_EQ(modes.low_median, 10.0);
    EXPECT_DOUBLE_EQ(modes.high_median, 15.0);
    EXPECT_NEAR(modes.high_share, 35.0 / 105.0, 1e-12);
}

TEST(Modes, OneBulkOrARareTailOrCloseClustersAreNot)
{
    // A triangular bulk over 5..15 (1, 2, ..., 11, ..., 1 samples): its halves' medians are 3.5 apart, more
    // than 10% of the lower, but only 2.4 robust spreads: one mode.
    std::vector<double> normalish;
    for (int k = -10; k <= 10; ++k)
        normalish.insert(normalish.end(), size_t(11 - std::abs(k)), 10.0 + 0.5 * k);
    EXPECT_FALSE(find_modes(normalish).bimodal);
    EXPECT_FALSE(find_modes(repeated({{10.0, 95}, {30.0, 5}})).bimodal);  // 5%: a tail of outliers
    EXPECT_FALSE(find_modes(repeated({{10.0, 50}, {10.5, 50}})).bimodal); // 5% apart: below the 10% floor
    EXPECT_FALSE(find_modes(repeated({{10.0, 10}, {20.0, 9}})).bimodal);  // 19 samples: too few to tell
    EXPECT_FALSE(find_modes(repeated({{7.0, 100}})).bimodal);             // all equal
}

} // namespace
} // namespace ngx::patterns
