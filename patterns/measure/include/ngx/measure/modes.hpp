// Two clusters in one size's samples (two paths, two placements, a cache
// that either hits or misses): their median is the larger cluster's and
// their mean is neither's, so a bimodal size is reported as such instead
// of being summed into one number.
//
// The split is the one that minimises the summed squared distance to the two
// cluster means (the optimal 1-D two-means split, found exactly over the
// sorted samples with prefix sums). The samples count as bimodal when
//  - the smaller cluster holds at least 10% of them (a rarer cluster is a
//    tail of outliers, which the median already ignores; on shm at 2 KiB
//    5% of the samples at twice the median are such a tail),
//  - the cluster medians lie at least 10% of the lower one apart (closer
//    clusters change no conclusion and include the timer's quantisation), and
//  - that distance is at least 4 times the larger robust spread of the two
//    clusters (1.4826 x MAD): one normal sample split in halves gives about
//    2.2, so a unimodal bulk never passes.
//
//     Modes modes = find_modes(samples);   // any order
//     if (modes.bimodal) note(modes.low_median, modes.high_median, modes.high_share);
#ifndef NGX_MEASURE_MODES_HPP
#define NGX_MEASURE_MODES_HPP

#include <vector>

namespace ngx::patterns {

struct Modes {
    bool bimodal = false;
    double low_median = 0;  // median of the lower cluster
    double high_median = 0; // median of the upper cluster
    double high_share = 0;  // share of the samples in the upper cluster, 0..1
    double separation = 0;  // (high_median - low_median) / larger robust spread
};

// Fewer than 20 samples are never called bimodal (too few to tell).
Modes find_modes(std::vector<double> samples);

} // namespace ngx::patterns

#endif
