// Both tiers fitted, and their tables (see tier_report.hpp).
#include <models/loghssp/tier_report.hpp>

#include <models/loghssp/loghssp_offline.hpp>

#include <models/loghssp/loghssp.hpp>

#include <algorithm>
#include <cmath>

namespace ngx::patterns {
namespace {

double column(const SizeRecord& record, const char* name)
{
    for (const auto& [key, value] : record.extra)
        if (key == name)
            return value;
    return std::nan("");
}

// Al-Tawil and Moritz 1998, eq. (8) for the intra tier, eq. (9) for the inter tier.
double predicted_us(const fit::Tiers& tiers, size_t tier, uint64_t size)
{
    return tier == 0 ? fit::intra_time(tiers.intra, size) : fit::inter_time(tiers.inter, size);
}

Json pair_json(const RankHosts& hosts, const Pair& pair)
{
    return {{"ranks", {pair.driver, pair.responder}}, {"hosts", {hosts.of(pair.driver), hosts.of(pair.responder)}}};
}

struct ErrorTally {
    double max = 0, sum = 0;
    size_t count = 0;
    void add(double relative)
    {
        max = std::max(max, std::abs(relative));
        sum += std::abs(relative);
        ++count;
    }
    Json json() const { return {{"max_relative", max}, {"mean_relative", count ? sum / double(count) : 0.0}}; }
};

// One tier's points: the measured end-to-end time (the minimum half round
// trip, as the fit reads it), the prediction and its error, the o_s median
// with its 95% interval and the o_r median; the record gains the prediction.
Json tier_points(const fit::Tiers& tiers, size_t tier, const Pair& pair, std::vector<SizeRecord>& records,
                 ErrorTally& tally, ErrorTally& overall)
{
    Json points = Json::array();
    for (SizeRecord& record : records) {
        OverheadPoint point = overhead_point(record);
        double predicted = predicted_us(tiers, tier, point.size);
        double error = point.half_rtt > 0 ? (predicted - point.half_rtt) / point.half_rtt : 0.0;
        tally.add(error);
        overall.add(error);
        points.push_back(
            {{"size_bytes", point.size},
             {"o_s_us", record.summary.median},
             {"o_s_ci95_us",
              {json_number(column(record, "median_ci95_lo_us")), json_number(column(record, "median_ci95_hi_us"))}},
             {"o_r_us", json_number(column(record, "o_r_us"))},
             {"measured_us", point.half_rtt},
             {"predicted_us", predicted},
             {"relative_error", error}});
        record.extra.emplace_back("inter_node", double(tier));
        record.extra.emplace_back("driver_rank", double(pair.driver));
        record.extra.emplace_back("responder_rank", double(pair.responder));
        record.extra.emplace_back("predicted_us", predicted);
        record.extra.emplace_back("relative_error", error);
    }
    return points;
}

std::string pair_text(const Json& pair)
{
    const Json& ranks = pair["ranks"];
    const Json& hosts = pair["hosts"];
    return "ranks " + ranks[0].dump() + " (" + hosts[0].get<std::string>() + ") and " + ranks[1].dump() + " (" +
           hosts[1].get<std::string>() + ")";
}

// Each tier's points: o_s with its 95% interval, o_r, and the end-to-end
// time measured and by eq. (8) or (9).
Table points_table(const Json& model)
{
    Table table{.title = "each tier's points: o_s [95% interval], o_r, T_s-r measured (minimum half round trip) "
                         "and by eq. (8) intra or eq. (9) inter",
                .columns = {{"tier", false},
                            {"size_bytes", true},
                            {"o_s_us", true, "-"},
                            {"o_s_ci95_low_us", true, "-"},
                            {"o_s_ci95_high_us", true, "-"},
                            {"o_r_us", true, "-"},
                            {"measured_us", true, "-"},
                            {"predicted_us", true, "-"},
                            {"relative_error", true, "-"}}};
    for (const char* tier : {"intra", "inter"})
        for (const Json& p : model["points"].value(tier, Json::array())) {
            const Json ci = p.value("o_s_ci95_us", Json::array());
            const bool interval = ci.is_array() && ci.size() == 2;
            table.rows.push_back({tier, p.value("size_bytes", Json()), p.value("o_s_us", Json()),
                                  interval ? ci[0] : Json(), interval ? ci[1] : Json(), p.value("o_r_us", Json()),
                                  p.value("measured_us", Json()), p.value("predicted_us", Json()),
                                  p.value("relative_error", Json())});
        }
    return table;
}

// The prediction errors per tier and over both.
Table error_table(const Json& error)
{
    Table table{.title = "prediction error (eq. 8 intra, eq. 9 inter, against the minimum half round trip)",
                .columns = {{"tier", false}, {"max_relative", true, "-"}, {"mean_relative", true, "-"}}};
    for (const char* tier : {"intra", "inter"}) {
        const Json of = error.value(tier, Json::object());
        table.rows.push_back({tier, of.value("max_relative", Json()), of.value("mean_relative", Json())});
    }
    table.rows.push_back({"both", error.value("max_relative", Json()), error.value("mean_relative", Json())});
    return table;
}

} // namespace

const char* tier_name(size_t tier)
{
    return tier == 0 ? "intra" : "inter";
}

TierFit fit_both_tiers(const RankHosts& hosts, const TierPairs& pairs, std::vector<std::vector<SizeRecord>> records)
{
    OverheadRun runs[2];
    for (size_t tier = 0; tier < 2; ++tier) {
        std::sort(records[tier].begin(), records[tier].end(),
                  [](const SizeRecord& a, const SizeRecord& b) { return a.size_bytes < b.size_bytes; });
        runs[tier].label = tier_name(tier);
        for (const SizeRecord& record : records[tier])
            runs[tier].points.push_back(overhead_point(record));
    }
    fit::Tiers tiers = fit_tiers(runs[0], runs[1]);
    const Pair* tier_pairs[] = {&pairs.intra, &pairs.inter};
    ErrorTally tallies[2], overall;
    Json points = Json::object();
    for (size_t tier = 0; tier < 2; ++tier)
        points[tier_name(tier)] = tier_points(tiers, tier, *tier_pairs[tier], records[tier], tallies[tier], overall);
    Json error = overall.json();
    error["intra"] = tallies[0].json();
    error["inter"] = tallies[1].json();
    double overheads = (tiers.inter.o_s + tiers.inter.o_r) / std::max(1e-9, tiers.intra.s_s + tiers.intra.s_r);
    Json model{{"kind", "loghssp"}};
    model.update(tiers_json(tiers));
    model["pairs"] = {{"intra", pair_json(hosts, pairs.intra)}, {"inter", pair_json(hosts, pairs.inter)}};
    model["hosts"] = hosts.by_rank();
    model["points"] = points;
    model["prediction_error"] = error;
    model["ratio"] = {{"overheads", overheads},
                      {"gap_per_byte", tiers.intra.S > 0 ? tiers.inter.G / tiers.intra.S : 0.0}};
    TierFit fitted;
    fitted.model = std::move(model);
    for (std::vector<SizeRecord>& tier : records)
        for (SizeRecord& record : tier)
            fitted.records.push_back(std::move(record));
    return fitted;
}

Json merge_measurements(const Json& tiers)
{
    const Json& intra = tiers.value("intra", Json::object());
    const Json& inter = tiers.value("inter", Json::object());
    if (!intra.is_object() || !inter.is_object())
        return {{"tiers", tiers}};
    Json merged = intra;
    merged["extra_passes"] = intra.value("extra_passes", 0) + inter.value("extra_passes", 0);
    for (const char* key : {"remeasured_bytes", "wide_bytes", "schedule", "bimodal"}) {
        Json both = Json::array();
        for (const Json* tier : {&intra, &inter})
            if (tier->contains(key) && (*tier)[key].is_array())
                for (const Json& item : (*tier)[key])
                    if (std::string(key) == "schedule" || std::string(key) == "bimodal" ||
                        std::find(both.begin(), both.end(), item) == both.end())
                        both.push_back(item);
        merged[key] = both;
    }
    merged["tiers"] = tiers;
    return merged;
}

std::vector<Table> tier_tables(const RunRecord& run)
{
    const Json& model = run.model;
    if (run.pattern != "loghssp" || !model.is_object() || !model.contains("points") || !model.contains("pairs") ||
        !model.contains("prediction_error") || !model.contains("ratio"))
        return {};
    return {tier_parameters_table(model, {"intra-node: " + pair_text(model["pairs"]["intra"]),
                                          "inter-node: " + pair_text(model["pairs"]["inter"]),
                                          "both tiers from this run; minima of the samples"}),
            points_table(model), error_table(model["prediction_error"]), tier_ratio_table(model["ratio"])};
}

} // namespace ngx::patterns
