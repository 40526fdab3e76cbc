// The decision behind `ngx check`: did a new run of the same measurement get
// slower than the baseline? Per message size (and per fitted parameter with
// a 95% interval) a two-sample test (two_sample.hpp): Mann-Whitney on the
// raw samples when both runs kept them (--raw), else a z test on the
// medians from their 95% intervals. The p-values of one check are Holm-
// corrected together, so checking many sizes keeps the false-alarm rate at
// alpha. A change counts only when it is significant AND larger than the
// minimum effect (relative to the baseline), in the direction that is worse.
//
// What varies between launches (placement, frequency, wake-ups) is fixed
// within one, so the tests above, on one launch against one launch, find
// launch-to-launch shifts "significant". Two defences: against a single-
// launch baseline the default minimum effect is wide enough for the
// launch-to-launch spread (single_launch_*_effect); when either side holds
// several launches (a file of `ngx --launches K -o` or `ngx launches -o`),
// each size and parameter is tested between launches instead (a t test on
// the launches' medians, the spread between launches as its noise) and the
// minimum effect drops to several_launches_effect.
//
//     Result<CheckResult> r = check_files(*read_saved_file("a.json"), *read_saved_file("b.json"), {0.05, 0.05});
//     if (!r) return r.status();              // different patterns, modules, sizes, no samples: usage
//     r->count(Verdict::regression);
//
// The check also notes what differs in the two files' settings (host, CPU,
// kernel, versions, governors) and the setting warnings each recorded.
#ifndef NGX_REGRESSION_CHECK_HPP
#define NGX_REGRESSION_CHECK_HPP

#include "saved_runs.hpp"
#include <ngx/status.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace ngx {

struct CheckOptions {
    double tolerance = NAN; // relative change below which nothing counts; NaN: the defaults below
    double alpha = 0.05;    // family-wise significance level (Holm)
};

// The default minimum effects (docs/compare-and-check.md, "Across launches").
constexpr double single_launch_size_effect = 0.15;      // a size, one launch against one launch
constexpr double single_launch_parameter_effect = 0.30; // a fitted parameter, one launch against one
constexpr double several_launches_effect = 0.05;        // either side of several launches

enum class Verdict {
    unchanged,        // not significant
    within_tolerance, // significant, but no larger than the tolerance
    regression,       // significant and worse by more than the tolerance
    improvement,      // significant and better by more than the tolerance
};

const char* verdict_name(Verdict verdict);

// One tested value: a size's median, or a fitted parameter of one range.
struct CheckedValue {
    std::string run;  // which pair of runs: "sim pingpong"
    std::string name; // "1 KiB", or "L_us [1 B..1 KiB]"
    bool is_parameter = false;
    double baseline = 0, current = 0; // the medians (us) or the parameter's values
    double change = 0;                // (current - baseline) / |baseline|; NaN for a zero baseline
    double p = 0, p_adjusted = 0;     // two-sided; Holm-adjusted over the whole check
    std::string test;                 // "rank-sum", "intervals" or "launches"
    double min_effect = 0;            // the smallest relative change that counts for this value
    Verdict verdict = Verdict::unchanged;
};

struct CheckResult {
    std::string baseline, current; // the labels of the two sides (file names)
    std::vector<CheckedValue> values;
    std::vector<std::string> notes; // what was not compared, and why
    size_t baseline_launches = 1, current_launches = 1;
    size_t count(Verdict verdict) const;
};

// The runs of the two files are paired in order; both must hold the same
// patterns, modules and sizes (every launch of a file of several), each size
// with raw samples or a 95% interval of its median when both files hold one
// launch (else a usage error naming what differs).
Result<CheckResult> check_files(const SavedFile& baseline, const SavedFile& current, const CheckOptions& options);

} // namespace ngx

#endif
