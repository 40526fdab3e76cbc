// Timer calibration sanity: the calibrated timer agrees with CLOCK_MONOTONIC
// and reports its own resolution and overhead.
#include <ngx/timer.hpp>

#include <gtest/gtest.h>

#include <ctime>

namespace ngx {
namespace {

double monotonic_us()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return double(ts.tv_sec) * 1e6 + double(ts.tv_nsec) / 1e3;
}

void expect_agrees_with_monotonic(const Timer& timer)
{
    // A 20 ms busy interval measured by both clocks; preemption can stretch
    // both, never one alone, so they must agree closely.
    double wall0 = monotonic_us();
    uint64_t t0 = timer.now();
    while (monotonic_us() - wall0 < 20000) {
    }
    uint64_t t1 = timer.now();
    double wall = monotonic_us() - wall0;
    EXPECT_NEAR(timer.to_us(t1 - t0), wall, wall * 0.01);
}

TEST(Timer, AutomaticChoiceIsCalibrated)
{
    Result<Timer> timer = Timer::calibrate(TimerChoice::automatic);
    ASSERT_TRUE(timer.has_value());
    const TimerInfo& info = timer->info();
    if (info.invariant_tsc)
        EXPECT_EQ(info.source, "tsc");
    else // the TSC without its flag only where clock_gettime is a slow system call
        EXPECT_TRUE(info.source == "clock_gettime" || info.reason.find("no invariant TSC flag") == 0) << info.reason;
    EXPECT_FALSE(info.reason.empty());
    EXPECT_GT(info.ticks_per_us, 0.0);
    EXPECT_GT(info.overhead_ns, 0.0);
    EXPECT_LT(info.overhead_ns, 10000.0);
    EXPECT_GE(info.resolution_ns, 0.0);
    EXPECT_LT(info.resolution_ns, 10000.0);
    expect_agrees_with_monotonic(*timer);
}

TEST(Timer, ClockFallbackCountsNanoseconds)
{
    Result<Timer> timer = Timer::calibrate(TimerChoice::clock);
    ASSERT_TRUE(timer.has_value());
    EXPECT_EQ(timer->info().source, "clock_gettime");
    EXPECT_DOUBLE_EQ(timer->info().ticks_per_us, 1000.0);
    expect_agrees_with_monotonic(*timer);
}

TEST(Timer, TscWhereInvariantOrSteady)
{
    Result<Timer> timer = Timer::calibrate(TimerChoice::tsc);
    if (cpu_has_invariant_tsc()) {
        ASSERT_TRUE(timer.has_value());
        EXPECT_EQ(timer->info().source, "tsc");
        EXPECT_NE(timer->info().reason.find("invariant TSC"), std::string::npos);
    } else if (timer.has_value()) { // its rate held over the calibration windows
        EXPECT_EQ(timer->info().source, "tsc");
        EXPECT_NE(timer->info().reason.find("no invariant TSC flag"), std::string::npos);
        expect_agrees_with_monotonic(*timer);
    } else {
        EXPECT_EQ(timer.status().kind(), ErrorKind::usage);
    }
}

TEST(Timer, BusyWaitLastsAtLeastItsDelay)
{
    Result<Timer> timer = Timer::calibrate(TimerChoice::automatic);
    ASSERT_TRUE(timer.has_value());
    double start = monotonic_us();
    timer->busy_wait_us(500);
    EXPECT_GE(monotonic_us() - start, 495.0);
}

} // namespace
} // namespace ngx
