// The interleaved, pass-by-pass sweep (see passes.hpp).
#include <ngx/measure/passes.hpp>

#include <ngx/measure/modes.hpp>

#include <ngx/statistics.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>

namespace ngx::patterns {
namespace {

// Automatic --passes: 4 passes, fewer when -c would leave a pass fewer than
// 25 repetitions (a pass must hold enough repetitions that its re-warm and
// the peers' meeting at its start stay a small share of it).
constexpr uint64_t auto_passes = 4;
constexpr uint64_t min_auto_samples_per_pass = 25;
constexpr uint64_t extra_share = 20; // extra size-passes: at most 1/20 of the regular ones
// --adaptive: a size's pass keeps max(10, -c / 8) repetitions (at most -c).
// 10 give a 95% interval of the median between the 2nd and 9th of them
// (order statistics, 97.9% coverage); from 9 on the interval leaves out the
// smallest and the largest sample, below it is the whole range. A larger
// floor makes the costliest sizes pay for samples they do not need: over a
// 400 Mbit/s link one LogGP sample of 1 MiB takes about 1.3 s, so 30 of
// them alone were 40 s. -c / 8 bounds the meetings of the peers at 8 per size.
constexpr uint64_t min_adaptive_step = 10;
constexpr uint64_t max_adaptive_passes = 8;

struct SizeState {
    Series pooled;
    LossTally losses;
    uint64_t passes = 0;                                     // passes this size was measured in
    uint64_t kept = 0;                                       // repetitions kept over them (both sides)
    uint64_t spent_ns = 0;                                   // time measuring it, on the driver
    const char* stop = nullptr;                              // --adaptive, driver: why it stopped (or not yet)
    Modes modes;                                             // of the pattern's metric, once reported
    double width = std::numeric_limits<double>::quiet_NaN(); // widest_rel_ci95(pooled), on the driver
    bool reported = false;                                   // its record went to the sink
};

std::vector<size_t> all_sizes(size_t count)
{
    std::vector<size_t> indices(count);
    for (size_t i = 0; i < count; ++i)
        indices[i] = i;
    return indices;
}

// What the driver announces for a pass: "ngx-pass 2 all 18 1..131072 100 of
// 4" for a regular one (pass, the sizes, -c, passes: the responder derived
// the same from its options), "ngx-pass 5 extra 3 7" for an extra one (the
// indices of the sizes to measure again; none: the run is over).
std::string announce(uint64_t pass, const PassPlan& plan, const RunSettings& settings,
                     const std::vector<size_t>& indices)
{
    std::ostringstream text;
    text << "ngx-pass " << pass;
    if (pass < plan.passes) {
        text << " all " << settings.sizes.size() << " " << settings.sizes.front() << ".." << settings.sizes.back()
             << " " << settings.count << " of " << plan.passes;
        if (plan.adaptive)
            text << " adaptive by " << plan.step;
        return text.str();
    }
    text << (plan.adaptive ? " more" : " extra");
    for (size_t index : indices)
        text << " " << index;
    return text.str();
}

Result<std::vector<size_t>> parse_extra(const std::string& text, uint64_t pass, size_t sizes, bool adaptive)
{
    std::istringstream in(text);
    std::string tag, kind;
    uint64_t theirs = 0;
    if (!(in >> tag >> theirs >> kind) || tag != "ngx-pass" || theirs != pass || kind != (adaptive ? "more" : "extra"))
        return Status::runtime("passes: expected the driver's extra pass " + std::to_string(pass) + ", got '" +
                               text.substr(0, 80) + "'");
    std::vector<size_t> indices;
    for (size_t index = 0; in >> index;) {
        if (index >= sizes)
            return Status::runtime("passes: the driver named size index " + std::to_string(index) + " of " +
                                   std::to_string(sizes));
        indices.push_back(index);
    }
    return indices;
}

// Both sides meet before a pass. A regular pass: each side's plan must
// match the other's (same -s, -c and --passes), so their orders agree. An
// extra pass: the responder adopts the driver's list (`indices`).
Status agree_on_pass(PatternContext& ctx, uint64_t pass, const PassPlan& plan, std::vector<size_t>& indices)
{
    mark_step(ctx.settings.progress, "agreeing on the next pass with the peer", 0);
    bool regular = pass < plan.passes;
    bool driver = ctx.bootstrap.is_driver();
    std::string mine =
        driver || regular ? announce(pass, plan, ctx.settings, indices) : "ngx-pass " + std::to_string(pass) + " ?";
    Bytes theirs;
    NGX_TRY(ctx.bootstrap.exchange(to_bytes(mine), theirs, "pass " + std::to_string(pass + 1)));
    std::string text = to_string(theirs);
    if (regular) {
        if (text != mine)
            return Status::runtime("passes: the peer plans '" + text.substr(0, 80) + "', this side '" + mine +
                                   "' (give both sides the same -s, -c and --passes)");
        return Status::ok();
    }
    if (driver)
        return Status::ok();
    NGX_ASSIGN_OR_RETURN(std::vector<size_t> extra, parse_extra(text, pass, ctx.settings.sizes.size(), plan.adaptive));
    indices = std::move(extra);
    return Status::ok();
}

// Whether a size's widest interval is wider than --max-rel-ci: an undefined
// one (too few samples) is, unless --max-rel-ci is off.
bool too_wide(double width, double max_rel_ci)
{
    return std::isnan(width) ? max_rel_ci < RunSettings::max_rel_ci_off : width > max_rel_ci;
}

// The driver's choice for the next extra pass: the sizes whose widest
// interval is wider than --max-rel-ci (or undefined), the widest first, at
// most `budget` of them, in size order.
std::vector<size_t> still_wide(const std::vector<SizeState>& states, double max_rel_ci, uint64_t budget)
{
    std::vector<std::pair<double, size_t>> wide; // width (NaN as infinite), index
    for (size_t i = 0; i < states.size(); ++i) {
        double width = states[i].width;
        if (!states[i].reported && too_wide(width, max_rel_ci))
            wide.emplace_back(std::isnan(width) ? HUGE_VAL : width, i);
    }
    std::stable_sort(wide.begin(), wide.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<size_t> chosen;
    for (size_t i = 0; i < wide.size() && i < budget; ++i)
        chosen.push_back(wide[i].second);
    std::sort(chosen.begin(), chosen.end());
    return chosen;
}

// --adaptive, the driver's choice for the next pass: every size not stopped yet.
std::vector<size_t> not_stopped(const std::vector<SizeState>& states)
{
    std::vector<size_t> chosen;
    for (size_t i = 0; i < states.size(); ++i)
        if (!states[i].reported && states[i].stop == nullptr)
            chosen.push_back(i);
    return chosen;
}

// --adaptive: why a size measured so far stops (nullptr: it goes on). The
// interval rule first, so that a size which is narrow at its cap says so.
const char* stop_reason(const RunSettings& settings, const SizeState& state)
{
    if (state.width <= settings.max_rel_ci)
        return "interval";
    if (state.kept >= settings.count)
        return "count";
    if (state.spent_ns >= settings.max_size_ns)
        return "time";
    return nullptr;
}

// Kept repetitions of a size's next pass: the regular share of -c, or with
// --adaptive a step, the last one what is left of -c. Both sides know
// `kept`, so they agree without a message.
uint64_t slice_samples(const RunSettings& settings, const PassPlan& plan, uint64_t pass, uint64_t kept)
{
    if (plan.adaptive)
        return std::min(plan.step, settings.count - std::min(kept, settings.count));
    return samples_in_pass(settings.count, plan.passes, pass);
}

void append(Series& pooled, Series&& more)
{
    if (pooled.size() < more.size())
        pooled.resize(more.size());
    for (size_t s = 0; s < more.size(); ++s)
        pooled[s].insert(pooled[s].end(), more[s].begin(), more[s].end());
}

// No barrier per size: the peers met at the start of the pass, and within
// it the responder follows the driver's messages size after size (a
// bootstrap round trip per size costs a scheduler wake-up on a loaded machine).
Status measure_slice(PatternContext& ctx, const PassedSweep& sweep, const PassSlice& slice, SizeState& state,
                     Buffer& buffer)
{
    ctx.losses = state.losses;
    mark_step(ctx.settings.progress, "measuring", slice.size);
    auto start = std::chrono::steady_clock::now();
    Result<Series> samples = sweep.measure(slice, buffer);
    state.spent_ns += uint64_t(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
    state.losses = ctx.losses;
    if (!samples) // names size and repetition ("size 2 B, repetition 288: ..."), as a sequential sweep did
        return samples.status();
    append(state.pooled, std::move(*samples));
    ++state.passes;
    state.kept += slice.samples;
    if (ctx.bootstrap.is_driver()) {
        state.width = widest_rel_ci95(state.pooled);
        if (ctx.settings.adaptive)
            state.stop = stop_reason(ctx.settings, state);
    }
    return Status::ok();
}

Status report(PatternContext& ctx, const PassedSweep& sweep, size_t index, SizeState& state)
{
    PassSlice last{index, ctx.settings.sizes[index], state.passes - 1, state.passes == 1, 0, 0};
    ctx.losses = state.losses;
    state.reported = true;
    state.modes = state.pooled.empty() ? Modes{} : find_modes(state.pooled.front()); // record() may take them
    NGX_ASSIGN_OR_RETURN(SizeRecord record, sweep.record(last, state.pooled));
    record.extra.emplace_back("passes", double(state.passes));
    record.extra.emplace_back("bimodal", state.modes.bimodal ? 1.0 : 0.0);
    ctx.sink.size_done(std::move(record));
    return Status::ok();
}

// The driver's records in size order, from `next` on: while measuring, of
// the sizes that are final (all regular passes done and narrow enough not to
// be measured again), so the table fills during the last pass; at the end
// (`all`) of every size measured at least once.
Status report_in_order(PatternContext& ctx, const PassedSweep& sweep, const PassPlan& plan,
                       std::vector<SizeState>& states, size_t& next, bool all)
{
    for (; next < states.size(); ++next) {
        SizeState& state = states[next];
        bool final = plan.adaptive ? state.stop != nullptr
                                   : state.passes >= plan.passes && state.width <= ctx.settings.max_rel_ci;
        if (!all && !final)
            break;
        if (state.passes > 0 && !state.reported)
            NGX_TRY(report(ctx, sweep, next, state));
    }
    return Status::ok();
}

Json sizes_json(const RunSettings& settings, const std::vector<size_t>& indices)
{
    Json sizes = Json::array();
    for (size_t index : indices)
        sizes.push_back(settings.sizes[index]);
    return sizes;
}

// The sizes whose samples fell in two clusters, each with its clusters.
Json bimodal_json(const RunSettings& settings, const std::vector<SizeState>& states)
{
    Json bimodal = Json::array();
    for (size_t i = 0; i < states.size(); ++i)
        if (states[i].modes.bimodal)
            bimodal.push_back({{"size_bytes", settings.sizes[i]},
                               {"low_median_us", states[i].modes.low_median},
                               {"high_median_us", states[i].modes.high_median},
                               {"high_share", states[i].modes.high_share}});
    return bimodal;
}

// --adaptive: the rule and, per reason, the sizes that stopped for it.
Json adaptive_json(const RunSettings& settings, const PassPlan& plan, const std::vector<SizeState>& states)
{
    Json stopped = {{"interval", Json::array()}, {"count", Json::array()}, {"time", Json::array()}};
    for (size_t i = 0; i < states.size(); ++i)
        if (states[i].stop != nullptr)
            stopped[states[i].stop].push_back(settings.sizes[i]);
    return {{"step", plan.step},
            {"max_count", settings.count},
            {"max_size_time_s", double(settings.max_size_ns) / 1e9},
            {"stopped_bytes", stopped}};
}

// The run's "measurement" JSON: the plan, the order the passes ran in, the
// sizes measured again and those still wider than --max-rel-ci.
Json measurement_json(const PatternContext& ctx, const PassPlan& plan, const std::vector<std::vector<size_t>>& order,
                      const std::vector<SizeState>& states)
{
    std::vector<size_t> remeasured, wide;
    for (size_t i = 0; i < states.size(); ++i) {
        if (states[i].passes > plan.passes)
            remeasured.push_back(i);
        if (states[i].passes > 0 && too_wide(states[i].width, ctx.settings.max_rel_ci))
            wide.push_back(i);
    }
    Json schedule = Json::array();
    for (const std::vector<size_t>& pass : order)
        schedule.push_back(sizes_json(ctx.settings, pass));
    Json measurement = {{"passes", plan.passes},
                        {"extra_passes", order.size() > plan.passes ? order.size() - plan.passes : 0},
                        {"max_extra_passes", plan.extra},
                        {"max_extra_size_passes", plan.extra_slices},
                        {"rewarm", plan.rewarm},
                        {"max_rel_ci_percent", ctx.settings.max_rel_ci * 100},
                        {"remeasured_bytes", sizes_json(ctx.settings, remeasured)},
                        {"wide_bytes", sizes_json(ctx.settings, wide)},
                        {"schedule", schedule},
                        {"bimodal", bimodal_json(ctx.settings, states)}};
    if (plan.adaptive)
        measurement["adaptive"] = adaptive_json(ctx.settings, plan, states);
    return measurement;
}

} // namespace

PassPlan plan_passes(const RunSettings& settings)
{
    PassPlan plan;
    if (settings.adaptive) {
        plan.adaptive = true;
        uint64_t count = std::max<uint64_t>(settings.count, 1);
        plan.step =
            std::min(count, std::max(min_adaptive_step, (count + max_adaptive_passes - 1) / max_adaptive_passes));
        uint64_t most = (count + plan.step - 1) / plan.step;
        plan.passes = 1;
        plan.extra = most - 1;
        plan.extra_slices = uint64_t(settings.sizes.size()) * plan.extra;
        plan.rewarm = (settings.warmup + 4 * most - 1) / (4 * most);
        return plan;
    }
    plan.passes = settings.passes != 0
                      ? settings.passes
                      : std::clamp<uint64_t>(settings.count / min_auto_samples_per_pass, 1, auto_passes);
    plan.passes = std::min(plan.passes, std::max<uint64_t>(settings.count, 1));
    plan.extra = std::max<uint64_t>(1, plan.passes / 2);
    plan.extra_slices = std::max<uint64_t>(1, uint64_t(settings.sizes.size()) * plan.passes / extra_share);
    plan.rewarm = (settings.warmup + 4 * plan.passes - 1) / (4 * plan.passes);
    return plan;
}

uint64_t samples_in_pass(uint64_t count, uint64_t passes, uint64_t pass)
{
    if (pass >= passes)
        return std::max<uint64_t>(1, count / passes);
    return count / passes + (pass < count % passes ? 1 : 0);
}

double widest_rel_ci95(const Series& series)
{
    double widest = 0;
    for (const std::vector<double>& samples : series) {
        std::vector<double> sorted = samples;
        std::sort(sorted.begin(), sorted.end());
        double width = relative_width(median_ci95(sorted), percentile_of_sorted(sorted, 50.0));
        if (!(width <= widest)) // NaN wins: an interval that cannot be told is not narrow
            widest = width;
    }
    return widest;
}

Status sweep_passes(PatternContext& ctx, const PassedSweep& sweep)
{
    const RunSettings& settings = ctx.settings;
    NGX_ASSIGN_OR_RETURN(Buffer buffer, ctx.transport.alloc(size_t(settings.sizes.back())));
    PassPlan plan = plan_passes(settings);
    std::vector<SizeState> states(settings.sizes.size());
    std::vector<std::vector<size_t>> order;
    uint64_t extra_slices = 0; // measured in extra passes so far
    size_t next_report = 0;    // sizes before it are reported
    bool driver = ctx.bootstrap.is_driver();
    // Early records only without a finishing step (it may still add to them).
    bool report_early = driver && !sweep.finish;
    Status status;
    for (uint64_t pass = 0; status; ++pass) {
        std::vector<size_t> indices;
        if (pass < plan.passes)
            indices = all_sizes(settings.sizes.size());
        else if (driver && pass < plan.passes + plan.extra)
            indices = plan.adaptive ? not_stopped(states)
                                    : still_wide(states, settings.max_rel_ci, plan.extra_slices - extra_slices);
        if (pass >= plan.passes)
            extra_slices += indices.size();
        status = agree_on_pass(ctx, pass, plan, indices);
        if (!status || indices.empty())
            break;
        order.emplace_back(); // the sizes of this pass, as they were measured
        for (size_t i = 0; i < indices.size() && status; ++i) {
            size_t index = indices[i];
            PassSlice slice{index,
                            settings.sizes[index],
                            pass,
                            states[index].passes == 0,
                            slice_samples(settings, plan, pass, states[index].kept),
                            0};
            slice.warmup = slice.first ? settings.warmup : plan.rewarm;
            status = measure_slice(ctx, sweep, slice, states[index], buffer);
            if (status)
                order.back().push_back(index);
            if (status && report_early && (plan.adaptive || pass + 1 == plan.passes))
                status = report_in_order(ctx, sweep, plan, states, next_report, false);
        }
        if (status)
            ctx.sink.pass_done(pass + 1, plan.passes);
    }
    if (status && sweep.finish)
        status = sweep.finish();
    if (!driver)
        return status;
    mark_step(ctx.settings.progress, "reporting the sizes (driver, after the last exchange with the peer)", 0);
    Status emitted = report_in_order(ctx, sweep, plan, states, next_report, true); // finds the modes
    ctx.sink.set_measurement(measurement_json(ctx, plan, order, states));
    return status ? emitted : status;
}

} // namespace ngx::patterns
