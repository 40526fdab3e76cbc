// Hosts of ranks: --host-of lists, host files, and the refusals (fewer
// hosts than ranks, an empty name, an unreadable file).
#include <ngx/rank_hosts.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sys/stat.h>

namespace ngx {
namespace {

TEST(RankHosts, HostOfNamesEachRanksNode)
{
    Result<RankHosts> hosts = parse_host_of("n0, n0,n1,n1", 4);
    ASSERT_TRUE(hosts.has_value()) << hosts.status().message();
    EXPECT_TRUE(hosts->same_node(0, 1));
    EXPECT_FALSE(hosts->same_node(1, 2));
    EXPECT_EQ(hosts->of(1), "n0");
    EXPECT_EQ(hosts->nodes(), (std::vector<std::string>{"n0", "n1"}));
}

TEST(RankHosts, FewerHostsThanRanksIsAUsageErrorWithTheCounts)
{
    Result<RankHosts> hosts = parse_host_of("a,b", 3);
    ASSERT_FALSE(hosts.has_value());
    EXPECT_EQ(hosts.status().kind(), ErrorKind::usage);
    EXPECT_NE(hosts.status().message().find("2 hosts for 3 ranks"), std::string::npos) << hosts.status().message();
    EXPECT_FALSE(parse_host_of("a,,c", 3).has_value()) << "an empty name was accepted";
}

TEST(RankHosts, HostFileSkipsCommentsAndBlankLines)
{
    std::string path = ::testing::TempDir() + "ngx_hosts_test.txt";
    {
        std::ofstream out(path);
        out << "# emulated nodes\nnodeA\n\nnodeB  # second\nnodeC\n";
    }
    Result<RankHosts> hosts = read_host_file(path, 3);
    ASSERT_TRUE(hosts.has_value()) << hosts.status().message();
    EXPECT_EQ(hosts->by_rank(), (std::vector<std::string>{"nodeA", "nodeB", "nodeC"}));
    Result<RankHosts> short_file = read_host_file(path, 4);
    ASSERT_FALSE(short_file.has_value());
    EXPECT_NE(short_file.status().message().find("3 hosts for 4 ranks"), std::string::npos);
    std::remove(path.c_str());
    Result<RankHosts> missing = read_host_file(path, 3);
    ASSERT_FALSE(missing.has_value());
    EXPECT_NE(missing.status().message().find("cannot be read"), std::string::npos);
}

// A FIFO without a writer would block the rank, /dev/zero fill its memory.
TEST(RankHosts, HostFileMustBeARegularFile)
{
    std::string fifo = ::testing::TempDir() + "ngx_hosts_fifo";
    std::remove(fifo.c_str());
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    Result<RankHosts> from_fifo = read_host_file(fifo, 2);
    std::remove(fifo.c_str());
    ASSERT_FALSE(from_fifo.has_value());
    EXPECT_NE(from_fifo.status().message().find("not a regular file"), std::string::npos)
        << from_fifo.status().message();
    Result<RankHosts> from_zero = read_host_file("/dev/zero", 2);
    ASSERT_FALSE(from_zero.has_value());
    EXPECT_NE(from_zero.status().message().find("not a regular file"), std::string::npos);
}

} // namespace
} // namespace ngx
