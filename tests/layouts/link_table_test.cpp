// --sim-links: the per-pair table of the sim module, read from a file; the
// lines it takes (comments, blank lines) and the ones it refuses, by line.
#include "sim/link_table.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sys/stat.h>

namespace ngx::sim {
namespace {

// Reads `text` as a links file; *why holds the refusal.
bool read_text(const std::string& text, LinkTable* table, std::string* why)
{
    std::string path = ::testing::TempDir() + "ngx_link_table_test.txt";
    {
        std::ofstream out(path);
        out << text;
    }
    bool ok = read_link_table(path, table, why);
    std::remove(path.c_str());
    return ok;
}

TEST(LinkTable, ReadsOrderedPairsInNanoseconds)
{
    LinkTable table;
    std::string why;
    ASSERT_TRUE(read_text("# FROM TO L G\n0 1 5 0.001\n\n1 0 7.5 0.002  # slower back\n", &table, &why)) << why;
    ASSERT_NE(table.find(0, 1), nullptr);
    EXPECT_DOUBLE_EQ(table.find(0, 1)->latency_ns, 5000);
    EXPECT_DOUBLE_EQ(table.find(1, 0)->gap_per_byte_ns, 2);
    EXPECT_EQ(table.find(0, 2), nullptr) << "a pair the file does not name keeps the defaults";
}

TEST(LinkTable, RefusesBadLinesNamingThem)
{
    LinkTable table;
    std::string why;
    EXPECT_FALSE(read_text("0 1 5 0.001\n0 1 6 0.001\n", &table, &why));
    EXPECT_NE(why.find("line 2"), std::string::npos) << why;
    EXPECT_NE(why.find("named twice"), std::string::npos) << why;
    EXPECT_FALSE(read_text("0 1 0.5 0.001\n", &table, &why)) << "L below 1 us";
    EXPECT_NE(why.find("L must be"), std::string::npos) << why;
    EXPECT_FALSE(read_text("2 2 5 0.001\n", &table, &why)) << "a rank to itself";
    EXPECT_FALSE(read_text("0 1 5\n", &table, &why)) << "a missing G";
    EXPECT_FALSE(read_text("0 1 5 0.001 9\n", &table, &why)) << "an extra field";
    EXPECT_FALSE(read_link_table("/nonexistent/links.txt", &table, &why));
    EXPECT_NE(why.find("cannot be read"), std::string::npos) << why;
}

// A FIFO without a writer would block the rank and /dev/zero would fill its
// memory: neither is read, and the refusal comes at once.
TEST(LinkTable, RefusesWhatIsNotARegularFile)
{
    LinkTable table;
    std::string why;
    std::string fifo = ::testing::TempDir() + "ngx_link_table_fifo";
    std::remove(fifo.c_str());
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_FALSE(read_link_table(fifo, &table, &why));
    EXPECT_NE(why.find("not a regular file"), std::string::npos) << why;
    std::remove(fifo.c_str());
    EXPECT_FALSE(read_link_table("/dev/zero", &table, &why));
    EXPECT_NE(why.find("not a regular file"), std::string::npos) << why;
    EXPECT_FALSE(read_link_table("/", &table, &why));
}

} // namespace
} // namespace ngx::sim
