// Did two series of measurements change? Two-sample tests, pure functions.
//
// rank_sum_test: the Mann-Whitney U (Wilcoxon rank-sum) test on raw
// samples, two-sided; exact for small samples without ties, otherwise the
// normal approximation with the tie correction and a continuity correction
// (the conventions of scipy.stats.mannwhitneyu, method "auto").
//
//     RankSum r = rank_sum_test(before_us, after_us);
//     r.p;                                   // two-sided p-value
//
// interval_test: when only the medians and their 95% intervals were kept,
// a z test on the difference, each standard error taken from the interval's
// width (high - low = 2 * 1.96 * se). The same serves fitted parameters
// with a 95% interval.
//
//     double p = interval_test({5.0, 4.9, 5.1}, {5.5, 5.4, 5.6});
//
// holm_adjust: Holm's step-down correction of p-values tested together, so
// that checking many sizes at once keeps the chance of any false alarm at
// alpha (adjusted[i] < alpha <=> hypothesis i rejected).
#ifndef NGX_TWO_SAMPLE_HPP
#define NGX_TWO_SAMPLE_HPP

#include <span>
#include <vector>

namespace ngx {

struct RankSum {
    double u = 0;       // U of the first sample: pairs (a, b) with a > b, ties counting 1/2
    double p = 1;       // two-sided p-value
    bool exact = false; // p from the exact distribution of U
};

enum class RankSumMethod {
    automatic, // exact below 9 samples in either series when there are no ties, else normal
    exact,     // the exact distribution of U (ties: falls back to normal)
    normal,    // the normal approximation
};

// NaN p when either sample is empty.
RankSum rank_sum_test(std::span<const double> first, std::span<const double> second,
                      RankSumMethod method = RankSumMethod::automatic);

// A value with its 95% interval.
struct Estimate {
    double value, low, high;
};

// Two-sided p-value of first.value == second.value; NaN when a bound is not finite.
double interval_test(const Estimate& first, const Estimate& second);

// Holm-adjusted p-values, in the order given (NaN stays NaN and is not counted).
std::vector<double> holm_adjust(std::span<const double> p_values);

// P(Z > z) for a standard normal Z.
double normal_upper_tail(double z);

} // namespace ngx

#endif
