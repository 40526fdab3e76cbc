// The LogGP fit's ranges as the model judges them (see loggp_splits.hpp).
#include <models/loggp/loggp_splits.hpp>
#include <models/loggp/loggp_estimates.hpp>
#include <models/loggp/loggp_quality.hpp>
#include <models/base/model_choice.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

namespace ngx::fit::detail {

namespace {

struct RangeFitError {
    ModelError error{
        Measured::nan, Measured::nan, Measured::nan, 0, Measured::nan, 0}; // NaN: the range could not be fitted
    bool inadmissible = false; // a parameter below 0 (L of eq. (1) or a cost): not LogGP, LogGOPSim cannot run it
    std::size_t params = 0;    // LogGPRange::parameter_count of the fitted range
};

// The model's error over one range fitted alone.
RangeFitError fitted_model_error(std::span<const PrttSample> samples, const PerSize& ps, Range r, double n,
                                 const LogGPOptions& opt)
{
    LogGPFit scratch;
    if (!fit_range(samples, ps, r, n, opt, scratch))
        return {};
    const LogGPRange& range = scratch.params.ranges.front();
    RangeFitError out{range_error(samples.subspan(r.first, r.count()), n, range), !range.admissible(),
                      range.parameter_count()};
    // The model choice tests the least-squares objective of the range's model,
    // not that of the parameters kept for their misfit().
    if (const std::optional<JointFit>& joint = scratch.details.front().joint)
        out.error.sum_sq_rel = std::fmin(out.error.sum_sq_rel, joint->least_rss);
    return out;
}

constexpr std::size_t min_split_sizes = 3; // each side keeps a line with a residual
constexpr std::size_t max_ranges = 8;

// Two neighbouring ranges, each fitted alone.
struct SplitFit {
    double misfit = Measured::nan;   // misfit() (loggp_quality.hpp) of both halves; NaN: a half cannot be fitted
    bool left_inadmissible = false;  // the left half has a parameter below 0 (L < 0)
    bool right_inadmissible = false; // the right half has one
    FitEvidence evidence;            // both halves' residual sum of squares, points and parameters
    bool inadmissible() const noexcept { return left_inadmissible || right_inadmissible; }
};

SplitFit split_fit(std::span<const PrttSample> samples, const PerSize& ps, Range left, Range right, double n,
                   const LogGPOptions& opt)
{
    const RangeFitError fa = fitted_model_error(samples, ps, left, n, opt);
    const RangeFitError fb = fitted_model_error(samples, ps, right, n, opt);
    const ModelError &a = fa.error, &b = fb.error;
    if (a.count + b.count == 0 || !std::isfinite(a.max_rel) || !std::isfinite(b.max_rel))
        return {};
    ModelError both;
    both.max_rel = std::max(a.max_rel, b.max_rel);
    both.mean_rel = (a.mean_rel * double(a.count) + b.mean_rel * double(b.count)) / double(a.count + b.count);
    const FitEvidence evidence{a.sum_sq_rel + b.sum_sq_rel, a.count_rel + b.count_rel, fa.params + fb.params};
    return {misfit(both), fa.inadmissible, fb.inadmissible, evidence};
}

// ngx: switches closer than three sizes (each range keeps three) reach the
// robust detector as one change with several candidate splits, and it puts
// the change where lines per curve fit best. With shm's vCPUs far apart the
// 56-byte inline switch (in y(s), 48 | 64 B) and the receive copy's (in
// o_r(s), 96 | 128 B) are two sizes apart; the curves may choose the second
// and leave the first, a 70% step of PRTT(n,0,s), inside the range below.
// Where the detector's split leaves either neighbouring range missing the
// goal, the model decides among the candidates: the one whose two ranges
// leave the least weighted residual sum of squares (the least-squares
// position of the change; none that gives a new range of L < 0) replaces
// the detector's when that drop is significant (model_choice.hpp, at
// model_choice_alpha, the position counted as one parameter more: the
// detector's position lies outside the likelihood-ratio confidence set of
// the change's position) and its misfit() is smaller too. A range that
// still misses is then split by split_misfits. A change whose ranges meet
// the goal is never moved (Open MPI over vader: its 4 KiB eager switch
// stays where the curves put it).
bool choose_split(std::span<const PrttSample> samples, const PerSize& ps, double n, const LogGPOptions& opt,
                  Detected& d, std::size_t i)
{
    Range& left = d.ranges[i];
    Range& right = d.ranges[i + 1];
    if (d.candidates[i].size() < 2)
        return false;
    const SplitFit detector = split_fit(samples, ps, left, right, n, opt);
    if (!(detector.misfit > 1))
        return false;
    std::size_t best_at = left.last;
    SplitFit best;
    for (std::size_t split : d.candidates[i]) {
        if (split == left.last || split + 1 < left.first + min_split_sizes || split + min_split_sizes > right.last)
            continue;
        const SplitFit f = split_fit(samples, ps, {left.first, split}, {split + 1, right.last}, n, opt);
        if ((f.left_inadmissible && !detector.left_inadmissible) ||
            (f.right_inadmissible && !detector.right_inadmissible))
            continue;
        if (std::isfinite(f.misfit) && (!std::isfinite(best.misfit) || f.evidence.rss < best.evidence.rss)) {
            best = f;
            best_at = split;
        }
    }
    if (best_at == left.last || !(best.misfit < detector.misfit))
        return false;
    FitEvidence moved = best.evidence;
    moved.params = detector.evidence.params + 1; // the position, estimated here, fixed by the curves there
    if (!richer_fit_wins(detector.evidence, moved, opt.relative_noise))
        return false;
    left.last = best_at;
    right.first = best_at + 1;
    return true;
}

} // namespace

// Moving a change changes the ranges its neighbours are judged with (Open
// MPI over vader: its first change, judged against 32 B..2 KiB, moved to
// 16 B; once the next change had cut that range at 512 B, 32 B fit better),
// so the changes are judged again until none moves (at most three passes).
constexpr std::size_t choose_passes = 3;
Detected choose_splits_by_model(std::span<const PrttSample> samples, const PerSize& ps, double n,
                                const LogGPOptions& opt, Detected d)
{
    for (std::size_t pass = 0; pass < choose_passes; ++pass) {
        bool moved = false;
        for (std::size_t i = 0; i + 1 < d.ranges.size() && i < d.candidates.size(); ++i)
            moved = choose_split(samples, ps, n, opt, d, i) || moved;
        if (!moved)
            break;
    }
    return d;
}

// ngx: where the fitted model of a range misses the quality goal (misfit()
// above 1: a mean relative error above 5% or a max above 15%), a protocol or
// cache regime may change inside it that no single curve showed beyond its
// noise. The range is split at the size where the two halves leave the
// least weighted residual sum of squares (the least-squares position; by
// misfit() a heavy-tailed run put it one size late), when their misfit() is
// smaller than the whole range's and the halves are the richer model the
// data demand: their weighted residual sum of squares drops
// below the whole range's by more than the measured noise explains
// (model_choice.hpp), at model_choice_alpha / K for the K sizes the split
// was sought at (Bonferroni), so that a range of pure noise is split with a
// probability of at most model_choice_alpha. This repeats on the halves.
// Each side keeps >= 3 sizes. Ranges are only ever split here, so every
// change point found before stays.
//
// Halves of L >= 0 are preferred: a split with a half of L < 0 (a model no
// simulator can run) is taken only where the test prefers its position to
// the best one of L >= 0 or no other split will do, and only where the
// range's mean misses the goal or its own L is < 0 (a regime
// change worth a range of its own: Open MPI over vader, whose small sizes'
// range has L < 0), never for one point's sake (in shm runs such splits of
// ranges missing on their max alone gave ranges of negative L). A range
// that meets the goal only with L < 0 (LogGPOptions::signed_when_missing)
// is split where two halves of L >= 0 meet it: a constraint (a model
// LogGOPSim can run), not a choice by the fit, so not tested.
Detected split_misfits(std::span<const PrttSample> samples, const PerSize& ps, double n, const LogGPOptions& opt,
                       Detected in)
{
    Detected out;
    std::vector<std::pair<Range, std::vector<LogGPCurve>>> todo;
    for (std::size_t i = in.ranges.size(); i-- > 0;)
        todo.emplace_back(in.ranges[i], std::move(in.split_by[i]));
    while (!todo.empty()) {
        auto [r, by] = std::move(todo.back());
        todo.pop_back();
        const RangeFitError fitted = fitted_model_error(samples, ps, r, n, opt);
        const double whole = misfit(fitted.error);
        const FitEvidence whole_evidence = fit_evidence(fitted.error, fitted.params);
        const bool allow_negative_L = fitted.inadmissible || fitted.error.mean_rel > QualityGoal{}.mean_rel;
        const bool room = out.ranges.size() + todo.size() + 2 <= max_ranges;
        const bool misses = whole > 1;
        // A range that meets the goal only with L < 0 is split too where
        // two halves of L >= 0 meet it.
        const bool unrunnable = !(whole > 1) && fitted.inadmissible;
        // The best split of L >= 0 halves, and the best of any.
        std::size_t runnable_at = 0, any_at = 0;
        SplitFit runnable, any;
        const bool search = room && r.count() >= 2 * min_split_sizes && (misses || unrunnable);
        const std::size_t positions = search ? r.count() - 2 * min_split_sizes + 1 : 1;
        if (search)
            for (std::size_t k = r.first + min_split_sizes; k + min_split_sizes <= r.last + 1; ++k) {
                const SplitFit f = split_fit(samples, ps, {r.first, k - 1}, {k, r.last}, n, opt);
                if (!std::isfinite(f.misfit))
                    continue;
                if (!f.inadmissible() && !(f.evidence.rss >= runnable.evidence.rss && std::isfinite(runnable.misfit)))
                    runnable = f, runnable_at = k;
                if (!(f.evidence.rss >= any.evidence.rss && std::isfinite(any.misfit)))
                    any = f, any_at = k;
            }
        const auto acceptable = [&](const SplitFit& f) {
            if (unrunnable)
                return f.misfit <= 1;
            return f.misfit < whole && richer_fit_wins(whole_evidence, f.evidence, opt.relative_noise,
                                                       model_choice_alpha / double(positions));
        };
        // The least-squares position wins over the best one with halves of
        // L >= 0 only where the data prefer it beyond the measured noise
        // (the position counted as one parameter more, as in
        // choose_splits_by_model): Open MPI over vader, 512 B..64 KiB, whose
        // halves at its 4 KiB eager limit leave a tenth of the sum of
        // squares that those at 8 KiB (both L >= 0) leave.
        const bool any_first =
            !unrunnable && allow_negative_L && any_at != runnable_at &&
            (!std::isfinite(runnable.misfit) ||
             richer_fit_wins(runnable.evidence, {any.evidence.rss, any.evidence.points, runnable.evidence.params + 1},
                             opt.relative_noise));
        const std::size_t at = any_first && acceptable(any)                         ? any_at
                               : acceptable(runnable)                               ? runnable_at
                               : !unrunnable && allow_negative_L && acceptable(any) ? any_at
                                                                                    : 0;
        if (at != 0) {
            todo.emplace_back(Range{at, r.last}, std::vector<LogGPCurve>{LogGPCurve::model});
            todo.emplace_back(Range{r.first, at - 1}, std::move(by));
            continue;
        }
        out.ranges.push_back(r);
        out.split_by.push_back(std::move(by));
    }
    return out;
}

} // namespace ngx::fit::detail
