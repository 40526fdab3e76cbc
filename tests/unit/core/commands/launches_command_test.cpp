// The between-launch statistics of `ngx launches` (core/commands/launches_command.hpp) by hand.
#include "launches_command.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace ngx {
namespace {

TEST(LaunchSpread, StudentIntervalsOfTheMeanAndOfTheNextLaunch)
{
    // mean 10, sd 1 (n - 1), t(0.975, 3) = 3.182446
    LaunchSpread s =
        launch_spread({10 - std::sqrt(1.5), 10 - std::sqrt(0.0), 10 + std::sqrt(0.0), 10 + std::sqrt(1.5)});
    EXPECT_NEAR(s.mean, 10, 1e-12);
    EXPECT_NEAR(s.sd, 1, 1e-12);
    EXPECT_NEAR(s.ci_high - s.mean, 3.182446 / 2, 1e-5);                 // t sd / sqrt(4)
    EXPECT_NEAR(s.next_high - s.mean, 3.182446 * std::sqrt(1.25), 1e-5); // t sd sqrt(1 + 1/4)
    EXPECT_NEAR(s.mean - s.ci_low, s.ci_high - s.mean, 1e-12);
    EXPECT_NEAR(s.spread, 2 * std::sqrt(1.5) / 10, 1e-12);
}

TEST(LaunchSpread, OneLaunchHasNoInterval)
{
    LaunchSpread s = launch_spread({5});
    EXPECT_EQ(s.mean, 5);
    EXPECT_TRUE(std::isnan(s.ci_low) && std::isnan(s.next_high));
}

TEST(LaunchSummary, FewerThanTwoFilesIsAUsageError)
{
    Result<Json> summary = summarize_launches({"only-one.json"});
    ASSERT_FALSE(summary);
    EXPECT_EQ(summary.status().kind(), ErrorKind::usage);
}

} // namespace
} // namespace ngx
