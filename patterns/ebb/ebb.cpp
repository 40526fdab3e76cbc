// Pattern "ebb": the effective bisection bandwidth, Netgauge's question --
// what does the network give when half of the ranks talk to the other half,
// over many random halvings -- with ngx's stream timing.
//
// K bisections (--ebb-bisections, layout random-matchings, seeded by
// --ebb-seed: the same seed gives the same bisections): each pairs the ranks
// by a random perfect matching (odd P: one rank idles in it). A bisection
// runs in two phases: every pair's first rank streams to its second, all
// pairs at once; then the reverse. One direction at a time because a
// blocking rank cannot send its stream and receive its partner's at once,
// and the windowed stream (ngx/measure/pair_streams.hpp: (W - 1) s /
// (t_W - t_1), latency cancelled) needs one sender per pair. On full-duplex
// links the two directions do not share capacity, so a flow's number is
// the one it would get with both directions loaded; a host that cannot
// feed both directions at once would show less under Netgauge, which
// streams both ways together.
//
// Netgauge's ebb is the data a rank sends divided by the mean, over ranks
// and bisections, of its time: with a flow's time proportional to
// 1 / bandwidth that is the harmonic mean of the flows' bandwidths, which
// ebb_MBps reports. Beside it the distribution of the flows' bandwidths
// (min, percentiles, median, mean, max; the slowest flow named) and of the
// aggregate across the cut: per bisection and direction, the sum of its
// flows' bandwidths.
//
// After every bisection the senders' cells reach rank 0: when a rank dies
// in bisection k, rank 0 writes the k - 1 bisections done and bisection k
// with its flows null (never zero), and the error.
#include <ngx/pattern_plugin.hpp>
#include <ngx/peer_links.hpp>
#include <ngx/statistics.hpp>

#include <ngx/measure/sweep.hpp>
#include <ngx/measure/pair_streams.hpp>

#include <algorithm>
#include <cmath>

namespace ngx::patterns {
namespace {

constexpr LayoutKind layout = LayoutKind::random_matchings;

constexpr auto ebb_bisections =
    opt::row::whole_number("ebb-bisections", "8", 1, 1u << 16,
                           "random bisections K (random perfect matchings; odd P: one rank idles in each)");
constexpr auto ebb_seed =
    opt::row::whole_number("ebb-seed", "1", 0, UINT64_MAX, "seed of the bisections: the same seed draws the same ones");
constexpr auto ebb_window = opt::row::whole_number("ebb-window", "16", 2, 1u << 16,
                                                   "messages of the last size per stream; -c timed streams per flow "
                                                   "(median)");

opt::Table ebb_options()
{
    return {"ebb", {ebb_bisections, ebb_seed, ebb_window}};
}

// One flow, measured by its sender.
struct FlowCell {
    int32_t to = -1;
    double bandwidth_MBps = missing_value;
};

// One direction of a bisection, as rank 0 writes it.
struct Direction {
    std::vector<Transfer> flows;
    std::vector<double> bandwidth_MBps; // per flow, NaN: missing
};

class Ebb final : public Pattern {
public:
    Status configure(const OptionValues& values) override
    {
        opt::Reader read(ebb_options(), values);
        bisections_ = read(ebb_bisections);
        seed_ = read(ebb_seed);
        spec_.window = read(ebb_window);
        return read.ok() ? Status::ok() : Status::usage(read.error());
    }

    Json options_json() const override
    {
        return {{"layout", std::string(layout_name(layout))},
                {"bisections", bisections_},
                {"seed", seed_},
                {"window", spec_.window}};
    }

    Status run(PatternContext& ctx) override;

private:
    Status run_phase(PatternContext& ctx, PeerLinks& links, const std::vector<Transfer>& phase, Buffer& buffer,
                     std::vector<FlowCell>& cells);
    Status collect(PatternContext& ctx, const std::vector<FlowCell>& cells, std::vector<Direction>& directions);
    void report(PatternContext& ctx, const std::vector<Round>& rounds, const std::vector<std::vector<Direction>>& done,
                size_t complete, int nranks) const;

    uint64_t bisections_ = 8, seed_ = 1;
    StreamSpec spec_;
};

Status Ebb::run_phase(PatternContext& ctx, PeerLinks& links, const std::vector<Transfer>& phase, Buffer& buffer,
                      std::vector<FlowCell>& cells)
{
    NGX_TRY(ctx.bootstrap.barrier("starting a phase"));
    const int me = ctx.bootstrap.rank();
    for (const Transfer& t : phase) {
        if (t.from != me && t.to != me)
            continue;
        const bool sender = t.from == me;
        NGX_TRY(links.use(sender ? t.to : t.from));
        Result<double> bw = stream_bandwidth(ctx, buffer, spec_, sender);
        if (!bw)
            return bw.status().with_context("stream from rank " + std::to_string(t.from) + " to " +
                                            std::to_string(t.to));
        ctx.sink.count_messages(stream_messages(spec_));
        if (sender)
            cells.push_back({int32_t(t.to), *bw});
    }
    return Status::ok();
}

// On rank 0: each direction's flows get their sender's cell.
Status Ebb::collect(PatternContext& ctx, const std::vector<FlowCell>& cells, std::vector<Direction>& directions)
{
    std::vector<std::vector<FlowCell>> by_rank;
    NGX_TRY(gather_cells(ctx.bootstrap, cells, by_rank));
    for (Direction& direction : directions)
        for (size_t i = 0; i < direction.flows.size(); ++i) {
            const Transfer& t = direction.flows[i];
            if (size_t(t.from) >= by_rank.size())
                continue;
            for (const FlowCell& cell : by_rank[size_t(t.from)])
                if (cell.to == t.to)
                    direction.bandwidth_MBps[i] = cell.bandwidth_MBps;
        }
    return Status::ok();
}

Json number_or_null(double v)
{
    return std::isfinite(v) ? Json(v) : Json();
}

// min, p10, p25, median, mean, p75, p90, max of the finite values; count 0 and nulls when none.
Json distribution_json(std::vector<double> values)
{
    std::erase_if(values, [](double v) { return !std::isfinite(v); });
    const double ranks[] = {10, 25, 75, 90};
    Summary s = summarize(values, ranks);
    auto v = [&](double x) { return values.empty() ? Json() : Json(x); };
    return {{"count", values.size()},
            {"min", v(s.min)},
            {"p10", v(s.percentiles.empty() ? 0 : s.percentiles[0].value)},
            {"p25", v(s.percentiles.empty() ? 0 : s.percentiles[1].value)},
            {"median", v(s.median)},
            {"mean", v(s.mean)},
            {"p75", v(s.percentiles.empty() ? 0 : s.percentiles[2].value)},
            {"p90", v(s.percentiles.empty() ? 0 : s.percentiles[3].value)},
            {"max", v(s.max)}};
}

// The sum of a direction's flows across the cut; NaN when one is missing.
double cut_total(const Direction& direction)
{
    double sum = 0;
    for (double v : direction.bandwidth_MBps)
        sum += v;
    return direction.flows.empty() ? missing_value : sum;
}

// Netgauge's ebb: the data per flow over the mean flow time, i.e. the harmonic mean of the bandwidths.
double harmonic_mean(const std::vector<double>& values)
{
    double inverse = 0;
    for (double v : values)
        inverse += 1 / v;
    return values.empty() ? missing_value : double(values.size()) / inverse;
}

Json direction_json(const Direction& direction)
{
    Json cells = Json::array();
    for (size_t i = 0; i < direction.flows.size(); ++i)
        cells.push_back({{"from", direction.flows[i].from},
                         {"to", direction.flows[i].to},
                         {"bandwidth_MBps", number_or_null(direction.bandwidth_MBps[i])}});
    return {{"flows", cells}, {"aggregate_MBps", number_or_null(cut_total(direction))}};
}

// A bisection: its pairs (those of its first direction), idle ranks and directions.
Json bisection_json(const Round& round, const std::vector<Direction>& directions, int nranks)
{
    Json pairs = Json::array(), list = Json::array();
    for (const Transfer& t : directions.front().flows)
        pairs.push_back(Json::array({t.from, t.to}));
    for (const Direction& direction : directions)
        list.push_back(direction_json(direction));
    std::vector<int> idle;
    for (int r = 0; r < nranks; ++r)
        if (role_of(round, r).idle())
            idle.push_back(r);
    return {{"pairs", pairs}, {"idle", idle}, {"directions", list}};
}

// The slowest measured flow; null when none was measured.
Json slowest_json(const std::vector<std::vector<Direction>>& bisections)
{
    Json slowest;
    double least = INFINITY;
    for (size_t k = 0; k < bisections.size(); ++k)
        for (const Direction& direction : bisections[k])
            for (size_t i = 0; i < direction.flows.size(); ++i)
                if (std::isfinite(direction.bandwidth_MBps[i]) && direction.bandwidth_MBps[i] < least) {
                    least = direction.bandwidth_MBps[i];
                    slowest = {{"bisection", k},
                               {"from", direction.flows[i].from},
                               {"to", direction.flows[i].to},
                               {"bandwidth_MBps", least}};
                }
    return slowest;
}

void Ebb::report(PatternContext& ctx, const std::vector<Round>& rounds, const std::vector<std::vector<Direction>>& done,
                 size_t complete, int nranks) const
{
    Json list = Json::array();
    std::vector<double> flows, totals;
    for (size_t k = 0; k < done.size(); ++k) {
        list.push_back(bisection_json(rounds[k], done[k], nranks));
        for (const Direction& direction : done[k]) {
            flows.insert(flows.end(), direction.bandwidth_MBps.begin(), direction.bandwidth_MBps.end());
            totals.push_back(cut_total(direction));
        }
    }
    std::vector<double> measured = flows, per_message;
    std::erase_if(measured, [](double v) { return !std::isfinite(v) || v <= 0; });
    for (double bw : measured)
        per_message.push_back(double(spec_.bytes) / bw);
    Json ebb = {{"layout", std::string(layout_name(layout))},
                {"seed", seed_},
                {"bytes", spec_.bytes},
                {"window", spec_.window},
                {"streams", spec_.streams},
                {"bisections", rounds.size()},
                {"bisections_done", complete},
                {"ebb_MBps", number_or_null(harmonic_mean(measured))},
                {"flow_MBps", distribution_json(flows)},
                {"aggregate_MBps", distribution_json(totals)},
                {"flows_missing", flows.size() - measured.size()},
                {"slowest", slowest_json(done)},
                {"per_bisection", list}};
    ctx.sink.set_model({{"kind", "ebb"}, {"ebb", ebb}});
    if (!per_message.empty()) {
        SizeRecord record = make_record(ctx, spec_.bytes, per_message);
        record.extra.emplace_back("ebb_MBps", harmonic_mean(measured));
        ctx.sink.size_done(std::move(record));
    }
}

Status Ebb::run(PatternContext& ctx)
{
    const int nranks = ctx.bootstrap.nranks(), me = ctx.bootstrap.rank();
    spec_.bytes = std::max<uint64_t>(stream_ack_bytes, ctx.settings.sizes.back());
    spec_.streams = ctx.settings.count;
    NGX_ASSIGN_OR_RETURN(std::vector<Round> rounds,
                         plan_layout({.kind = layout, .nranks = nranks, .rounds = bisections_, .seed = seed_}));
    NGX_TRY(PeerLinks::check_module(ctx.transport.module(), layout, rounds, nranks));
    NGX_ASSIGN_OR_RETURN(PeerLinks links, PeerLinks::create(ctx.transport, ctx.bootstrap, layout));
    NGX_ASSIGN_OR_RETURN(Buffer buffer, ctx.transport.alloc(spec_.bytes));
    std::vector<std::vector<Direction>> bisections; // rank 0's
    size_t complete = 0;
    Status status;
    for (const Round& round : rounds) {
        mark_step(ctx.settings.progress, "ebb bisection", complete + 1);
        std::vector<FlowCell> cells;
        std::vector<Direction> directions;
        status = links.open_for(round);
        for (const std::vector<Transfer>& phase : phases_of(round)) {
            directions.push_back({phase, std::vector<double>(phase.size(), missing_value)});
            if (status)
                status = run_phase(ctx, links, phase, buffer, cells);
        }
        if (status)
            status = collect(ctx, cells, directions);
        bisections.push_back(std::move(directions)); // a failed one: its flows missing (null)
        if (!status)
            break;
        ++complete;
    }
    if (me == 0)
        report(ctx, rounds, bisections, complete, nranks);
    return status.is_ok() ? status
                          : status.with_context("ebb bisection " + std::to_string(complete + 1) + " of " +
                                                std::to_string(rounds.size()));
}

} // namespace

PatternInfo ebb_pattern()
{
    PatternInfo info;
    info.name = "ebb";
    info.description = "effective bisection bandwidth: every pair of K random bisections streams at once, one "
                       "direction at a time; the distribution of the flows' bandwidths and Netgauge's ebb "
                       "(module with per-peer links: sim, tcp, mpi)";
    info.metric = "time per streamed message of the last size, over all flows";
    info.default_sizes = "64Ki";
    info.default_count = 5;
    info.default_warmup = 0;
    info.options = ebb_options().specs();
    info.create = [] { return std::make_unique<Ebb>(); };
    info.ranks = RankGrouping::group;
    info.layouts = {layout};
    return info;
}

} // namespace ngx::patterns

NGX_PATTERN_EXPORT(ngx::patterns::ebb_pattern)
