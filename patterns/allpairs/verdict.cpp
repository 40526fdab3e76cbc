// Robust outliers of an all-pairs map (see verdict.hpp).
#include "verdict.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ngx::allpairs {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double quartile_to_sigma = 1.4826;   // so is the distance from its median to a quartile
constexpr double decile_to_sigma = 1 / 1.2816; // and this times the distance to its 10th or 90th percentile
constexpr double median_error = 1.2533;        // the standard error of a median of n is this times sigma / sqrt(n)

// Whether `value` is worse than the centre of `others` by more than the rule
// allows; `higher_is_worse` for latency, lower for bandwidth. The spread is
// the larger of the scaled MAD, the scale of the worse side and `floor`.
bool beyond(double value, const std::vector<double>& others, bool higher_is_worse, const VerdictRule& rule,
            double floor = 0)
{
    double centre = finite_median(others);
    if (!std::isfinite(value) || !std::isfinite(centre))
        return false;
    double spread = std::max({scaled_mad(others), worse_side_scale(others, higher_is_worse),
                              rule.resolution * std::fabs(centre), std::isfinite(floor) ? floor : 0.0});
    double excess = higher_is_worse ? value - centre : centre - value;
    return excess > rule.spread_factor * spread;
}

// Linear-interpolated quantile q of the finite values (NaN when none).
double quantile(std::vector<double> values, double q)
{
    values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); }),
                 values.end());
    if (values.empty())
        return nan;
    std::sort(values.begin(), values.end());
    double at = q * double(values.size() - 1);
    size_t below = size_t(at);
    if (below + 1 >= values.size())
        return values.back();
    return values[below] + (at - double(below)) * (values[below + 1] - values[below]);
}

// The cells of `host` with their other end on another host.
std::vector<double> cells_of(const Matrix& m, const std::vector<std::string>& hosts, const std::string& host)
{
    std::vector<double> cells;
    for (size_t i = 0; i < m.size(); ++i)
        for (size_t j = 0; j < m[i].size(); ++j)
            if (i != j && hosts[i] != hosts[j] && (hosts[i] == host || hosts[j] == host) && std::isfinite(m[i][j]))
                cells.push_back(m[i][j]);
    return cells;
}

// The inter-node cells between hosts that are not in `excluded` (the
// outlier nodes): the baseline a link is judged against.
std::vector<double> baseline_cells(const Matrix& m, const std::vector<std::string>& hosts,
                                   const std::vector<std::string>& excluded)
{
    auto normal = [&](const std::string& host) {
        return std::find(excluded.begin(), excluded.end(), host) == excluded.end();
    };
    std::vector<double> cells;
    for (size_t i = 0; i < m.size(); ++i)
        for (size_t j = 0; j < m[i].size(); ++j)
            if (i != j && hosts[i] != hosts[j] && normal(hosts[i]) && normal(hosts[j]) && std::isfinite(m[i][j]))
                cells.push_back(m[i][j]);
    return cells;
}

// How far the median of `host`'s cells may stray by chance: the standard
// error of a median of that many cells drawn from the rest's cells (those
// between other hosts), with the scale of their worse side. Cells raised
// at random (a loaded machine's latency) move a node's score by this much;
// a slow node moves all of its cells.
double score_noise(const Matrix& m, const std::vector<std::string>& hosts, const std::string& host,
                   bool higher_is_worse)
{
    std::vector<double> rest = baseline_cells(m, hosts, {host});
    size_t n = cells_of(m, hosts, host).size();
    if (rest.empty() || n == 0)
        return 0;
    return median_error * worse_side_scale(rest, higher_is_worse) / std::sqrt(double(n));
}

std::vector<double> without(const std::vector<double>& values, size_t skip)
{
    std::vector<double> rest;
    for (size_t k = 0; k < values.size(); ++k)
        if (k != skip)
            rest.push_back(values[k]);
    return rest;
}

} // namespace

double worse_side_scale(const std::vector<double>& values, bool higher_is_worse)
{
    double centre = finite_median(values);
    double quartile = quantile(values, higher_is_worse ? 0.75 : 0.25);
    double decile = quantile(values, higher_is_worse ? 0.9 : 0.1);
    return std::max(quartile_to_sigma * std::fabs(quartile - centre), decile_to_sigma * std::fabs(decile - centre));
}

Verdict find_outliers(const Matrix& latency_us, const Matrix& bandwidth_MBps,
                      const std::vector<std::string>& host_of_rank, VerdictRule rule)
{
    Verdict verdict;
    for (const std::string& host : host_of_rank)
        if (std::none_of(verdict.nodes.begin(), verdict.nodes.end(),
                         [&](const NodeSummary& n) { return n.host == host; }))
            verdict.nodes.push_back({host, finite_median(cells_of(latency_us, host_of_rank, host)),
                                     finite_median(cells_of(bandwidth_MBps, host_of_rank, host)), false});
    std::vector<double> latency_scores, bandwidth_scores;
    for (const NodeSummary& node : verdict.nodes) {
        latency_scores.push_back(node.latency_us);
        bandwidth_scores.push_back(node.bandwidth_MBps);
    }
    for (size_t k = 0; k < verdict.nodes.size() && verdict.nodes.size() >= 3; ++k) {
        NodeSummary& node = verdict.nodes[k];
        node.outlier = beyond(node.latency_us, without(latency_scores, k), true, rule,
                              score_noise(latency_us, host_of_rank, node.host, true)) ||
                       beyond(node.bandwidth_MBps, without(bandwidth_scores, k), false, rule,
                              score_noise(bandwidth_MBps, host_of_rank, node.host, false));
        if (node.outlier)
            verdict.outlier_nodes.push_back(node.host);
    }
    // Links against the cells between normal nodes (all cells when every node is normal, or none would be left).
    std::vector<double> all_latency = baseline_cells(latency_us, host_of_rank, verdict.outlier_nodes);
    std::vector<double> all_bandwidth = baseline_cells(bandwidth_MBps, host_of_rank, verdict.outlier_nodes);
    if (all_latency.empty() && all_bandwidth.empty()) {
        all_latency = baseline_cells(latency_us, host_of_rank, {});
        all_bandwidth = baseline_cells(bandwidth_MBps, host_of_rank, {});
    }
    verdict.baseline_latency_us = finite_median(all_latency);
    verdict.baseline_bandwidth_MBps = finite_median(all_bandwidth);
    for (size_t i = 0; i < latency_us.size(); ++i)
        for (size_t j = 0; j < latency_us[i].size(); ++j) {
            if (i == j || host_of_rank[i] == host_of_rank[j])
                continue;
            bool slow = beyond(latency_us[i][j], all_latency, true, rule) ||
                        beyond(bandwidth_MBps[i][j], all_bandwidth, false, rule);
            std::pair<std::string, std::string> link{host_of_rank[i], host_of_rank[j]};
            if (slow && std::find(verdict.links.begin(), verdict.links.end(), link) == verdict.links.end())
                verdict.links.push_back(link);
        }
    return verdict;
}

} // namespace ngx::allpairs
