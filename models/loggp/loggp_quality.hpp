// A stated fit quality for LogGP parameters (ngx addition to Hoefler et al. 2007): how
// well a parameter set reproduces each measured curve of Listing 1, per
// protocol range and overall, against a goal; where a range misses it,
// which sizes, by how much, and the likely reason. Never a silent bad model.
//
//     Result<LogGPFit> fit = fit_loggp(samples, n);
//     QualityOptions q;
//     q.goal = {0.05, 0.15};                     // mean <= 5 %, max <= 15 %
//     q.rel_ci = per_size_relative_ci;           // optional, from the measurement
//     LogGPQuality quality = assess_loggp(samples, n, fit->params, q);
//     for (const RangeQuality& r : quality.ranges)
//         if (!r.meets_goal)
//             for (const QualityMiss& m : r.misses) report(m.size, m.curve, m.rel_error, m.reason);
//
// The predictions are LogGPParams::rtt (PRTT(1,0,s), Hoefler et al. 2007 eq. (1)) and
// LogGPParams::prtt (PRTT(n,0,s) and PRTT(n,d,s), eq. (5)), the same ones
// fit_loggp scores, so assess_loggp(...).overall.all equals LogGPFit::error
// and a saved model (its lines kept) reproduces it exactly.
//
// Reasons, first that applies:
//  - too_few_points: the range has fewer than min_points sizes, too few to
//    tell the model's lines from the noise;
//  - noise_too_wide: the measured 95% interval of the size (rel_ci, if
//    given) is wider than max_rel_ci, or at least as wide as the miss;
//  - switch_inside_range: the curve itself has a change point inside the
//    range (robust detector of change_points.hpp on the range's points):
//    a protocol switch the range detection did not separate;
//  - unexplained: none of these (an outlier, or a curve the model does not
//    describe).
#ifndef NGX_FIT_LOGGP_QUALITY_HPP
#define NGX_FIT_LOGGP_QUALITY_HPP

#include <models/base/change_points.hpp>
#include <models/loggp/loggp.hpp>
#include <models/base/measured.hpp>
#include <models/base/model_error.hpp>

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

namespace ngx::fit {

struct QualityGoal {
    double mean_rel = 0.05; // mean relative error per range and overall
    double max_rel = 0.15;  // largest relative error of any point
};

// How far a fit is from the goal: the worse of its mean and its max relative
// error, each over the goal's (1: at the goal). The joint fit judges its
// candidate forms by it, so that a form fitting the many small sizes as well
// as another but missing the largest ones by 50% does not win on its mean.
double misfit(const ModelError& e, const QualityGoal& goal = {});

// The measured curves of Hoefler et al. 2007, Listing 1.
enum class PrttCurve { prtt_1_0, prtt_n_0, prtt_n_d };

// overhead_grows_with_delay: a PRTT(n,d,s) miss where the sender's o(s) of
// eq. (6) (sends d apart) is clearly above y(s) of eq. (7) (sends back to
// back), which LogGP forbids (eq. (5): y >= o): the send costs more when
// spaced, e.g. it must wake a receiver blocked between messages (tcp with
// a blocking recv), so no one o fits both PRTT(n,0,s) and PRTT(n,d,s).
enum class MissReason { too_few_points, noise_too_wide, switch_inside_range, overhead_grows_with_delay, unexplained };

// "prtt_1_0", "prtt_n_0", "prtt_n_d"; "too_few_points", "noise_too_wide",
// "switch_inside_range", "overhead_grows_with_delay", "unexplained" (stable
// names for JSON).
std::string_view curve_name(PrttCurve c) noexcept;
std::string_view reason_name(MissReason r) noexcept;

// One measured point the model misses by more than the goal's mean.
struct QualityMiss {
    std::size_t index = 0; // into the samples
    double size = 0;       // bytes
    PrttCurve curve = PrttCurve::prtt_1_0;
    double measured = 0;
    double predicted = 0;
    double rel_error = 0; // |predicted - measured| / |measured|
    MissReason reason = MissReason::unexplained;
    // switch_inside_range: the last size before the change found in the curve.
    double switch_after_bytes = Measured::nan;
};

struct CurveErrors {
    ModelError prtt_1_0, prtt_n_0, prtt_n_d; // one curve each
    ModelError all;                          // the three together
};

struct RangeQuality {
    double from_bytes = 0; // the parameters' range (LogGPRange)
    double to_bytes = 0;
    std::size_t points = 0; // samples predicted with this range
    CurveErrors error;
    bool meets_goal = true;
    // When the goal is missed: every (size, curve) whose relative error
    // exceeds goal.mean_rel, in size order; empty otherwise.
    std::vector<QualityMiss> misses;
};

struct LogGPQuality {
    QualityGoal goal;
    std::vector<RangeQuality> ranges; // parallel to params.ranges
    CurveErrors overall;
    bool meets_goal = true; // overall and every range
};

struct QualityOptions {
    QualityGoal goal{};
    std::size_t min_points = 5;
    // Per sample (same length, or empty = unknown): relative width of the
    // 95% interval of its measured medians (the widest of the three PRTTs).
    std::span<const double> rel_ci{};
    double max_rel_ci = 0.05;
    RobustDetectorOptions detector{}; // for switch_inside_range
};

// Samples as for fit_loggp (sizes increasing); n >= 2; params with ranges.
// invalid_input otherwise (also for rel_ci of the wrong length).
Result<LogGPQuality> assess_loggp(std::span<const PrttSample> samples, double n, const LogGPParams& params,
                                  const QualityOptions& options = {});

} // namespace ngx::fit

#endif
