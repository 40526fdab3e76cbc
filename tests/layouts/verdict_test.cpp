// The allpairs verdict: robust scores name the slow node and its links, a
// single slow cable between normal nodes, nothing in a uniform map, and
// unmeasured cells (NaN) do not count.
#include "allpairs/verdict.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace ngx::allpairs {
namespace {

Matrix uniform(size_t n, double value)
{
    Matrix m(n, std::vector<double>(n, value));
    for (size_t i = 0; i < n; ++i)
        m[i][i] = std::numeric_limits<double>::quiet_NaN();
    return m;
}

std::vector<std::string> names(size_t n)
{
    std::vector<std::string> hosts;
    for (size_t i = 0; i < n; ++i) {
        std::string host = std::to_string(i);
        host.insert(host.begin(), 'n');
        hosts.push_back(host);
    }
    return hosts;
}

TEST(Verdict, NamesTheSlowNodeAndItsLinksFromFourNodesOn)
{
    for (size_t n : {4u, 5u, 8u}) {
        Matrix lat = uniform(n, 5.0), bw = uniform(n, 1000.0);
        for (size_t i = 0; i < n; ++i)
            for (size_t j = 0; j < n; ++j)
                if (i != j && (i == 1 || j == 1))
                    bw[i][j] = 330.0;
        Verdict v = find_outliers(lat, bw, names(n));
        EXPECT_EQ(v.outlier_nodes, std::vector<std::string>{"n1"}) << n << " nodes";
        EXPECT_EQ(v.links.size(), 2 * (n - 1)) << n << " nodes";
    }
}

TEST(Verdict, NamesOneSlowCableButNoNode)
{
    Matrix lat = uniform(6, 5.0), bw = uniform(6, 1000.0);
    lat[2][4] = 9.0;
    Verdict v = find_outliers(lat, bw, names(6));
    EXPECT_TRUE(v.outlier_nodes.empty());
    ASSERT_EQ(v.links.size(), 1u);
    EXPECT_EQ(v.links[0], (std::pair<std::string, std::string>{"n2", "n4"}));
}

TEST(Verdict, NoiseWithinTheSpreadIsNoOutlier)
{
    Matrix lat = uniform(6, 5.0), bw = uniform(6, 1000.0);
    double wobble[] = {0.97, 1.02, 0.99, 1.03, 1.0, 0.98};
    for (size_t i = 0; i < 6; ++i)
        for (size_t j = 0; j < 6; ++j)
            if (i != j) {
                lat[i][j] *= wobble[(i + j) % 6];
                bw[i][j] *= wobble[(i * 5 + j) % 6];
            }
    Verdict v = find_outliers(lat, bw, names(6));
    EXPECT_TRUE(v.outlier_nodes.empty());
    EXPECT_TRUE(v.links.empty());
}

TEST(Verdict, RanksOfOneHostFormOneNodeAndMissingCellsAreSkipped)
{
    Matrix lat = uniform(6, 5.0), bw = uniform(6, 1000.0);
    lat[0][1] = lat[1][0] = 0.5; // intra-node pair: another tier, not judged
    lat[4][5] = std::numeric_limits<double>::quiet_NaN();
    Verdict v = find_outliers(lat, bw, {"a", "a", "b", "b", "c", "c"});
    ASSERT_EQ(v.nodes.size(), 3u);
    EXPECT_EQ(v.nodes[0].host, "a");
    EXPECT_DOUBLE_EQ(v.nodes[0].latency_us, 5.0);
    EXPECT_TRUE(v.outlier_nodes.empty());
    EXPECT_TRUE(v.links.empty());
    EXPECT_TRUE(std::isnan(finite_median({std::numeric_limits<double>::quiet_NaN()})));
}

} // namespace
} // namespace ngx::allpairs
