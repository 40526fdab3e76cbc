// Summary statistics over kept samples (see statistics.hpp).
#include <ngx/statistics.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ngx {

double mean(std::span<const double> values)
{
    if (values.empty())
        return 0.0;
    return std::accumulate(values.begin(), values.end(), 0.0) / double(values.size());
}

double sample_stddev(std::span<const double> values)
{
    if (values.size() < 2)
        return 0.0;
    double average = mean(values);
    double squares = 0.0;
    for (double v : values)
        squares += (v - average) * (v - average);
    return std::sqrt(squares / double(values.size() - 1));
}

double percentile_of_sorted(std::span<const double> sorted, double rank)
{
    if (sorted.empty())
        return 0.0;
    double position = std::clamp(rank, 0.0, 100.0) / 100.0 * double(sorted.size() - 1);
    size_t below = size_t(std::floor(position));
    size_t above = std::min(below + 1, sorted.size() - 1);
    double fraction = position - double(below);
    return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    return percentile_of_sorted(values, 50.0);
}

Summary summarize(std::vector<double> samples, std::span<const double> extra_ranks)
{
    Summary summary;
    summary.count = samples.size();
    if (samples.empty())
        return summary;
    std::sort(samples.begin(), samples.end());
    summary.min = samples.front();
    summary.max = samples.back();
    summary.median = percentile_of_sorted(samples, 50.0);
    summary.mean = mean(samples);
    summary.stddev = sample_stddev(samples);
    summary.p99 = percentile_of_sorted(samples, 99.0);
    for (double rank : extra_ranks)
        summary.percentiles.push_back({rank, percentile_of_sorted(samples, rank)});
    return summary;
}

} // namespace ngx
