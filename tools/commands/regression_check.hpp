// The decision behind `ngx check`: did a new run of the same measurement get
// slower than the baseline? Per message size (and per fitted parameter with
// a 95% interval) a two-sample test (two_sample.hpp): Mann-Whitney on the
// raw samples when both runs kept them (--raw), else a z test on the
// medians from their 95% intervals. The p-values of one check are Holm-
// corrected together, so checking many sizes keeps the false-alarm rate at
// alpha. A change counts only when it is significant AND larger than the
// tolerance (relative to the baseline), in the direction that is worse.
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

#include <cstdint>
#include <string>
#include <vector>

namespace ngx {

struct CheckOptions {
    double tolerance = 0.05; // relative change below which nothing counts
    double alpha = 0.05;     // family-wise significance level (Holm)
};

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
    std::string test;                 // "rank-sum" or "intervals"
    Verdict verdict = Verdict::unchanged;
};

struct CheckResult {
    std::string baseline, current; // the labels of the two sides (file names)
    std::vector<CheckedValue> values;
    std::vector<std::string> notes; // what was not compared, and why
    size_t count(Verdict verdict) const;
};

// The runs of the two files are paired in order; both must hold the same
// patterns, modules and sizes, each size with raw samples or a 95% interval
// of its median (else a usage error naming what differs).
Result<CheckResult> check_files(const SavedFile& baseline, const SavedFile& current, const CheckOptions& options);

} // namespace ngx

#endif
