// Pattern "nodecomm" (Gropp et al. 2016, Gropp, Olson, Samfass): k = 1..K pairs
// ping-pong the same size n at the same time between two nodes. With 2P
// ranks, pair i is rank i (node A, it times) with rank P + i (node B). For
// each (k, n), in an interleaved order so that slow drifts spread over all
// points, pairs 0..k-1 each run a ping-pong series, every repetition after a
// barrier of all ranks (the k messages cross together), each pair timing its
// own round trips, and rank 0 gathers them: T(k, n) is
// the median half round trip of the slowest pair (the time until all k are
// done, what the paper models), T_mean(k, n) the mean over the pairs, and
// k n / T the aggregate bandwidth. The models are fitted at the end
// (models/maxrate/maxrate_model.hpp).
#include <ngx/pattern_plugin.hpp>
#include <ngx/sizes.hpp>

#include <ngx/measure/prtt.hpp>
#include <ngx/measure/sweep.hpp>
#include <ngx/measure/pair_counts.hpp>
#include <models/maxrate/maxrate_model.hpp>
#include <models/maxrate/maxrate_offline.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <random>
#include <unistd.h>

namespace ngx::patterns {
namespace {

constexpr auto nodecomm_pairs =
    opt::row::text("nodecomm-pairs", opt::no_default,
                   "pair counts: K for 1..K, or a list (1,2,4,8); default: every pair of the ranks (2K ranks: rank i "
                   "pairs with rank K+i), or the list of --pairs LIST (not both)");
constexpr auto nodecomm_regimes =
    opt::row::text("nodecomm-regimes", opt::no_default,
                   "fit regimes FROM-TO,...,FROM- (half-open, e.g. 1-1Ki,1Ki-64Ki,64Ki-); default: the protocol "
                   "ranges of the k = 1 curve");
constexpr auto nodecomm_passes =
    opt::row::whole_number("nodecomm-passes", "1", 1, 1000,
                           "passes over every (k, n), each in a new interleaved order; T(k, n) keeps the fastest pass "
                           "(noise only adds time)");
constexpr auto nodecomm_sync =
    opt::row::choice("nodecomm-sync", opt::no_default, {"repetition", "series"},
                     "repetition (default): a barrier of all ranks before every round trip, so the k pairs' messages "
                     "cross together; series: one barrier per point, then each pair runs freely (pairs drift apart "
                     "and overlap less)");
constexpr auto nodecomm_one_node = opt::row::flag(
    "nodecomm-one-node", "measure even when a pair's two ranks share a node (a note instead of an error)");

opt::Table nodecomm_options()
{
    return {"nodecomm", {nodecomm_pairs, nodecomm_regimes, nodecomm_passes, nodecomm_sync, nodecomm_one_node}};
}

constexpr uint32_t schedule_seed = 2016; // the same order on every rank

struct Point {
    size_t k_index;
    size_t n_index;
};

// Every (k, n) once per pass, each pass shuffled, the same way on every rank.
std::vector<Point> interleaved(size_t pair_counts, size_t sizes, uint64_t passes)
{
    std::vector<Point> schedule;
    std::mt19937 random(schedule_seed);
    for (uint64_t pass = 0; pass < passes; ++pass) {
        std::vector<Point> points;
        for (size_t k = 0; k < pair_counts; ++k)
            for (size_t n = 0; n < sizes; ++n)
                points.push_back({k, n});
        for (size_t i = points.size(); i > 1; --i) // Fisher-Yates with our own draw: libraries may differ
            std::swap(points[i - 1], points[random() % i]);
        schedule.insert(schedule.end(), points.begin(), points.end());
    }
    return schedule;
}

Bytes pack(const std::vector<double>& values)
{
    Bytes bytes(values.size() * sizeof(double));
    if (!values.empty())
        std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

std::vector<double> unpack(const Bytes& bytes)
{
    std::vector<double> values(bytes.size() / sizeof(double));
    if (!values.empty())
        std::memcpy(values.data(), bytes.data(), values.size() * sizeof(double));
    return values;
}

std::string host_name()
{
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    return host;
}

class NodeComm final : public Pattern {
public:
    Status configure(const OptionValues& values) override
    {
        opt::Reader read(nodecomm_options(), values);
        if (std::optional<std::string> pairs = read.optional(nodecomm_pairs))
            NGX_TRY(parse_pairs(*pairs));
        if (std::optional<std::string> text = read.optional(nodecomm_regimes)) {
            Result<std::vector<Regime>> regimes = parse_regimes(*text);
            if (!regimes)
                return regimes.status();
            regimes_ = std::move(*regimes);
        }
        one_node_ok_ = read(nodecomm_one_node);
        if (std::optional<std::string> sync = read.optional(nodecomm_sync)) {
            sync_each_ = *sync == "repetition";
        } else if (!read.ok()) {
            return Status::usage(read.error());
        }
        passes_ = read(nodecomm_passes);
        return read.ok() ? Status::ok() : Status::usage(read.error());
    }

    Json options_json() const override
    {
        Json regimes = Json::array();
        for (const Regime& r : regimes_)
            regimes.push_back({r.from_bytes, r.to_bytes == 0 ? Json(nullptr) : Json(r.to_bytes)});
        return {{"pairs", pairs_},
                {"regimes", regimes},
                {"one_node", one_node_ok_},
                {"passes", passes_},
                {"sync", sync_each_ ? "repetition" : "series"}};
    }

    Status run(PatternContext& ctx) override
    {
        NGX_TRY(resolve_pairs(ctx.bootstrap));
        NGX_TRY(check_hosts(ctx));
        NGX_ASSIGN_OR_RETURN(Buffer buffer, ctx.transport.alloc(size_t(ctx.settings.sizes.back())));
        NodeCommData data = empty_data(pairs_, ctx.settings.sizes);
        for (const Point& point : interleaved(pairs_.size(), ctx.settings.sizes.size(), passes_)) {
            Status status = measure_point(ctx, buffer, point, data);
            if (!status) { // the points done are kept: the model of what was measured
                publish(ctx, data);
                return status;
            }
        }
        publish(ctx, data);
        return Status::ok();
    }

private:
    std::vector<uint64_t> pairs_; // empty until run(): every pair the ranks allow
    std::vector<Regime> regimes_; // empty: detected on the k = 1 curve
    bool one_node_ok_ = false;
    bool sync_each_ = true; // a barrier before every repetition (--nodecomm-sync)
    uint64_t passes_ = 1;

    Status parse_pairs(const std::string& text)
    {
        NGX_ASSIGN_OR_RETURN(pairs_, parse_pair_counts("nodecomm-pairs", text));
        return Status::ok();
    }

    Status resolve_pairs(const Bootstrap& boot) { return resolve_pair_counts(pairs_, boot, "--nodecomm-pairs"); }

    // Each pair should span two nodes: rank 0 compares the host names and
    // tells every rank whether to go on.
    Status check_hosts(PatternContext& ctx)
    {
        Bootstrap& boot = ctx.bootstrap;
        std::vector<Bytes> hosts;
        NGX_TRY(boot.gather(to_bytes(host_name()), hosts, "nodecomm: gathering the host names"));
        Bytes verdict;
        if (boot.rank() == 0)
            verdict = to_bytes(host_verdict(boot, hosts));
        NGX_TRY(boot.broadcast(verdict, "nodecomm: the host check"));
        std::string text = to_string(verdict);
        if (text.starts_with("error: "))
            return Status::usage(text.substr(7));
        if (!text.empty() && boot.rank() == 0)
            std::cerr << "ngx: note: " << text << "\n";
        return Status::ok();
    }

    std::string host_verdict(const Bootstrap& boot, const std::vector<Bytes>& hosts) const
    {
        size_t pairs = hosts.size() / 2;
        std::string same;
        size_t count = 0;
        for (size_t i = 0; i < pairs; ++i)
            if (hosts[i] == hosts[pairs + i]) {
                if (count++ < 3)
                    same += (same.empty() ? "" : ", ") + std::to_string(i) + " <-> " + std::to_string(pairs + i);
            }
        if (count == 0)
            return "";
        std::string what = std::to_string(count) + " of " + std::to_string(pairs) + " pairs (ranks " + same +
                           (count > 3 ? ", ..." : "") + ") run on one node (" + to_string(hosts[0]) +
                           "): T(k, n) measures that node's memory, not the network between two nodes";
        if (boot.kind() == BootstrapKind::local || one_node_ok_)
            return what;
        std::string placement = boot.kind() == BootstrapKind::tcp
                                    ? "both sides of --listen / --connect run on this node; start the server on "
                                      "another node"
                                    : "place ranks 0..K-1 on one node and K..2K-1 on another (mpirun --map-by "
                                      "ppr:K:node)";
        return "error: " + what + "; " + placement + ", or pass --nodecomm-one-node to measure anyway";
    }

    Status measure_point(PatternContext& ctx, Buffer& buffer, const Point& point, NodeCommData& data)
    {
        uint64_t k = data.pairs[point.k_index], n = data.sizes[point.n_index];
        std::string where = "nodecomm k=" + std::to_string(k) + " size " + format_bytes(n);
        mark_step(ctx.settings.progress, "waiting for the other pairs before the point", n);
        NGX_TRY(ctx.bootstrap.barrier(where + ": waiting for the other pairs"));
        ctx.losses = LossTally{};
        PrttSpec spec{n, 1, 0.0, ctx.settings.count, ctx.settings.warmup};
        NGX_ASSIGN_OR_RETURN(std::vector<double> samples, sync_each_ ? measure_in_step(ctx, buffer, spec, k, where)
                                                                     : measure_series(ctx, buffer, spec, k, where));
        for (double& sample : samples)
            sample /= 2.0; // half round trip, as the one-way T of the models
        mark_step(ctx.settings.progress, "gathering the pairs' times", n);
        std::vector<Bytes> all;
        NGX_TRY(ctx.bootstrap.gather(pack(samples), all, where + ": gathering the pairs' times"));
        if (ctx.bootstrap.rank() != 0)
            return Status::ok();
        ctx.sink.count_messages(prtt_message_count(spec) * k);
        ctx.sink.size_done(point_record(ctx, all, k, n, point, data));
        return Status::ok();
    }

    // The k active pairs' round trips in step: every repetition starts after
    // a barrier of all ranks, so the k requests cross the link together and
    // then the k replies. Left to run freely, pairs drift apart until some
    // send while others answer: each direction then carries fewer than k
    // messages and T(k, n) no longer measures k of them sharing the link
    // (over htb with R_N = 2.5 R_C it read R_N up to 30% high).
    Result<std::vector<double>> measure_in_step(PatternContext& ctx, Buffer& buffer, const PrttSpec& spec, uint64_t k,
                                                const std::string& where)
    {
        std::vector<double> kept;
        PrttSpec one = spec;
        one.samples = 1;
        one.warmup = 0;
        for (uint64_t rep = 0; rep < spec.warmup + spec.samples; ++rep) {
            mark_step(ctx.settings.progress, "waiting for the other pairs before a repetition", spec.size);
            NGX_TRY(ctx.bootstrap.barrier(where + ": waiting for the other pairs, repetition " + std::to_string(rep)));
            if (pair_index(ctx.bootstrap) >= k)
                continue;
            mark_step(ctx.settings.progress, "measuring");
            Result<std::vector<double>> prtt = run_prtt(ctx, buffer, one);
            if (!prtt)
                return prtt.status().with_context(where);
            if (rep >= spec.warmup)
                kept.insert(kept.end(), prtt->begin(), prtt->end());
        }
        return kept;
    }

    // --nodecomm-sync series: each pair runs its series freely after one barrier.
    Result<std::vector<double>> measure_series(PatternContext& ctx, Buffer& buffer, const PrttSpec& spec, uint64_t k,
                                               const std::string& where)
    {
        if (pair_index(ctx.bootstrap) >= k)
            return std::vector<double>();
        mark_step(ctx.settings.progress, "measuring");
        Result<std::vector<double>> prtt = run_prtt(ctx, buffer, spec);
        if (!prtt)
            return prtt.status().with_context(where);
        return prtt;
    }

    // Rank 0: the slowest pair's record, with the mean pair and the aggregate
    // bandwidth. Of several passes T(k, n) keeps the fastest: noise (another
    // process on the cores, a daemon) only ever adds time.
    static SizeRecord point_record(const PatternContext& ctx, const std::vector<Bytes>& all, uint64_t k, uint64_t n,
                                   const Point& point, NodeCommData& data)
    {
        std::vector<double> slowest;
        double worst = -1, sum = 0;
        for (size_t pair = 0; pair < k; ++pair) {
            std::vector<double> samples = unpack(all[pair]);
            double pair_median = median(samples);
            sum += pair_median;
            if (pair_median > worst) {
                worst = pair_median;
                slowest = std::move(samples);
            }
        }
        double& kept = data.T_us[point.k_index][point.n_index];
        if (!(kept <= worst)) { // NaN: the first pass
            kept = worst;
            data.T_mean_us[point.k_index][point.n_index] = sum / double(k);
        }
        SizeRecord record = make_record(ctx, n, std::move(slowest));
        record.extra.emplace_back("pairs", double(k));
        record.extra.emplace_back("T_mean_us", sum / double(k));
        record.extra.emplace_back("aggregate_MBps", worst > 0 ? double(k) * double(n) / worst : 0.0);
        return record;
    }

    void publish(PatternContext& ctx, const NodeCommData& data) const
    {
        if (ctx.bootstrap.rank() != 0)
            return;
        ctx.sink.set_model(nodecomm_model(data, regimes_.empty() ? detect_regimes(data) : regimes_));
    }
};

} // namespace

PatternInfo nodecomm_pattern()
{
    PatternInfo info;
    info.name = "nodecomm";
    info.description = "k = 1..K concurrent pairs between two nodes, max-rate model (Gropp et al. 2016)";
    info.metric = "half round trip of the slowest of k pairs";
    info.default_sizes = "1-1Mi";
    info.default_count = 200;
    info.default_warmup = 20;
    info.options = nodecomm_options().specs();
    info.create = [] { return std::make_unique<NodeComm>(); };
    info.run_tables = [](const RunRecord& run) { // the tables `ngx fit` prints of the saved run too
        return run.pattern == "nodecomm" ? nodecomm_tables(run.model) : std::vector<Table>{};
    };
    info.pair_counts_option = "nodecomm-pairs"; // --pairs 1,2,4,8: 8 pairs started, k = 1, 2, 4, 8 measured
    info.models = {maxrate_model_kind()};
    info.fit = fit_nodecomm;
    info.fit_options = nodecomm_fit_options();
    info.fit_usage = "Usage: ngx fit nc.json [--nodecomm-regimes LIST] [-o refit.json]";
    return info;
}

} // namespace ngx::patterns

NGX_PATTERN_EXPORT(ngx::patterns::nodecomm_pattern)
