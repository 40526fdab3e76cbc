// Pattern "congestion": what N flows into one rank (Nto1, --congestion-direction
// in) or out of it (1toN, out) get, for N = 1..P-1 (layouts many-to-one and
// one-to-many: round N is the root and the N ranks after it), and the
// max-rate model of Gropp et al. 2016 fitted over the N points.
//
// In round N every flow streams at once, as in ngx/measure/pair_streams.hpp:
// W (--congestion-window) messages of the last size s of -s answered by a
// 1-byte acknowledgement, timed -c times after one warm-up (median), and the
// same with one message. The root serves its N peers in turn, message by
// message (blocking calls), then takes (out) or gives (in) the
// acknowledgements in peer order. The flow's times are taken where the
// stream starts and ends on one clock: by the root for out (until its
// peer's acknowledgement), by the sender for in. Per flow
//     bandwidth = (W - 1) s / (t_W - t_1)
// (latency and acknowledgement cancelled), and the aggregate is their sum.
//
// The max-rate model (Gropp et al. 2016): N flows of n bytes each
// into (out of) one node take
//     T(N, n) = alpha + N n / min(R_N, N R_C),
// R_N the node's rate, R_C one flow's; k* = R_N / R_C flows saturate the
// node. It is fitted (models/maxrate/maxrate.hpp) over the points (N, s, T_1(N))
// and (N, W s, T_W(N)), T the slowest flow's median stream time in round N,
// and its error against those points is stated (mean and largest relative).
//
// After every round the cells reach rank 0: when a rank dies in round N,
// rank 0 writes the N - 1 rounds done and round N with its flows null
// (never zero), and the error.
#include <models/maxrate/maxrate_model.hpp>
#include <models/maxrate/maxrate_offline.hpp>
#include <ngx/pattern_plugin.hpp>
#include <ngx/peer_links.hpp>

#include <ngx/measure/sweep.hpp>
#include <ngx/measure/pair_streams.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ngx::patterns {
namespace {

constexpr auto congestion_direction =
    opt::row::choice("congestion-direction", "in", {"in", "out"},
                     "in: N ranks stream into the root (Nto1); out: the root streams to N (1toN)");
constexpr auto congestion_root =
    opt::row::whole_number("congestion-root", "0", 0, 1u << 20, "the rank all flows go into or come out of");
constexpr auto congestion_window = opt::row::whole_number(
    "congestion-window", "16", 2, 1u << 16, "messages of the last size per stream; -c timed streams (median)");

opt::Table congestion_options()
{
    return {"congestion", {congestion_direction, congestion_root, congestion_window}};
}

// One flow's median stream times, measured where its stream starts.
struct FlowCell {
    int32_t peer = -1; // the rank other than the root
    double one_us = missing_value;
    double window_us = missing_value;
};

// Round N as rank 0 writes it.
struct Point {
    std::vector<int> peers;
    std::vector<FlowCell> flows; // by peer, NaN: missing
};

class Congestion final : public Pattern {
public:
    Status configure(const OptionValues& values) override
    {
        opt::Reader read(congestion_options(), values);
        out_ = read(congestion_direction) == "out";
        root_ = int(read(congestion_root));
        spec_.window = read(congestion_window);
        return read.ok() ? Status::ok() : Status::usage(read.error());
    }

    Json options_json() const override
    {
        return {{"layout", std::string(layout_name(layout()))},
                {"direction", out_ ? "out" : "in"},
                {"root", root_},
                {"window", spec_.window}};
    }

    Status run(PatternContext& ctx) override;

private:
    LayoutKind layout() const { return out_ ? LayoutKind::one_to_many : LayoutKind::many_to_one; }
    Result<std::vector<double>> fan_times(PatternContext& ctx, PeerLinks& links, Buffer& buffer,
                                          const std::vector<int>& peers, uint64_t messages);
    Status run_round(PatternContext& ctx, PeerLinks& links, const std::vector<int>& peers, Buffer& buffer,
                     std::vector<FlowCell>& cells);
    Status collect(PatternContext& ctx, const std::vector<FlowCell>& cells, Point& point);
    void report(PatternContext& ctx, const std::vector<Point>& done, size_t complete, size_t rounds) const;

    bool out_ = false;
    int root_ = 0;
    StreamSpec spec_;
};

// The peers of the root in a round: the other end of every transfer.
std::vector<int> peers_in(const Round& round, int root)
{
    std::vector<int> peers;
    for (const Transfer& t : round.transfers)
        peers.push_back(t.from == root ? t.to : t.from);
    return peers;
}

// One fan stream (every flow of the round at once), spec_.streams + 1
// times; the median times of the flows this rank times: the root's (out),
// one per peer in order; a sender's (in), one; none otherwise.
Result<std::vector<double>> Congestion::fan_times(PatternContext& ctx, PeerLinks& links, Buffer& buffer,
                                                  const std::vector<int>& peers, uint64_t messages)
{
    const int me = ctx.bootstrap.rank();
    const bool root = me == root_;
    if (!root && std::find(peers.begin(), peers.end(), me) == peers.end())
        return std::vector<double>{};
    Transport& net = ctx.transport;
    const Timer& timer = ctx.timer;
    std::vector<std::vector<double>> times(root == out_ ? (root ? peers.size() : 1) : 0);
    for (uint64_t k = 0; k < spec_.streams + 1; ++k) { // the first stream warms up
        const uint64_t start = timer.now();
        if (root) {
            for (uint64_t m = 0; m < messages; ++m)
                for (int peer : peers) {
                    NGX_TRY(links.use(peer));
                    NGX_TRY(out_ ? net.send(buffer.data(), spec_.bytes) : net.recv(buffer.data(), spec_.bytes));
                }
            for (size_t i = 0; i < peers.size(); ++i) {
                NGX_TRY(links.use(peers[i]));
                NGX_TRY(out_ ? net.recv(buffer.data(), stream_ack_bytes) : net.send(buffer.data(), stream_ack_bytes));
                if (out_ && k > 0)
                    times[i].push_back(timer.to_us(timer.now() - start));
            }
        } else {
            NGX_TRY(links.use(root_));
            for (uint64_t m = 0; m < messages; ++m)
                NGX_TRY(out_ ? net.recv(buffer.data(), spec_.bytes) : net.send(buffer.data(), spec_.bytes));
            NGX_TRY(out_ ? net.send(buffer.data(), stream_ack_bytes) : net.recv(buffer.data(), stream_ack_bytes));
            if (!out_ && k > 0)
                times[0].push_back(timer.to_us(timer.now() - start));
        }
        if (ctx.interrupted())
            return Status::interrupted();
    }
    std::vector<double> medians;
    for (std::vector<double>& series : times)
        medians.push_back(median(std::move(series)));
    return medians;
}

Status Congestion::run_round(PatternContext& ctx, PeerLinks& links, const std::vector<int>& peers, Buffer& buffer,
                             std::vector<FlowCell>& cells)
{
    NGX_TRY(ctx.bootstrap.barrier("starting a round"));
    NGX_ASSIGN_OR_RETURN(std::vector<double> one, fan_times(ctx, links, buffer, peers, 1));
    NGX_ASSIGN_OR_RETURN(std::vector<double> many, fan_times(ctx, links, buffer, peers, spec_.window));
    const int me = ctx.bootstrap.rank();
    if (me == root_ || std::find(peers.begin(), peers.end(), me) != peers.end())
        ctx.sink.count_messages((me == root_ ? peers.size() : 1) * stream_messages(spec_));
    for (size_t i = 0; i < one.size(); ++i)
        cells.push_back({me == root_ ? peers[i] : me, one[i], many[i]});
    return Status::ok();
}

Status Congestion::collect(PatternContext& ctx, const std::vector<FlowCell>& cells, Point& point)
{
    std::vector<std::vector<FlowCell>> by_rank;
    NGX_TRY(gather_cells(ctx.bootstrap, cells, by_rank));
    for (const std::vector<FlowCell>& from : by_rank)
        for (const FlowCell& cell : from)
            for (FlowCell& flow : point.flows)
                if (flow.peer == cell.peer)
                    flow = cell;
    return Status::ok();
}

Json number_or_null(double v)
{
    return std::isfinite(v) ? Json(v) : Json();
}

// The slowest flow's time; NaN when a flow is missing.
double slowest(const std::vector<FlowCell>& flows, double FlowCell::*time)
{
    double worst = 0;
    for (const FlowCell& flow : flows)
        worst = std::isfinite(flow.*time) ? std::max(worst, flow.*time) : missing_value;
    return worst;
}

// Round N's JSON; its flows' bandwidths go to `bandwidths` (NaN: missing).
Json point_json(const Point& point, const StreamSpec& spec, std::vector<double>& bandwidths)
{
    Json flows = Json::array();
    double aggregate = 0;
    for (const FlowCell& flow : point.flows) {
        bandwidths.push_back(window_bandwidth(spec, flow.one_us, flow.window_us));
        flows.push_back(number_or_null(bandwidths.back()));
        aggregate += bandwidths.back(); // NaN when a flow is missing
    }
    return {{"flows", point.peers.size()},
            {"peers", point.peers},
            {"flow_MBps", flows},
            {"aggregate_MBps", number_or_null(aggregate)},
            {"time_one_us", number_or_null(slowest(point.flows, &FlowCell::one_us))},
            {"time_window_us", number_or_null(slowest(point.flows, &FlowCell::window_us))}};
}

// The max-rate fit's points of round N: (N, s, T_1) and (N, W s, T_W); none when a flow is missing.
void add_fit_points(const Point& point, const StreamSpec& spec, std::vector<fit::NodeCommPoint>& points)
{
    const double n = double(point.peers.size());
    const double t_one = slowest(point.flows, &FlowCell::one_us);
    const double t_window = slowest(point.flows, &FlowCell::window_us);
    if (std::isfinite(t_one) && std::isfinite(t_window)) {
        points.push_back({n, double(spec.bytes), t_one});
        points.push_back({n, double(spec.bytes * spec.window), t_window});
    }
}

void Congestion::report(PatternContext& ctx, const std::vector<Point>& done, size_t complete, size_t rounds) const
{
    Json list = Json::array();
    std::vector<fit::NodeCommPoint> points;
    for (const Point& point : done) {
        std::vector<double> bandwidths, per_message;
        list.push_back(point_json(point, spec_, bandwidths));
        add_fit_points(point, spec_, points);
        for (double bw : bandwidths)
            if (std::isfinite(bw))
                per_message.push_back(double(spec_.bytes) / bw);
        if (!per_message.empty()) { // one record per N: the flows' times per message
            SizeRecord record = make_record(ctx, spec_.bytes, per_message);
            record.extra.emplace_back("flows", double(point.peers.size()));
            record.extra.emplace_back("aggregate_MBps", std::accumulate(bandwidths.begin(), bandwidths.end(), 0.0));
            ctx.sink.size_done(std::move(record));
        }
    }
    Json congestion = {{"direction", out_ ? "out" : "in"},
                       {"layout", std::string(layout_name(layout()))},
                       {"root", root_},
                       {"bytes", spec_.bytes},
                       {"window", spec_.window},
                       {"streams", spec_.streams},
                       {"rounds", rounds},
                       {"rounds_done", complete},
                       {"per_flows", list},
                       {"maxrate", maxrate_json(points, fit::MaxRateVariant::three_parameter, congestion_form)}};
    ctx.sink.set_model({{"kind", "congestion"}, {"congestion", congestion}});
}

Status Congestion::run(PatternContext& ctx)
{
    const int nranks = ctx.bootstrap.nranks(), me = ctx.bootstrap.rank();
    spec_.bytes = std::max<uint64_t>(stream_ack_bytes, ctx.settings.sizes.back());
    spec_.streams = ctx.settings.count;
    Result<std::vector<Round>> rounds = plan_layout({.kind = layout(), .nranks = nranks, .root = root_});
    if (!rounds)
        return rounds.status().with_context("--congestion-root");
    NGX_TRY(PeerLinks::check_module(ctx.transport.module(), layout(), *rounds, nranks));
    NGX_ASSIGN_OR_RETURN(PeerLinks links, PeerLinks::create(ctx.transport, ctx.bootstrap, layout()));
    NGX_ASSIGN_OR_RETURN(Buffer buffer, ctx.transport.alloc(spec_.bytes));
    std::vector<Point> points; // rank 0's
    size_t complete = 0;
    Status status;
    for (const Round& round : *rounds) {
        mark_step(ctx.settings.progress, "congestion round", complete + 1);
        Point point{peers_in(round, root_), {}};
        for (int peer : point.peers)
            point.flows.push_back({peer, missing_value, missing_value});
        std::vector<FlowCell> cells;
        status = links.open_for(round);
        if (status)
            status = run_round(ctx, links, point.peers, buffer, cells);
        if (status)
            status = collect(ctx, cells, point);
        points.push_back(std::move(point)); // a failed round: its flows missing (null)
        if (!status)
            break;
        ++complete;
    }
    if (me == 0)
        report(ctx, points, complete, rounds->size());
    return status.is_ok() ? status
                          : status.with_context("congestion round " + std::to_string(complete + 1) + " of " +
                                                std::to_string(rounds->size()));
}

} // namespace

PatternInfo congestion_pattern()
{
    PatternInfo info;
    info.name = "congestion";
    info.description = "N = 1..P-1 flows into (out of) one root rank at once: per-flow and aggregate bandwidth, "
                       "the max-rate model fitted (module with per-peer links: sim, tcp, mpi)";
    info.metric = "time per streamed message of the last size, one record per N";
    info.default_sizes = "64Ki";
    info.default_count = 5;
    info.default_warmup = 0;
    info.options = congestion_options().specs();
    info.create = [] { return std::make_unique<Congestion>(); };
    info.ranks = RankGrouping::group;
    info.layouts = {LayoutKind::many_to_one, LayoutKind::one_to_many};
    info.models = {maxrate_model_kind()}; // its max-rate fit predicts as a nodecomm run's (models/maxrate)
    return info;
}

} // namespace ngx::patterns

NGX_PATTERN_EXPORT(ngx::patterns::congestion_pattern)
