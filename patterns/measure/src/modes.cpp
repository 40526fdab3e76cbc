// Two-cluster detection (see modes.hpp).
#include <ngx/measure/modes.hpp>

#include <ngx/statistics.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

namespace ngx::patterns {
namespace {

constexpr size_t min_samples = 20;
constexpr double min_share = 0.10;
constexpr double min_relative_gap = 0.10;
constexpr double min_separation = 4.0;

// 1.4826 x the median absolute deviation of sorted samples: the standard
// deviation of a normal sample, robust to the other cluster's stragglers.
double robust_spread(std::span<const double> sorted)
{
    double median = percentile_of_sorted(sorted, 50.0);
    std::vector<double> deviations;
    deviations.reserve(sorted.size());
    for (double x : sorted)
        deviations.push_back(std::fabs(x - median));
    std::sort(deviations.begin(), deviations.end());
    return 1.4826 * percentile_of_sorted(deviations, 50.0);
}

// The first index of the upper cluster of the best two-means split, each
// cluster at least `least` samples.
size_t best_split(const std::vector<double>& sorted, size_t least)
{
    size_t n = sorted.size();
    std::vector<double> sum(n + 1, 0), squares(n + 1, 0);
    for (size_t i = 0; i < n; ++i) {
        sum[i + 1] = sum[i] + sorted[i];
        squares[i + 1] = squares[i] + sorted[i] * sorted[i];
    }
    auto sse = [&](size_t from, size_t to) {
        double s = sum[to] - sum[from];
        return squares[to] - squares[from] - s * s / double(to - from);
    };
    size_t best = least;
    double best_cost = std::numeric_limits<double>::infinity();
    for (size_t k = least; k + least <= n; ++k) {
        double cost = sse(0, k) + sse(k, n);
        if (cost < best_cost) {
            best_cost = cost;
            best = k;
        }
    }
    return best;
}

} // namespace

Modes find_modes(std::vector<double> samples)
{
    Modes modes;
    size_t n = samples.size();
    if (n < min_samples)
        return modes;
    std::sort(samples.begin(), samples.end());
    size_t least = std::max<size_t>(2, size_t(std::ceil(min_share * double(n))));
    size_t split = best_split(samples, least);
    std::span<const double> low(samples.data(), split), high(samples.data() + split, n - split);
    modes.low_median = percentile_of_sorted(low, 50.0);
    modes.high_median = percentile_of_sorted(high, 50.0);
    modes.high_share = double(high.size()) / double(n);
    double gap = modes.high_median - modes.low_median;
    double spread = std::max(robust_spread(low), robust_spread(high));
    modes.separation = spread > 0 ? gap / spread : (gap > 0 ? std::numeric_limits<double>::infinity() : 0);
    modes.bimodal =
        gap >= min_relative_gap * std::fabs(modes.low_median) && gap > 0 && modes.separation >= min_separation;
    return modes;
}

} // namespace ngx::patterns
