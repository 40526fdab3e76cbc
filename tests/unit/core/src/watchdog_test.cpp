// The watchdog (core/src/watchdog.hpp): it fires when the progress marks stay
// unchanged past the deadline, but not during local work (mark_local_work: a
// pattern's fit after the ranks met, which waits for no peer), until the
// next step ends it.
#include "watchdog.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace ngx {
namespace {

using namespace std::chrono_literals;

// 50 ms: the watchdog fires after it and its grace of 250 ms; the waits
// below give it more than three times that.
constexpr uint64_t deadline_ns = 50'000'000;
constexpr auto wait = 1000ms;

bool fires(Progress& progress)
{
    std::atomic<bool> fired{false};
    {
        Watchdog dog(progress, deadline_ns, nullptr, "rank 0 (driver)",
                     [&](const std::string&, bool) { fired = true; });
        std::this_thread::sleep_for(wait);
    }
    return fired;
}

TEST(Watchdog, FiresWhenNothingMovesPastTheDeadline)
{
    Progress progress;
    mark_step(&progress, "waiting for the peer after the run");
    EXPECT_TRUE(fires(progress));
}

TEST(Watchdog, LetsLocalWorkTakeItsTime)
{
    Progress progress;
    mark_local_work(&progress, "fitting the LogGP model");
    EXPECT_FALSE(fires(progress));
}

TEST(Watchdog, TheNextStepEndsLocalWork)
{
    Progress progress;
    mark_local_work(&progress, "fitting the LogGP model");
    mark_step(&progress, "waiting for the peer");
    EXPECT_TRUE(fires(progress));
}

} // namespace
} // namespace ngx
