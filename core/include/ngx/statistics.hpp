// Summary statistics of one series of samples (one message size).
//
//     Summary s = summarize(samples_us, {99.0, 99.9});
//     s.median; s.percentiles[1].value;   // p99.9
//
// Percentiles interpolate linearly between the two nearest ranks (the
// "type 7" estimator of R and NumPy); the median is the 50th percentile; the
// standard deviation uses n - 1.
//
// The 95% interval of the median is distribution-free, from order
// statistics: for n samples, x_(k) <= median <= x_(n+1-k) (1-based ranks)
// holds with probability 1 - 2 P(B <= k-1), B ~ binomial(n, 1/2), whatever
// the samples' distribution; k is the largest rank that keeps this >= 95%.
//
//     MedianInterval ci = median_ci95(sorted);   // n = 100: x_(40), x_(61)
//     relative_width(ci, s.median);              // (high - low) / median
#ifndef NGX_STATISTICS_HPP
#define NGX_STATISTICS_HPP

#include <cstddef>
#include <span>
#include <vector>

namespace ngx {

struct Percentile {
    double rank; // 0..100
    double value;
};

struct Summary {
    size_t count = 0;
    double min = 0, max = 0, median = 0, mean = 0, stddev = 0, p99 = 0;
    std::vector<Percentile> percentiles; // the extra ones asked for
};

double mean(std::span<const double> values);
double sample_stddev(std::span<const double> values);
// Percentile of already sorted values; rank in [0, 100].
double percentile_of_sorted(std::span<const double> sorted, double rank);
double median(std::vector<double> values);
// Robust centre and spread of the finite values (NaN, inf: not measured):
// their median, and 1.4826 times their median absolute deviation (the sigma
// of a normal sample). NaN when no value is finite.
double finite_median(std::vector<double> values);
double scaled_mad(const std::vector<double>& values);

Summary summarize(std::vector<double> samples, std::span<const double> extra_ranks = {});

struct MedianInterval {
    double low, high; // NaN when there are fewer than 6 samples (no rank pair reaches 95%)
};

// The rank k (1-based) of the interval's low end for n samples: the largest
// k with 2 P(B <= k-1) <= 0.05, B ~ binomial(n, 1/2); 0 when none (n < 6).
size_t median_ci95_rank(size_t n);
MedianInterval median_ci95(std::span<const double> sorted);
// (high - low) / median; NaN when the interval is unknown or the median is not positive.
double relative_width(const MedianInterval& interval, double median);

} // namespace ngx

#endif
