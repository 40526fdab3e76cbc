// The pass plan of the interleaved sweep (patterns/common/passes.hpp) by hand.
#include "common/passes.hpp"

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

} // namespace
} // namespace ngx::patterns
