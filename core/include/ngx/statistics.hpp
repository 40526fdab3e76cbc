// Summary statistics of one series of samples (one message size).
//
//     Summary s = summarize(samples_us, {99.0, 99.9});
//     s.median; s.percentiles[1].value;   // p99.9
//
// Percentiles interpolate linearly between the two nearest ranks (the
// "type 7" estimator of R and NumPy); the median is the 50th percentile; the
// standard deviation uses n - 1.
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

Summary summarize(std::vector<double> samples, std::span<const double> extra_ranks = {});

} // namespace ngx

#endif
