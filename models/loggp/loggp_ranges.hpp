// Internal to the LogGP fit (loggp.cpp; not installed): the per-size curves
// the fit works on (o(s) of eq. (6) and y(s) of eq. (7), Hoefler et al. 2007)
// and the protocol ranges found on them, by the change-point detector the
// options choose (the robust search over every measured curve, the paper's
// on y(s), or none), one-point ranges merged into a neighbour.
#ifndef NGX_FIT_LOGGP_RANGES_HPP
#define NGX_FIT_LOGGP_RANGES_HPP

#include <models/loggp/loggp.hpp>

#include <cstddef>
#include <span>
#include <vector>

namespace ngx::fit::detail {

struct Detected {
    std::vector<Range> ranges;
    std::vector<std::vector<LogGPCurve>> split_by; // per range, empty for the first
    // per change (between ranges i and i + 1): the splits the curves proposed
    // (CurveRanges::candidates); empty where the detector gives none.
    std::vector<std::vector<std::size_t>> candidates;
};

struct PerSize {
    std::vector<double> x, o, y;
};

// x = s - 1, o(s) of eq. (6) and y(s) of eq. (7) per sample.
PerSize per_size(std::span<const PrttSample> samples, double n);

// The protocol ranges by opt.method (robust: over every measured curve).
Result<Detected> detect(std::span<const PrttSample> samples, const PerSize& ps, double n, const LogGPOptions& opt);

// One-point ranges carry no line: merge them into a neighbour.
Detected merge_single_points(Detected in);

} // namespace ngx::fit::detail

#endif
