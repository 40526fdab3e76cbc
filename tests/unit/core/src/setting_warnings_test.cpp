// Each rule of setting_warnings.hpp alone, on hand-made contexts.
#include "setting_warnings.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace ngx {
namespace {

// A context that deserves no warning: performance governor, idle, pinned, fast timer.
Json quiet_context()
{
    return {{"frequency_governors", {"performance"}},
            {"load_average_1min", 0.2},
            {"placement", {{{"rank", 0}, {"affinity", "0"}}, {{"rank", 1}, {"affinity", "1"}}}},
            {"timer", {{"overhead_ns", 20.0}}}};
}

bool mentions(const Json& warnings, const std::string& text)
{
    for (const Json& w : warnings)
        if (w.get<std::string>().find(text) != std::string::npos)
            return true;
    return false;
}

TEST(SettingWarnings, QuietSettingHasNone)
{
    EXPECT_TRUE(setting_warnings(quiet_context(), 5.0).empty());
}

TEST(SettingWarnings, GovernorOtherThanPerformance)
{
    Json context = quiet_context();
    context["frequency_governors"] = {"performance", "powersave"};
    Json warnings = setting_warnings(context, 5.0);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_TRUE(mentions(warnings, "governor powersave, not performance"));
    context["frequency_governors"] = nullptr; // no cpufreq: nothing known, nothing said
    EXPECT_TRUE(setting_warnings(context, 5.0).empty());
}

TEST(SettingWarnings, LoadBeforeTheRun)
{
    Json context = quiet_context();
    context["load_average_1min"] = 1.5;
    Json warnings = setting_warnings(context, 5.0);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_TRUE(mentions(warnings, "load average 1.5 before the run"));
}

TEST(SettingWarnings, UnpinnedRank)
{
    Json context = quiet_context();
    context["placement"][1]["affinity"] = "0-1";
    Json warnings = setting_warnings(context, 5.0);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_TRUE(mentions(warnings, "rank 1 is not pinned (may run on CPUs 0-1)"));
}

TEST(SettingWarnings, TimerOverheadOverFivePercentOfTheSmallestMedian)
{
    Json context = quiet_context();
    context["timer"]["overhead_ns"] = 30.0;
    EXPECT_TRUE(setting_warnings(context, 0.6).empty()); // 30 ns = 5% of 0.6 us: not over
    Json warnings = setting_warnings(context, 0.5);      // 6%
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_TRUE(mentions(warnings, "timer overhead 30 ns is over 5% of the smallest median measured (0.5 us)"));
    EXPECT_TRUE(setting_warnings(context, NAN).empty()); // nothing measured
}

TEST(SettingWarnings, SmallestMedianOverRunsAndSizes)
{
    Document document;
    document.runs.resize(2);
    SizeRecord a, b, empty;
    a.summary.count = b.summary.count = 10;
    a.summary.median = 3.0;
    b.summary.median = 1.5;
    document.runs[0].sizes = {a, empty};
    document.runs[1].sizes = {b};
    EXPECT_DOUBLE_EQ(smallest_median_us(document), 1.5);
    EXPECT_TRUE(std::isnan(smallest_median_us(Document{})));
}

} // namespace
} // namespace ngx
