// Pattern "allpairs": latency and bandwidth of every ordered pair of ranks,
// a map of the cluster with its outlier nodes and links named (mpiGraph's
// question, with ngx's statistics).
//
// Rounds (ngx/rank_layout.hpp): shift rounds by default (round r: rank i
// sends to i + r mod P, receives from i - r mod P: every ordered pair in
// P - 1 rounds); --allpairs-quiet-baseline yes: one pair at a time, nothing
// else on the network. A round's transfers run in phases of disjoint pairs
// (a rank sends and receives in one round, and with blocking calls a rank
// cannot serve its sender while it waits for its receiver), all pairs of a
// phase at once: a shift round is two or three phases. A phase is two steps,
// each after a barrier: every pair's ping-pongs, then every pair's streams.
//
// In each pair the sender (the row of the matrices) measures:
//   latency   the median half round trip of -c ping-pongs of the first size
//             of -s (after --warmup), as pingpong does;
//   bandwidth a stream of W (--allpairs-window) messages of the last size of
//             -s, answered by one small acknowledgement, timed
//             --allpairs-streams times, and the same with one message: the
//             bandwidth is (W - 1) s / (t_W - t_1), the medians of the times.
//             The difference cancels the latency and the acknowledgement and
//             leaves the gap per message, g + (s-1) G in LogGP terms
//             (G_all, Hoefler et al. 2007, eq. (2)).
//
// A stream whose window of W did not outlast one message (noise larger than
// W - 1 messages, e.g. ranks waiting for shared CPUs) leaves its bandwidth
// cell null: the JSON counts them (unresolved_bandwidth_cells) and the
// verdict's summary names the remedy.
//
// After every round the senders' cells reach rank 0, which alone holds the
// P x P matrices: when a rank dies in round r, rank 0 writes the r - 1
// rounds done, the missing cells null (never zero), and the error.
#include <ngx/output_file.hpp>
#include <ngx/pattern_plugin.hpp>
#include <ngx/peer_links.hpp>
#include <ngx/rank_hosts.hpp>

#include <ngx/measure/sweep.hpp>
#include <ngx/measure/pair_streams.hpp>
#include "verdict.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

namespace ngx::patterns {
namespace {

using allpairs::Matrix;

constexpr double missing = missing_value;

constexpr auto allpairs_quiet_baseline =
    opt::row::choice("allpairs-quiet-baseline", "no", {"no", "yes"},
                     "yes: one ordered pair at a time, no other traffic (the quiet baseline)");
constexpr auto allpairs_window =
    opt::row::whole_number("allpairs-window", "16", 2, 1u << 16, "messages of the last size per bandwidth stream");
constexpr auto allpairs_streams = opt::row::whole_number("allpairs-streams", "5", 1, 1u << 16,
                                                         "timed streams per pair (median), of W messages and of one");
constexpr auto allpairs_csv = opt::row::output_file(
    "allpairs-csv", "file for the cells: sender,receiver,sender_host,receiver_host,latency_us,bandwidth_MBps", "");

opt::Table allpairs_options()
{
    return {"allpairs", {allpairs_quiet_baseline, allpairs_window, allpairs_streams, allpairs_csv}};
}

struct Settings {
    bool quiet = false;
    uint64_t window = 16;
    uint64_t streams = 5;
    std::string csv; // file of the cells, "" for none
};

// One cell, measured by its sender.
struct Cell {
    int32_t to = -1;
    double latency_us = missing;
    double bandwidth_MBps = missing;
};

class AllPairs final : public Pattern {
public:
    Status configure(const OptionValues& values) override
    {
        opt::Reader read(allpairs_options(), values);
        settings_.quiet = read(allpairs_quiet_baseline) == "yes";
        settings_.window = read(allpairs_window);
        settings_.streams = read(allpairs_streams);
        settings_.csv = read(allpairs_csv);
        return read.ok() ? Status::ok() : Status::usage(read.error());
    }

    Json options_json() const override
    {
        return {{"layout", std::string(layout_name(layout()))},
                {"window", settings_.window},
                {"streams", settings_.streams},
                {"csv", settings_.csv}};
    }

    Status run(PatternContext& ctx) override;

private:
    StreamSpec stream_spec() const { return {bandwidth_size_, settings_.window, settings_.streams}; }
    LayoutKind layout() const { return settings_.quiet ? LayoutKind::one_at_a_time : LayoutKind::shift_rounds; }
    Status run_phase(PatternContext& ctx, PeerLinks& links, const std::vector<Transfer>& phase, Buffer& buffer,
                     std::vector<Cell>& cells);
    Result<double> latency(PatternContext& ctx, Buffer& buffer, bool sender);
    Status collect(PatternContext& ctx, const std::vector<Cell>& cells, Matrix& lat, Matrix& bw);
    Status report(PatternContext& ctx, const RankHosts& hosts, const Matrix& lat, const Matrix& bw, size_t rounds_done,
                  size_t rounds) const;

    uint64_t latency_size_ = 8, bandwidth_size_ = 65536;
    Settings settings_;
};

Result<double> AllPairs::latency(PatternContext& ctx, Buffer& buffer, bool sender)
{
    const Timer& timer = ctx.timer;
    std::vector<double> samples;
    const uint64_t total = ctx.settings.warmup + ctx.settings.count;
    for (uint64_t k = 0; k < total; ++k) {
        uint64_t start = timer.now();
        if (sender) {
            NGX_TRY(ctx.transport.send(buffer.data(), latency_size_));
            NGX_TRY(ctx.transport.recv(buffer.data(), latency_size_));
        } else {
            NGX_TRY(ctx.transport.recv(buffer.data(), latency_size_));
            NGX_TRY(ctx.transport.send(buffer.data(), latency_size_));
        }
        if (k >= ctx.settings.warmup)
            samples.push_back(timer.to_us(timer.now() - start) / 2);
        if (ctx.interrupted())
            return Status::interrupted();
    }
    return allpairs::finite_median(samples);
}

Status AllPairs::run_phase(PatternContext& ctx, PeerLinks& links, const std::vector<Transfer>& phase, Buffer& buffer,
                           std::vector<Cell>& cells)
{
    const int me = ctx.bootstrap.rank();
    const Transfer* mine = nullptr; // the phase's pairs are disjoint: at most one is this rank's
    for (const Transfer& t : phase)
        if (t.from == me || t.to == me)
            mine = &t;
    const bool sender = mine && mine->from == me;
    const std::string pair = mine ? std::to_string(mine->from) + " and " + std::to_string(mine->to) : "";
    // Latency and bandwidth in two steps, each after a barrier: no pair's
    // ping-pongs overlap another pair's stream, whose CPU and NIC queues
    // would add to them by the luck of timing (on an emulated cluster with
    // more ranks than cores, more than the slow node's own cost).
    NGX_TRY(ctx.bootstrap.barrier("starting a phase"));
    double lat = missing;
    if (mine) {
        NGX_TRY(links.use(sender ? mine->to : mine->from));
        Result<double> measured = latency(ctx, buffer, sender);
        if (!measured)
            return measured.status().with_context("latency between ranks " + pair);
        lat = *measured;
    }
    NGX_TRY(ctx.bootstrap.barrier("starting a phase's streams"));
    if (!mine)
        return Status::ok();
    Result<double> bw = stream_bandwidth(ctx, buffer, stream_spec(), sender);
    if (!bw)
        return bw.status().with_context("bandwidth from rank " + std::to_string(mine->from) + " to " +
                                        std::to_string(mine->to));
    ctx.sink.count_messages(2 * (ctx.settings.warmup + ctx.settings.count) + stream_messages(stream_spec()));
    if (sender)
        cells.push_back({int32_t(mine->to), lat, *bw});
    return Status::ok();
}

Status AllPairs::collect(PatternContext& ctx, const std::vector<Cell>& cells, Matrix& lat, Matrix& bw)
{
    std::vector<std::vector<Cell>> by_rank;
    NGX_TRY(gather_cells(ctx.bootstrap, cells, by_rank));
    for (size_t from = 0; from < by_rank.size(); ++from)
        for (const Cell& cell : by_rank[from])
            if (cell.to >= 0 && size_t(cell.to) < lat.size()) {
                lat[from][size_t(cell.to)] = cell.latency_us;
                bw[from][size_t(cell.to)] = cell.bandwidth_MBps;
            }
    return Status::ok();
}

Json matrix_json(const Matrix& m)
{
    Json rows = Json::array();
    for (const std::vector<double>& row : m) {
        Json cells = Json::array();
        for (double v : row)
            cells.push_back(std::isfinite(v) ? Json(v) : Json()); // missing: null, never zero
        rows.push_back(cells);
    }
    return rows;
}

std::string csv_cell(double v)
{
    return std::isfinite(v) ? std::to_string(v) : "";
}

Json number_or_null(double v)
{
    return std::isfinite(v) ? Json(v) : Json();
}

// The median of the cells from ranks on host `from` to ranks on host `to`.
double link_median(const Matrix& m, const std::vector<std::string>& hosts, const std::string& from,
                   const std::string& to)
{
    std::vector<double> cells;
    for (size_t i = 0; i < m.size(); ++i)
        for (size_t j = 0; j < m[i].size(); ++j)
            if (i != j && hosts[i] == from && hosts[j] == to)
                cells.push_back(m[i][j]);
    return allpairs::finite_median(cells);
}

// Cells whose latency was measured but whose stream gave no bandwidth.
size_t unresolved_bandwidth_cells(const Matrix& lat, const Matrix& bw)
{
    size_t n = 0;
    for (size_t i = 0; i < lat.size(); ++i)
        for (size_t j = 0; j < lat.size(); ++j)
            n += i != j && std::isfinite(lat[i][j]) && !std::isfinite(bw[i][j]);
    return n;
}

// The verdict the table prints ("verdict" of the model, printed by the core):
// one row per slow node with its median cell and the number of its slow
// links, one per slow link between normal nodes with its median cell; the
// links of a slow node are in the JSON's outliers.links.
Json verdict_json(const allpairs::Verdict& verdict, const Matrix& lat, const Matrix& bw,
                  const std::vector<std::string>& hosts)
{
    auto slow = [&](const std::string& host) {
        return std::find(verdict.outlier_nodes.begin(), verdict.outlier_nodes.end(), host) !=
               verdict.outlier_nodes.end();
    };
    Json rows = Json::array();
    for (const allpairs::NodeSummary& node : verdict.nodes) {
        if (!node.outlier)
            continue;
        size_t links = size_t(std::count_if(verdict.links.begin(), verdict.links.end(), [&](const auto& link) {
            return link.first == node.host || link.second == node.host;
        }));
        rows.push_back({"slow_node", node.host, "latency_us", number_or_null(node.latency_us), "bandwidth_MBps",
                        number_or_null(node.bandwidth_MBps), "slow_links", links});
    }
    size_t other_links = 0;
    for (const auto& [from, to] : verdict.links) {
        if (slow(from) || slow(to))
            continue;
        ++other_links;
        rows.push_back({"slow_link", from, to, "latency_us", number_or_null(link_median(lat, hosts, from, to)),
                        "bandwidth_MBps", number_or_null(link_median(bw, hosts, from, to))});
    }
    std::ostringstream summary;
    summary << verdict.outlier_nodes.size() << " slow node(s), " << other_links
            << " slow link(s) between the other nodes, of " << verdict.nodes.size()
            << " nodes (worse than the typical pair's median by more than 3 spreads)";
    if (size_t unresolved = unresolved_bandwidth_cells(lat, bw); unresolved > 0)
        summary << "; " << unresolved
                << " bandwidth cell(s) unresolved: a window did not outlast one message (noise, e.g. ranks waiting "
                   "for a CPU); raise --allpairs-window";
    rows.push_back({"typical", "latency_us", number_or_null(verdict.baseline_latency_us), "bandwidth_MBps",
                    number_or_null(verdict.baseline_bandwidth_MBps)});
    return {{"summary", summary.str()}, {"rows", rows}};
}

Status AllPairs::report(PatternContext& ctx, const RankHosts& hosts, const Matrix& lat, const Matrix& bw,
                        size_t rounds_done, size_t rounds) const
{
    allpairs::Verdict verdict = allpairs::find_outliers(lat, bw, hosts.by_rank());
    Json nodes = Json::array();
    for (const allpairs::NodeSummary& node : verdict.nodes)
        nodes.push_back({{"host", node.host},
                         {"latency_us", std::isfinite(node.latency_us) ? Json(node.latency_us) : Json()},
                         {"bandwidth_MBps", std::isfinite(node.bandwidth_MBps) ? Json(node.bandwidth_MBps) : Json()},
                         {"outlier", node.outlier}});
    Json links = Json::array();
    for (const auto& [from, to] : verdict.links)
        links.push_back(Json::array({from, to}));
    Json map = {{"hosts", hosts.by_rank()},
                {"layout", std::string(layout_name(layout()))},
                {"latency_bytes", latency_size_},
                {"bandwidth_bytes", bandwidth_size_},
                {"rounds_done", rounds_done},
                {"rounds", rounds},
                {"latency_us", matrix_json(lat)},
                {"bandwidth_MBps", matrix_json(bw)},
                {"unresolved_bandwidth_cells", unresolved_bandwidth_cells(lat, bw)},
                {"nodes", nodes},
                {"outliers", {{"nodes", verdict.outlier_nodes}, {"links", links}}}};
    ctx.sink.set_model(
        {{"kind", "allpairs"}, {"allpairs", map}, {"verdict", verdict_json(verdict, lat, bw, hosts.by_rank())}});
    std::vector<double> latencies, per_message;
    for (size_t i = 0; i < lat.size(); ++i)
        for (size_t j = 0; j < lat.size(); ++j) {
            if (std::isfinite(lat[i][j]))
                latencies.push_back(lat[i][j]);
            if (std::isfinite(bw[i][j]) && bw[i][j] > 0)
                per_message.push_back(double(bandwidth_size_) / bw[i][j]);
        }
    if (!latencies.empty())
        ctx.sink.size_done(make_record(ctx, latency_size_, latencies));
    if (!per_message.empty() && bandwidth_size_ != latency_size_) {
        SizeRecord record = make_record(ctx, bandwidth_size_, per_message);
        record.extra.emplace_back("bandwidth_MBps", double(bandwidth_size_) / record.summary.median);
        ctx.sink.size_done(std::move(record));
    }
    if (settings_.csv.empty())
        return Status::ok();
    std::ostringstream out;
    out << "sender,receiver,sender_host,receiver_host,latency_us,bandwidth_MBps\n";
    for (size_t i = 0; i < lat.size(); ++i)
        for (size_t j = 0; j < lat.size(); ++j)
            if (i != j)
                out << i << ',' << j << ',' << hosts.of(int(i)) << ',' << hosts.of(int(j)) << ',' << csv_cell(lat[i][j])
                    << ',' << csv_cell(bw[i][j]) << '\n';
    return write_atomically(settings_.csv, out.str()).with_context("--allpairs-csv");
}

Status AllPairs::run(PatternContext& ctx)
{
    const int nranks = ctx.bootstrap.nranks(), me = ctx.bootstrap.rank();
    latency_size_ = std::max<uint64_t>(1, ctx.settings.sizes.front());
    bandwidth_size_ = std::max<uint64_t>(stream_ack_bytes, ctx.settings.sizes.back());
    NGX_ASSIGN_OR_RETURN(std::vector<Round> rounds, plan_layout({.kind = layout(), .nranks = nranks}));
    NGX_TRY(PeerLinks::check_module(ctx.transport.module(), layout(), rounds, nranks));
    NGX_ASSIGN_OR_RETURN(RankHosts hosts, hosts_of_run(ctx.bootstrap, ctx.settings.host_of));
    NGX_ASSIGN_OR_RETURN(PeerLinks links, PeerLinks::create(ctx.transport, ctx.bootstrap, layout()));
    NGX_ASSIGN_OR_RETURN(Buffer buffer, ctx.transport.alloc(std::max(latency_size_, bandwidth_size_)));
    const size_t side = me == 0 ? size_t(nranks) : 0; // the matrices live on rank 0 only
    Matrix lat(side, std::vector<double>(side, missing)), bw = lat;
    size_t done = 0;
    Status status;
    for (const Round& round : rounds) {
        mark_step(ctx.settings.progress, "allpairs round", done + 1);
        std::vector<Cell> cells;
        status = links.open_for(round);
        for (const std::vector<Transfer>& phase : phases_of(round))
            if (status)
                status = run_phase(ctx, links, phase, buffer, cells);
        if (status)
            status = collect(ctx, cells, lat, bw);
        if (!status)
            break;
        ++done;
    }
    if (me == 0)
        if (Status written = report(ctx, hosts, lat, bw, done, rounds.size()); !written && status)
            return written;
    return status.is_ok() ? status
                          : status.with_context("allpairs round " + std::to_string(done + 1) + " of " +
                                                std::to_string(rounds.size()));
}

} // namespace

PatternInfo allpairs_pattern()
{
    PatternInfo info;
    info.name = "allpairs";
    info.description = "latency and bandwidth of every ordered pair of ranks in shift rounds; outlier nodes and "
                       "links named (modules with per-peer links: sim, tcp, shm, mpi; --host-of for emulated nodes)";
    info.metric = "half round trip (first size), time per streamed message (last size)";
    info.default_sizes = "8,64Ki";
    info.default_count = 100;
    info.default_warmup = 10;
    info.options = allpairs_options().specs();
    info.create = [] { return std::make_unique<AllPairs>(); };
    info.ranks = RankGrouping::group;
    info.layouts = {LayoutKind::shift_rounds, LayoutKind::one_at_a_time};
    return info;
}

} // namespace ngx::patterns

NGX_PATTERN_EXPORT(ngx::patterns::allpairs_pattern)
