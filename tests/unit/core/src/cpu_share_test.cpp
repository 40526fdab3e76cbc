// cpu_share.hpp: the verdict on hand-made ranks, and this process's own use
// while it spins and while it sleeps.
#include "cpu_share.hpp"

#include <ngx/reporter.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace ngx {
namespace {

Json rank(int number, const std::string& host, int cpus, double waiting_share)
{
    return {{"rank", number},
            {"host", host},
            {"cpus_online", cpus},
            {"wall_s", 10.0},
            {"cpu_s", 10.0},
            {"cpu_share", 1.0},
            {"waiting_s", 10 * waiting_share},
            {"waiting_share", waiting_share}};
}

TEST(CpuShare, TwoRanksOnTwoCpusThatNeverWaitedKeptUp)
{
    Json verdict = cpu_verdict({rank(0, "a", 2, 0.001), rank(1, "a", 2, 0.004)});
    EXPECT_FALSE(verdict["cpu_bound"].get<bool>());
    EXPECT_TRUE(verdict["reasons"].empty());
    EXPECT_DOUBLE_EQ(verdict["max_waiting_share"].get<double>(), 0.004);
    EXPECT_EQ(cpu_verdict_text(verdict), "");
}

TEST(CpuShare, MoreRanksThanCpusOnAHostIsNamed)
{
    Json ranks = Json::array();
    for (int r = 0; r < 8; ++r)
        ranks.push_back(rank(r, r < 4 ? "a" : "b", r < 4 ? 2 : 8, 0));
    Json verdict = cpu_verdict(ranks);
    ASSERT_TRUE(verdict["cpu_bound"].get<bool>());
    ASSERT_EQ(verdict["reasons"].size(), 1u); // host b has 8 CPUs for its 4 ranks
    EXPECT_EQ(verdict["reasons"][0], "4 ranks share the 2 CPUs of host a");
    EXPECT_NE(cpu_verdict_text(verdict).find("not the network"), std::string::npos);
}

TEST(CpuShare, ARankThatWaitedForACpuIsNamedWithItsShare)
{
    Json verdict = cpu_verdict({rank(0, "a", 2, 0.02), rank(1, "a", 2, 0.37)});
    ASSERT_TRUE(verdict["cpu_bound"].get<bool>());
    ASSERT_EQ(verdict["reasons"].size(), 1u);
    EXPECT_EQ(verdict["reasons"][0], "rank 1 waited for a CPU 37% of the run");
}

TEST(CpuShare, AnUnknownWaitIsNoVerdict)
{
    Json unknown = rank(0, "a", 2, 0);
    unknown["waiting_share"] = nullptr;
    Json verdict = cpu_verdict(Json::array({unknown}));
    EXPECT_FALSE(verdict["cpu_bound"].get<bool>());
    EXPECT_TRUE(verdict["max_waiting_share"].is_null());
    EXPECT_NE(cpu_verdict_line(verdict).find("no run-queue times"), std::string::npos);
}

TEST(CpuShare, TheTableLineWarnsOrSaysTheCpusKeptUp)
{
    EXPECT_EQ(cpu_verdict_line(Json()), "");
    EXPECT_EQ(cpu_verdict_line(cpu_verdict({rank(0, "a", 2, 0.001), rank(1, "a", 2, 0.02)})),
              "# CPUs: 2 ranks on a CPU 100-100% of the run, none waited for one more than 2.0%: the CPUs kept up\n");
    EXPECT_EQ(cpu_verdict_line(cpu_verdict(Json::array({rank(0, "a", 2, 0.5)}))),
              "# warning: the CPUs, not the network, may have set this run's time: rank 0 waited for a CPU 50% of "
              "the run\n");
}

TEST(CpuShare, SpinningUsesTheCpuAndSleepingDoesNot)
{
    CpuUsage start = read_cpu_usage();
    auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
    volatile unsigned long spins = 0;
    while (std::chrono::steady_clock::now() < until)
        spins = spins + 1;
    CpuUsage spun = usage_between(start, read_cpu_usage());
    EXPECT_GE(spun.wall_s, 0.1);
    EXPECT_GT(spun.cpu_s, 0.0); // some CPU time: a bound, not a share (the machine may be busy)
    EXPECT_LE(spun.cpu_s, spun.wall_s * 1.05 + 0.01);

    start = read_cpu_usage();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    CpuUsage slept = usage_between(start, read_cpu_usage());
    EXPECT_GE(slept.wall_s, 0.1);
    EXPECT_LT(slept.cpu_s, slept.wall_s / 2); // asleep, not on a CPU

    Json json = rank_usage_json(3, slept);
    EXPECT_EQ(json["rank"], 3);
    EXPECT_GT(json["cpus_online"].get<int>(), 0);
    EXPECT_FALSE(json["host"].get<std::string>().empty());
}

} // namespace
} // namespace ngx
