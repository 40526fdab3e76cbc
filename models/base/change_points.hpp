// Protocol-change detection on a curve val(size): Hoefler et al. 2007, section 3.5.
// A message-size-dependent protocol switch (eager -> rendezvous, ...) shows
// up as a break in the otherwise straight line f(s) = G s + g of eq. (7);
// the detector cuts the measured points into protocol ranges, each of which
// then gets its own parameter set (Hoefler et al. 2007, Table 2).
//
//     std::vector<double> size{1, 2, 4, ..., 1 << 20}, val{...};
//     auto paper = detect_protocol_ranges_paper(size, val);   // as published
//     auto ranges = detect_protocol_ranges(size, val);        // ngx default
//     for (Range r : *ranges) fit_line(...r.first .. r.last...);
//
// Ranges are inclusive index ranges [first, last] into the input arrays,
// in order, covering every point exactly once. Sizes must be increasing.
//
// Reading of eq. (8). The paper defines
//     lsq(k, l) = sum_{i=k..l} (G size(i) + g - val(i))^2 / (l - k - 2),
// "the subtraction of 2 in the denominator is because we have 2 degrees of
// freedom". With the inclusive sum there are n = l - k + 1 points, so the
// printed denominator is n - 3, while the stated reason (2 fitted
// coefficients) gives the unbiased residual variance n - 2 = l - k - 1. We
// read the printed form as an off-by-one between an inclusive sum and an
// exclusive upper index (C-style `for (i = k; i < l; ++i)` has n = l - k
// points and then l - k - 2 = n - 2). Both are offered (Eq8Denominator):
// `as_printed` is the paper's formula literally and the default of the
// paper detector; `degrees_of_freedom` is the stated intent, used by the
// robust detector. Degenerate denominators (n <= 3 as printed, n <= 2 by
// dof) have no value: lsq() returns std::nullopt and the detectors only
// evaluate intervals long enough to have one.
//
// The paper's x-point look-ahead (detect_protocol_ranges_paper), as
// published: with lastchange the first point of the current protocol
// (initially 0), a change is declared at `current` (the last point of the
// protocol) when lsq(lastchange, current + j) > pfact * lsq(lastchange,
// current) for every 1 <= j <= x (x = 5, pfact = 2.0 by default). The paper
// does not say where `current` starts nor what happens near the end; here it
// starts at the first point where lsq(lastchange, current) exists and stops
// when fewer than x points follow it (so a change within the last x points
// cannot be seen). The only addition is a numerical guard: mean deviations
// below (1e-12 * max|val|)^2 count as that value, so rounding noise on exact
// data is not read as a change.
//
// Where the paper's rule is weak and what detect_protocol_ranges changes:
//  1. Zero or tiny baseline. On a short or lucky interval lsq(lastchange,
//     current) can be ~0 (three points through a line), and then any look-
//     ahead "rises by pfact". The robust detector floors the baseline at the
//     noise variance, estimated robustly from the data (median of the mean
//     deviation over sliding windows of 5 points, corrected for its chi^2
//     bias) or given by the caller.
//  2. Minimum segment length: every range has >= min_segment (3) points,
//     the baseline is only evaluated on >= min_segment points, and the look-
//     ahead is truncated at the end instead of refusing to look (so the last
//     points can still start a new range of min_segment points).
//  3. Relative deviations: with sizes from 1 B to 1 MiB and noise that is
//     proportional to the time, absolute squared deviations are dominated by
//     the largest sizes and grow ~4x per doubling of the size, which the
//     paper's rule reads as a change. The robust detector weights each point
//     by 1/val^2 (relative = true), making the noise comparable across sizes.
//  4. Position refinement: once a change fires, the split is moved by at
//     most one point to where two separate lines fit best (smallest total
//     residual sum of squares), which corrects a look-ahead that fires one
//     point late on a small jump.
//  5. Confirmation: a fired change is kept only when two separate lines fit
//     the points [lastchange, current + x] significantly better than one
//     (F test with 2 and n - 4 degrees of freedom, p < confirm_alpha =
//     1e-4). This uses the local residuals, so an unluckily low global
//     noise estimate cannot create a change on its own. When the caller
//     gives a measured noise variance, a chi^2 test against it is used
//     instead (see RobustDetectorOptions::noise_variance).
#ifndef NGX_FIT_CHANGE_POINTS_HPP
#define NGX_FIT_CHANGE_POINTS_HPP

#include <models/base/status.hpp>

#include <cstddef>
#include <limits>
#include <optional>
#include <span>
#include <vector>

namespace ngx::fit {

struct Range {
    std::size_t first = 0; // index of the first point, inclusive
    std::size_t last = 0;  // index of the last point, inclusive
    std::size_t count() const noexcept { return last - first + 1; }
    bool operator==(const Range&) const = default;
};

enum class Eq8Denominator {
    as_printed,         // l - k - 2 = n - 3 (Hoefler et al. 2007 eq. (8) literally)
    degrees_of_freedom, // l - k - 1 = n - 2 (the stated intent)
};

// Hoefler et al. 2007, eq. (8): mean least-squares deviation of the line fitted to the
// points k..l (inclusive). std::nullopt when the denominator is <= 0, the
// indices are out of range, or all sizes in [k, l] are equal.
std::optional<double> lsq(std::span<const double> size, std::span<const double> val, std::size_t k, std::size_t l,
                          Eq8Denominator denominator = Eq8Denominator::as_printed);

// The same with each squared deviation weighted by 1 / val(i)^2 (relative
// deviations), as used by the robust detector.
std::optional<double> lsq_relative(std::span<const double> size, std::span<const double> val, std::size_t k,
                                   std::size_t l, Eq8Denominator denominator = Eq8Denominator::degrees_of_freedom);

struct PaperDetectorOptions {
    std::size_t lookahead = 5; // x
    double pfact = 2.0;
    Eq8Denominator denominator = Eq8Denominator::as_printed;
};

// Hoefler et al. 2007, section 3.5, as published (see the overview above).
// Fails with invalid_input for mismatched lengths, non-finite values,
// non-increasing sizes, lookahead 0 or pfact <= 0; empty input gives no ranges.
Result<std::vector<Range>> detect_protocol_ranges_paper(std::span<const double> size, std::span<const double> val,
                                                        const PaperDetectorOptions& options = {});

struct RobustDetectorOptions {
    std::size_t lookahead = 5; // x
    double pfact = 2.0;
    std::size_t min_segment = 3; // points per range, >= 3
    bool relative = true;        // weight deviations by 1/val^2
    // Noise variance in the unit of the deviations (squared relative
    // deviation when `relative`); NaN = estimate it from the data. A given
    // (measured) value also replaces the F test below by a chi^2 test
    // against it: p = exp(-(RSS_1 - RSS_2) / (2 noise_variance)).
    double noise_variance = std::numeric_limits<double>::quiet_NaN();
    double floor_factor = 1.0;    // baseline floor = floor_factor * noise variance
    std::size_t noise_window = 5; // points per window of the noise estimate
    // A fired change is kept only if two lines fit [lastchange, current + x]
    // significantly better than one (F test, p < confirm_alpha); 0 = no test.
    double confirm_alpha = 1e-4;
};

// `scale` (optional, same length as val): with options.relative, each
// deviation is taken relative to scale(i) instead of val(i). For a curve
// that is a difference of measured times (o(s) of Hoefler et al. 2007 eq. (6), near
// zero or even negative on fast transports) pass the times it came from, so
// the weights follow its noise rather than its value.
Result<std::vector<Range>> detect_protocol_ranges(std::span<const double> size, std::span<const double> val,
                                                  const RobustDetectorOptions& options = {},
                                                  std::span<const double> scale = {});

// The robust noise-variance estimate used by detect_protocol_ranges: median
// over all windows of `window` consecutive points of the mean squared
// deviation from their own line (denominator window - 2), divided by the
// median of chi^2_k / k (k = window - 2) so that it estimates the variance.
// NaN when there are fewer than 3 points.
double estimate_noise_variance(std::span<const double> size, std::span<const double> val, std::size_t window = 5,
                               bool relative = true, std::span<const double> scale = {});

// Several measured curves over the same sizes (ngx addition to Hoefler et al. 2007
// section 3.5, which searches eq. (7) only). A protocol switch need not show
// in every curve: the 56-byte inline message of a shared-memory transport
// changes PRTT(1,0,s) but not the gap of eq. (7). Each curve gets the robust
// detector on its own; changes of different curves closer than min_segment
// points are one change, placed where two lines per curve fit all curves
// best (each curve's residual normalised by its one-line residual).
struct DetectorCurve {
    std::span<const double> val;
    std::span<const double> scale; // empty: deviations relative to val (see detect_protocol_ranges)
    // This curve's measured noise variance (RobustDetectorOptions::noise_variance); NaN: the options'.
    double noise_variance = std::numeric_limits<double>::quiet_NaN();
};

struct CurveRanges {
    std::vector<Range> ranges;
    // found_by[i]: indices into the curves whose detector saw the change
    // between ranges[i] and ranges[i + 1].
    std::vector<std::vector<std::size_t>> found_by;
    // candidates[i]: every split the curves proposed for that change, the
    // chosen one among them (ascending): two switches closer than
    // min_segment points form one change, and a caller that can judge a
    // split by its model may prefer another of them.
    std::vector<std::vector<std::size_t>> candidates;
};

// Fails with invalid_input for no curves or any curve detect_protocol_ranges rejects.
Result<CurveRanges> detect_protocol_ranges_any(std::span<const double> size, std::span<const DetectorCurve> curves,
                                               const RobustDetectorOptions& options = {});

} // namespace ngx::fit

#endif
