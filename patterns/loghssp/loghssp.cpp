// Pattern "loghssp": both tiers of LoGH{sS}P (Al-Tawil and Moritz 1998,
// section 3.3, eqs. 8-9) in one run. From the hosts of the ranks
// (ngx/rank_hosts.hpp: host names, or --host-of for emulated nodes) it picks
// an intra-node pair, the first two ranks a < b of the first host that has
// two (in rank order: ranks 0 and 1 under --map-by ppr:2:node), and an
// inter-node pair, a and the first rank c on another host (rank 0 only if
// there is no other); b and c drive (Figure 2's P1), a responds (P2). It
// measures each pair with the overhead measurement (ngx/measure/overhead_measure.hpp:
// Figure 2's barrier + delay, o_s and o_r per size, the half round trip),
// one pair after the other, never at once: the other ranks idle, taking
// part only in the relay steps that carry the pair's barriers and exchanges
// (pair_relay.hpp). The tiers are fitted from the two pairs' records exactly
// as `ngx fit --loghssp INTRA.json INTER.json` fits two saved overhead runs
// (models/loghssp/loghssp_offline.hpp, fit_tiers): s_s, s_r and S from the
// intra pair, o_s, o_r, L and G from the inter pair.
//
// Rank 0 reports: every size of both pairs as a record (the overhead
// columns, plus inter_node 0/1, the pair's ranks, and the model's
// prediction with its relative error), and the model: {"kind": "loghssp",
// "intra": {...}, "inter": {...}} as `ngx predict --params RUN.json --tier
// intra|inter -s SIZE` reads it, with the pairs, the hosts, the points and
// the prediction error over them.
#include <ngx/pattern_plugin.hpp>
#include <ngx/peer_links.hpp>
#include <ngx/rank_hosts.hpp>
#include <ngx/sizes.hpp>

#include <ngx/measure/overhead_measure.hpp>
#include <models/loghssp/loghssp_offline.hpp>
#include "pair_relay.hpp"
#include <models/loghssp/tier_report.hpp>

#include <cmath>

namespace ngx::patterns {
namespace {

// Where each tier's measurement reports: the driver of the pair keeps its
// records; messages and passes go on to the run's sink.
class TierSink final : public ResultSink {
public:
    explicit TierSink(ResultSink& run) : run_(run) {}
    void size_done(SizeRecord record) override { records.push_back(std::move(record)); }
    void set_model(Json) override {}
    void count_messages(uint64_t messages) override { run_.count_messages(messages); }
    void pass_done(uint64_t done, uint64_t planned) override { run_.pass_done(done, planned); }
    void set_measurement(Json measurement) override { this->measurement = std::move(measurement); }

    std::vector<SizeRecord> records;
    Json measurement;

private:
    ResultSink& run_;
};

Json record_json(const SizeRecord& r)
{
    Json percentiles = Json::array();
    for (const Percentile& p : r.summary.percentiles)
        percentiles.push_back({p.rank, p.value});
    Json extra = Json::array();
    for (const auto& [name, value] : r.extra)
        extra.push_back({name, json_number(value)});
    const Summary& s = r.summary;
    return {{"size", r.size_bytes},       {"count", s.count}, {"min", s.min},       {"max", s.max},
            {"median", s.median},         {"mean", s.mean},   {"stddev", s.stddev}, {"p99", s.p99},
            {"percentiles", percentiles}, {"raw", r.raw_us},  {"extra", extra}};
}

double number_or_nan(const Json& value)
{
    return value.is_number() ? value.get<double>() : std::nan("");
}

SizeRecord record_of(const Json& j)
{
    SizeRecord r;
    r.size_bytes = j.at("size").get<uint64_t>();
    Summary& s = r.summary;
    s.count = j.at("count").get<size_t>();
    s.min = j.at("min").get<double>(), s.max = j.at("max").get<double>();
    s.median = j.at("median").get<double>(), s.mean = j.at("mean").get<double>();
    s.stddev = j.at("stddev").get<double>(), s.p99 = j.at("p99").get<double>();
    for (const Json& p : j.at("percentiles"))
        s.percentiles.push_back({p.at(0).get<double>(), p.at(1).get<double>()});
    r.raw_us = j.at("raw").get<std::vector<double>>();
    for (const Json& e : j.at("extra"))
        r.extra.emplace_back(e.at(0).get<std::string>(), number_or_nan(e.at(1)));
    return r;
}

// The hosts and their ranks, for the refusals: "a (ranks 0, 1), b (rank 2)".
std::string hosts_seen(const RankHosts& hosts)
{
    std::string out;
    for (const std::string& node : hosts.nodes()) {
        std::string ranks;
        int count = 0;
        for (int rank = 0; rank < hosts.nranks(); ++rank)
            if (hosts.of(rank) == node)
                ranks += (count++ ? ", " : "") + std::to_string(rank);
        out += (out.empty() ? "" : ", ") + node + (count > 1 ? " (ranks " : " (rank ") + ranks + ")";
    }
    return out;
}

Result<TierPairs> choose_pairs(const RankHosts& hosts)
{
    const std::string need = "loghssp needs two ranks on one host (the intra-node pair) and two hosts (the "
                             "inter-node pair), at least 4 ranks (mpirun -np 4 --map-by ppr:2:node, or --pairs 2 "
                             "--host-of a,a,b,b)";
    const std::string seen = "; hosts seen: " + hosts_seen(hosts);
    if (hosts.nranks() < 4)
        return Status::usage(need + "; this run has " + std::to_string(hosts.nranks()) + " ranks" + seen);
    std::vector<std::string> nodes = hosts.nodes();
    if (nodes.size() < 2)
        return Status::usage(need + "; only one host" + seen);
    for (const std::string& node : nodes) {
        std::vector<int> on_node;
        for (int rank = 0; rank < hosts.nranks(); ++rank)
            if (hosts.of(rank) == node)
                on_node.push_back(rank);
        if (on_node.size() < 2)
            continue;
        // Rank 0 releases the relay steps; as a responder it enters its timed call right after each
        // step, while a driver busy-waits delta first, outside the library: under MPI (libnbc's rounds,
        // the tcp BTL) the others' release then waited for the driver's next call, and o_r held it.
        TierPairs pairs{{on_node[1], on_node[0]}, {-1, on_node[0]}};
        for (int rank = hosts.nranks() - 1; rank >= 0; --rank) // the first other-host rank, rank 0 last
            if (hosts.of(rank) != node && (pairs.inter.driver <= 0 || rank > 0))
                pairs.inter.driver = rank;
        return pairs;
    }
    return Status::usage(need + "; no host has two ranks" + seen);
}

constexpr OverheadRows loghssp_rows = overhead_rows("loghssp-call", "loghssp-delay");

class LogHssP final : public Pattern {
public:
    Status configure(const OptionValues& values) override
    {
        opt::Reader read(loghssp_rows.table("loghssp"), values);
        Result<OverheadSettings> settings = read_overhead_settings(read, loghssp_rows);
        if (!settings)
            return settings.status();
        settings_ = *settings;
        settings_.roots = RootChoice::responder; // rank 0 releases the relay steps (pair_relay.hpp), a responder
        return Status::ok();
    }
    Json options_json() const override
    {
        Json options = overhead_settings_json(settings_);
        options["barrier_root"] = "rank 0 (relay steps)";
        return options;
    }
    Status run(PatternContext& ctx) override;

private:
    Status measure_tier(PatternContext& ctx, PeerLinks& links, const Pair& pair, TierSink& sink) const;
    Status collect(PatternContext& ctx, const TierPairs& pairs, std::vector<TierSink*> sinks,
                   std::vector<std::vector<SizeRecord>>& records, Json& measurement) const;

    OverheadSettings settings_;
};

// One tier: the pair measures over its link, every other rank idles.
Status LogHssP::measure_tier(PatternContext& ctx, PeerLinks& links, const Pair& pair, TierSink& sink) const
{
    const int me = ctx.bootstrap.rank();
    if (me != pair.driver && me != pair.responder)
        return idle_while_pair_measures(ctx.bootstrap, pair.driver, pair.responder, ctx.settings.progress);
    PairRelay view(ctx.bootstrap, pair.driver, pair.responder);
    Status measured = links.use(me == pair.driver ? pair.responder : pair.driver);
    if (measured) {
        PatternContext tier{ctx.transport, view, ctx.timer, ctx.settings, sink, ctx.cancel};
        measured = measure_overhead(tier, settings_);
    }
    return view.finish(measured);
}

// Both tiers' records and measurements reach rank 0 (their drivers may be other ranks).
Status LogHssP::collect(PatternContext& ctx, const TierPairs& pairs, std::vector<TierSink*> sinks,
                        std::vector<std::vector<SizeRecord>>& records, Json& measurement) const
{
    const Pair* tier_pairs[] = {&pairs.intra, &pairs.inter};
    Json mine = Json::object();
    for (size_t tier = 0; tier < 2; ++tier) {
        if (tier_pairs[tier]->driver != ctx.bootstrap.rank())
            continue;
        Json list = Json::array();
        for (const SizeRecord& record : sinks[tier]->records)
            list.push_back(record_json(record));
        mine[tier_name(tier)] = {{"records", list}, {"measurement", sinks[tier]->measurement}};
    }
    std::vector<Bytes> all;
    NGX_TRY(ctx.bootstrap.gather(to_bytes(mine.dump()), all, "collecting the tiers"));
    if (ctx.bootstrap.rank() != 0)
        return Status::ok();
    records.assign(2, {});
    measurement = Json::object();
    for (const Bytes& blob : all) {
        Json part = Json::parse(to_string(blob), nullptr, false);
        if (part.is_discarded() || !part.is_object())
            return Status::runtime("collecting the tiers: a rank sent what is not JSON");
        try {
            for (size_t tier = 0; tier < 2; ++tier)
                if (part.contains(tier_name(tier))) {
                    for (const Json& record : part[tier_name(tier)].at("records"))
                        records[tier].push_back(record_of(record));
                    measurement[tier_name(tier)] = part[tier_name(tier)]["measurement"];
                }
        } catch (const Json::exception& e) {
            return Status::runtime(std::string("collecting the tiers: a record is incomplete: ") + e.what());
        }
    }
    for (size_t tier = 0; tier < 2; ++tier)
        if (records[tier].empty())
            return Status::runtime(std::string("collecting the tiers: no records of the ") + tier_name(tier) +
                                   "-node pair reached rank 0");
    return Status::ok();
}

Status LogHssP::run(PatternContext& ctx)
{
    if (settings_.nonblocking && !ctx.transport.has(NGX_CAP_NONBLOCKING))
        return Status::usage("--loghssp-call nonblocking: module " + ctx.transport.module().name() +
                             " has no non-blocking operations");
    NGX_ASSIGN_OR_RETURN(RankHosts hosts, hosts_of_run(ctx.bootstrap, ctx.settings.host_of));
    NGX_ASSIGN_OR_RETURN(TierPairs pairs, choose_pairs(hosts));
    const int nranks = ctx.bootstrap.nranks();
    std::vector<Round> rounds(2);
    rounds[0].transfers = {Transfer{pairs.intra.driver, pairs.intra.responder}};
    rounds[1].transfers = {Transfer{pairs.inter.driver, pairs.inter.responder}};
    NGX_TRY(PeerLinks::check_module(ctx.transport.module(), LayoutKind::one_at_a_time, rounds, nranks));
    NGX_ASSIGN_OR_RETURN(PeerLinks links, PeerLinks::create(ctx.transport, ctx.bootstrap, LayoutKind::one_at_a_time));
    TierSink intra(ctx.sink), inter(ctx.sink);
    const Pair* tier_pairs[] = {&pairs.intra, &pairs.inter};
    TierSink* sinks[] = {&intra, &inter};
    for (size_t tier = 0; tier < 2; ++tier) {
        mark_step(ctx.settings.progress, tier == 0 ? "loghssp: intra-node pair" : "loghssp: inter-node pair");
        NGX_TRY(links.open_for(rounds[tier])
                    .with_context(std::string("opening the ") + tier_name(tier) + "-node pair's link"));
        NGX_TRY(measure_tier(ctx, links, *tier_pairs[tier], *sinks[tier])
                    .with_context(std::string(tier_name(tier)) + "-node pair, ranks " +
                                  std::to_string(tier_pairs[tier]->driver) + " and " +
                                  std::to_string(tier_pairs[tier]->responder)));
    }
    std::vector<std::vector<SizeRecord>> records;
    Json measurement;
    NGX_TRY(collect(ctx, pairs, {&intra, &inter}, records, measurement));
    if (ctx.bootstrap.rank() != 0)
        return Status::ok();
    TierFit fitted = fit_both_tiers(hosts, pairs, records);
    for (SizeRecord& record : fitted.records)
        ctx.sink.size_done(std::move(record));
    ctx.sink.set_measurement(merge_measurements(measurement));
    ctx.sink.set_model(std::move(fitted.model));
    return Status::ok();
}

} // namespace

PatternInfo loghssp_pattern()
{
    PatternInfo info;
    info.name = "loghssp";
    info.description = "LoGH{sS}P in one run: o_s, o_r per size of an intra-node pair and of an inter-node pair "
                       "(from the ranks' hosts; --host-of for emulated nodes), both tiers fitted (Al-Tawil and "
                       "Moritz 1998 eqs. 8-9); P >= 4, modules with per-peer links";
    info.metric = "send overhead o_s";
    info.default_sizes = "1,1Ki,4Ki,16Ki,64Ki";
    info.default_count = 200;
    info.default_warmup = 20;
    info.options = loghssp_rows.table("loghssp").specs();
    info.create = [] { return std::make_unique<LogHssP>(); };
    info.models = {loghssp_model_kind()};
    info.run_tables = tier_tables;
    info.ranks = RankGrouping::group;
    info.layouts = {LayoutKind::one_at_a_time};
    return info;
}

} // namespace ngx::patterns

NGX_PATTERN_EXPORT(ngx::patterns::loghssp_pattern)
