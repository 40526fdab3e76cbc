// The verdict of an all-pairs map: which nodes and which links are slower
// than the rest, by robust statistics (median and MAD), not a fixed
// threshold. Pure functions over the matrices; no I/O.
//
// A node's score is the median of its cells: those whose sender or receiver
// runs on it and whose other end runs elsewhere (a rank's cells to ranks on
// its own node are another tier). The median keeps a normal node's score
// normal although one of its cells reaches the slow node. A node is an
// outlier when its score is worse than the median of the other nodes' scores
// by more than `spread_factor` times their spread. The spread is the largest
// of: the MAD scaled to a standard deviation (1.4826 MAD: the sigma of a
// normal sample); the scale of the worse side (from the median to the upper
// quartile and to the 90th percentile for latency, the lower ones for
// bandwidth, each scaled to a normal's sigma, the larger: noise on a loaded
// machine only ever makes cells worse, and raises a tenth to a half of them
// while the MAD sees the others); for a node's score, the
// standard error of a median of its cells drawn from the rest's cells; and
// `resolution` of their median (identical scores, as in virtual time, have
// no spread). A link is an outlier when its cell is worse than the median of
// the baseline cells, those between nodes that are not outliers (all cells
// when every node is), by more than the same margin over the baseline: the
// links of a slow node are named even when they are half of all cells
// (P = 4), and a single slow cable between normal nodes too.
//
//     Verdict v = find_outliers(latency, bandwidth, hosts_of_ranks);
//     v.nodes;   // {"node3"}
//     v.links;   // {{"node3", "node0"}, ...}
#ifndef NGX_ALLPAIRS_VERDICT_HPP
#define NGX_ALLPAIRS_VERDICT_HPP

#include <ngx/statistics.hpp>

#include <string>
#include <utility>
#include <vector>

namespace ngx::allpairs {

// Row = sender, column = receiver; NaN marks a cell not measured.
using Matrix = std::vector<std::vector<double>>;

struct NodeSummary {
    std::string host;
    double latency_us = 0;     // median of its cells (NaN: none measured)
    double bandwidth_MBps = 0; // the same for bandwidth
    bool outlier = false;
};

struct Verdict {
    std::vector<NodeSummary> nodes;                         // in the order of their first rank
    std::vector<std::string> outlier_nodes;                 // hosts
    std::vector<std::pair<std::string, std::string>> links; // (sender host, receiver host), no repeats
    double baseline_latency_us = 0;     // median of the cells the links are judged against (NaN: none)
    double baseline_bandwidth_MBps = 0; // the same for bandwidth
};

struct VerdictRule {
    double spread_factor = 3.0; // how many spreads beyond the median
    double resolution = 0.02;   // the least spread, relative to the median
};

// The robust centre and spread the verdict uses (ngx/statistics.hpp).
using ngx::finite_median;
using ngx::scaled_mad;
// The sigma of the worse side: the larger of 1.4826 times the distance from
// the median to the upper quartile and 1 / 1.2816 times the distance to the
// 90th percentile (higher_is_worse), or to the lower ones (NaN when there
// are no values).
double worse_side_scale(const std::vector<double>& values, bool higher_is_worse);

Verdict find_outliers(const Matrix& latency_us, const Matrix& bandwidth_MBps,
                      const std::vector<std::string>& host_of_rank, VerdictRule rule = {});

} // namespace ngx::allpairs

#endif
