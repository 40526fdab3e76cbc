// Summary statistics over kept samples (see statistics.hpp).
#include <ngx/statistics.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
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

double finite_median(std::vector<double> values)
{
    std::erase_if(values, [](double v) { return !std::isfinite(v); });
    if (values.empty())
        return std::numeric_limits<double>::quiet_NaN();
    return median(std::move(values));
}

double scaled_mad(const std::vector<double>& values)
{
    constexpr double mad_to_sigma = 1.4826; // the MAD of a normal distribution times this is its sigma
    const double centre = finite_median(values);
    if (!std::isfinite(centre))
        return centre;
    std::vector<double> deviations;
    for (double v : values)
        if (std::isfinite(v))
            deviations.push_back(std::fabs(v - centre));
    return mad_to_sigma * finite_median(std::move(deviations));
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

namespace {

// The lower tail of binomial(n, 1/2) below this many standard deviations
// (sqrt(n)/2) holds less than 1e-40: the sum may start there.
constexpr double negligible_tail_sigmas = 14.0;
constexpr double ci_tail = 0.025; // each side of a 95% interval

} // namespace

size_t median_ci95_rank(size_t n)
{
    const double count = double(n);
    const double start_at = std::floor(count / 2 - negligible_tail_sigmas * std::sqrt(count) / 2);
    size_t j = start_at > 0 ? size_t(start_at) : 0;
    // P(B = j) = C(n, j) / 2^n, in logarithms (2^n underflows beyond n = 1074).
    double log_choose = std::lgamma(count + 1) - std::lgamma(double(j) + 1) - std::lgamma(count - double(j) + 1);
    double cdf = 0; // P(B <= j - 1)
    for (;; ++j) {
        double p = std::exp(log_choose - count * std::log(2.0));
        if (cdf + p > ci_tail) // P(B <= j) too large: k - 1 = j - 1 was the last to fit
            return j;          // k = j: 0 when even P(B = 0) exceeds the tail
        cdf += p;
        log_choose += std::log((count - double(j)) / (double(j) + 1)); // C(n, j+1) from C(n, j)
    }
}

MedianInterval median_ci95(std::span<const double> sorted)
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    size_t k = median_ci95_rank(sorted.size());
    if (k == 0)
        return {nan, nan};
    return {sorted[k - 1], sorted[sorted.size() - k]};
}

double relative_width(const MedianInterval& interval, double median)
{
    if (!(median > 0))
        return std::numeric_limits<double>::quiet_NaN();
    return (interval.high - interval.low) / median;
}

} // namespace ngx
