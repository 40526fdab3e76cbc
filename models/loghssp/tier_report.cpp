// Both tiers fitted and printed (see tier_report.hpp).
#include <models/loghssp/tier_report.hpp>

#include <models/loghssp/loghssp_offline.hpp>

#include <models/loghssp/loghssp.hpp>
#include <ngx/sizes.hpp>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>

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

std::string number(double value, int precision)
{
    std::ostringstream out;
    out << std::fixed << std::setprecision(precision) << value;
    return out.str();
}

double get(const Json& object, const char* key)
{
    return object.contains(key) && object[key].is_number() ? object[key].get<double>() : std::nan("");
}

std::string pair_line(const Json& pair)
{
    const Json& ranks = pair["ranks"];
    const Json& hosts = pair["hosts"];
    return "ranks " + ranks[0].dump() + " (" + hosts[0].get<std::string>() + ") and " + ranks[1].dump() + " (" +
           hosts[1].get<std::string>() + ")";
}

// The tiers, the points with their predictions, the errors and the ratio.
std::string tiers_text(const Json& model)
{
    const Json &intra = model["intra"], &inter = model["inter"];
    std::ostringstream out;
    out << "# LoGH{sS}P (Al-Tawil and Moritz 1998 eqs. 8-9), both tiers from this run; minima of the samples\n"
        << "# intra-node, " << pair_line(model["pairs"]["intra"]) << ": s_s " << number(get(intra, "s_s_us"), 3)
        << " us, s_r " << number(get(intra, "s_r_us"), 3) << " us, S " << number(get(intra, "S_us_per_byte"), 6)
        << " us/byte\n"
        << "# inter-node, " << pair_line(model["pairs"]["inter"]) << ": o_s " << number(get(inter, "o_s_us"), 3)
        << " us, o_r " << number(get(inter, "o_r_us"), 3) << " us, L " << number(get(inter, "L_us"), 3) << " us, G "
        << number(get(inter, "G_us_per_byte"), 6) << " us/byte\n";
    out << "# tier       size   o_s_us [95% interval]        o_r_us   T_s-r_meas   T_s-r_eq    error\n";
    for (const char* tier : {"intra", "inter"})
        for (const Json& p : model["points"][tier]) {
            const Json& ci = p["o_s_ci95_us"];
            std::string interval =
                ci[0].is_number() ? "[" + number(ci[0].get<double>(), 3) + ", " + number(ci[1].get<double>(), 3) + "]"
                                  : "[n/a]";
            out << std::left << std::setw(7) << tier << std::right << std::setw(10)
                << format_bytes(p["size_bytes"].get<uint64_t>()) << std::setw(9) << number(get(p, "o_s_us"), 3) << " "
                << std::left << std::setw(20) << interval << std::right << std::setw(8) << number(get(p, "o_r_us"), 3)
                << std::setw(13) << number(get(p, "measured_us"), 3) << std::setw(11)
                << number(get(p, "predicted_us"), 3) << std::setw(8) << number(100 * get(p, "relative_error"), 1)
                << "%\n";
        }
    const Json& error = model["prediction_error"];
    out << "# prediction error (eq. 8 intra, eq. 9 inter, against the minimum half round trip): intra max "
        << number(100 * get(error["intra"], "max_relative"), 1) << "%, mean "
        << number(100 * get(error["intra"], "mean_relative"), 1) << "%; inter max "
        << number(100 * get(error["inter"], "max_relative"), 1) << "%, mean "
        << number(100 * get(error["inter"], "mean_relative"), 1) << "%\n"
        << "# ratio inter/intra: overheads (o_s+o_r)/(s_s+s_r) " << number(get(model["ratio"], "overheads"), 2)
        << ", gap per byte G/S " << number(get(model["ratio"], "gap_per_byte"), 2) << "\n";
    return out.str();
}

class TierTable final : public Reporter {
public:
    void run_finished(const RunRecord& run) override
    {
        const Json& model = run.model;
        if (run.pattern != "loghssp" || !model.is_object() || !model.contains("points") || !model.contains("pairs") ||
            !model.contains("prediction_error") || !model.contains("ratio"))
            return;
        std::cout << tiers_text(model) << std::flush;
    }
};

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

std::vector<std::unique_ptr<Reporter>> tier_reporters()
{
    std::vector<std::unique_ptr<Reporter>> reporters;
    reporters.push_back(std::make_unique<TierTable>());
    return reporters;
}

} // namespace ngx::patterns
