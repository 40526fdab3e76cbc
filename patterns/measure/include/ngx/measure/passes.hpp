// Interleaved measurement: the repetitions of every size are split into
// passes and the sizes are measured round-robin (pass 1 over all sizes, then
// pass 2 over all sizes, ...), so a burst of machine noise spreads over many
// sizes, a fraction of each, instead of wrecking the one size measured at
// that moment. The samples of all passes are pooled per size. After the
// regular passes the driver checks, per size, the 95% interval of the median
// of every series (order statistics, ngx/statistics.hpp); sizes whose
// interval is wider than --max-rel-ci of the median are measured again in a
// bounded number of extra passes, the list of them sent to the responder
// through the bootstrap. The regular passes both sides derive from the
// options alone (and check with each other at the start of every pass).
//
//     return sweep_passes(ctx, {
//         .measure = [&](const PassSlice& slice, Buffer& buffer) -> Result<Series> { ... },
//         .record = [&](const PassSlice& last, Series& pooled) -> Result<SizeRecord> { ... }});
//
// Warm-up: a size's first pass discards --warmup repetitions, every later
// pass a short re-warm of ceil(warmup / (4 passes)), so a size discards at
// most 1.25 x --warmup in all: the first contact with a size (its
// protocol's code path, its buffer's pages) costs up to 10^4 times a
// repetition and is paid once; after the other sizes' turns the first
// repetition costs 1.5-7 times the median on shm and the second about 1.2
// (measured with --warmup 0 --raw), so one re-warm repetition per 4 passes
// and 10 warm-ups (the main job's) takes the expensive one away.
//
// Budget of the extra passes: at most max(1, passes / 2) of them, and in
// all at most max(1, 5% of the regular size-passes) sizes measured again,
// the widest intervals first, so re-measuring costs at most about 5% of the
// run (the default job must not get noticeably slower).
//
// --adaptive turns --max-rel-ci into a stopping rule, as SKaMPI's (Reussner
// et al. 1998): every size is measured in passes of max(10, -c / 8)
// repetitions, the first over all sizes, each later one over the sizes not
// stopped yet; a size stops once the widest 95% interval of the median of
// its series is within --max-rel-ci of the median, or it kept -c
// repetitions, or it spent --max-size-time measuring. The driver decides
// and sends each pass's list through the bootstrap as for the extra passes
// ("ngx-pass 3 more 0 4 7"); both sides count the repetitions a size kept,
// so they agree on the share of its next pass. Cheap tight sizes stop after
// one pass.
//
// Every size's pattern metric (the first series) is checked for two
// clusters (modes.hpp): the record's "bimodal" column is 1 then, and the
// measurement JSON lists the clusters.
#ifndef NGX_MEASURE_PASSES_HPP
#define NGX_MEASURE_PASSES_HPP

#include <ngx/pattern.hpp>

#include <functional>
#include <vector>

namespace ngx::patterns {

// How a run splits its repetitions.
struct PassPlan {
    uint64_t passes = 1;       // regular passes over all sizes
    uint64_t extra = 0;        // at most this many extra passes over the sizes still too wide
    uint64_t extra_slices = 0; // and at most this many sizes measured in them, all extra passes together
    uint64_t rewarm = 0;       // discarded repetitions before a size's later passes
    bool adaptive = false;     // --adaptive: one pass over all sizes, then passes over those not stopped
    uint64_t step = 0;         // --adaptive: kept repetitions of a size per pass
};

// --passes (or the automatic choice from -c) and the re-warm of later passes.
PassPlan plan_passes(const RunSettings& settings);

// Kept repetitions of pass `pass` (0-based) of a size: count / passes, the
// first count % passes passes one more, so the regular passes keep exactly
// -c; an extra pass (pass >= passes) keeps count / passes (at least 1).
uint64_t samples_in_pass(uint64_t count, uint64_t passes, uint64_t pass);

// One size in one pass.
struct PassSlice {
    size_t index = 0;     // into ctx.settings.sizes
    uint64_t size = 0;    // bytes
    uint64_t pass = 0;    // 0-based; >= plan.passes for an extra pass
    bool first = false;   // the size's first pass: set up per-size state here
    uint64_t samples = 0; // kept repetitions in this pass
    uint64_t warmup = 0;  // discarded repetitions before them
};

// The samples of one size, one vector per series the pattern measures (the
// first one is the pattern's metric); every series is judged by its interval.
using Series = std::vector<std::vector<double>>;

struct PassedSweep {
    // Both sides: measures one slice. The driver returns the new samples of
    // each series (appended to the size's pooled ones), the responder an
    // empty Series.
    std::function<Result<Series>(const PassSlice& slice, Buffer& buffer)> measure;
    // Optional, both sides: after the last pass, before the records (e.g.
    // what the responder measured reaches the driver in one exchange).
    std::function<Status()> finish;
    // Driver: the size's record from its pooled samples, after its last pass.
    // ctx.losses then holds the size's losses over all its passes.
    std::function<Result<SizeRecord>(const PassSlice& last, Series& pooled)> record;
};

// Runs the passes and hands each size's record to the sink when all passes
// are done (on a failure, the sizes measured in at least one pass); records
// the run's passes in the sink's measurement JSON (schema: "measurement").
Status sweep_passes(PatternContext& ctx, const PassedSweep& sweep);

// The widest relative 95% interval of the median over the series ((high -
// low) / median; NaN when a series is too short to have one).
double widest_rel_ci95(const Series& series);

} // namespace ngx::patterns

#endif
