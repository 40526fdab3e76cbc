// Comparison of runs (see comparison.hpp). Works on the JSON form of runs so
// that live runs and saved files go through the same code.
#include "comparison.hpp"
#include "map_comparison.hpp"

#include <ngx/reporter.hpp>

#include <algorithm>
#include <cmath>
#include <map>

namespace ngx {
namespace {

// size_bytes -> median_us of one run's results.
std::map<uint64_t, double> medians_of(const Json& run)
{
    std::map<uint64_t, double> medians;
    if (!run.contains("results") || !run["results"].is_array())
        return medians;
    for (const Json& size : run["results"])
        if (size.contains("size_bytes") && size.contains("median_us") && size["median_us"].is_number())
            medians[size["size_bytes"].get<uint64_t>()] = size["median_us"].get<double>();
    return medians;
}

// One value of a size row: median, and for runs after the first the
// difference and ratio to the baseline.
Json size_entry(const std::string& label, const std::map<uint64_t, double>& medians, uint64_t size, double baseline,
                bool is_baseline)
{
    Json entry = {{"label", label}};
    auto found = medians.find(size);
    double median = found == medians.end() ? NAN : found->second;
    entry["median_us"] = json_number(median);
    if (!is_baseline) {
        entry["diff_us"] = json_number(median - baseline);
        entry["ratio"] = json_number(baseline > 0 ? median / baseline : NAN);
    }
    return entry;
}

Json compare_sizes(const std::vector<ComparedRun>& runs)
{
    std::vector<std::map<uint64_t, double>> medians;
    for (const ComparedRun& run : runs)
        medians.push_back(medians_of(run.run));
    Json sizes = Json::array();
    for (const auto& [size, baseline] : medians.front()) {
        Json row = {{"size_bytes", size}, {"values", Json::array()}};
        for (size_t i = 0; i < runs.size(); ++i)
            row["values"].push_back(size_entry(runs[i].label, medians[i], size, baseline, i == 0));
        sizes.push_back(row);
    }
    return sizes;
}

// A model's parameters: numbers named with a unit (_us, _per_byte, _bytes)
// or {"value": ...} objects; the range limits are not parameters.
std::map<std::string, double> parameters_of(const Json& object)
{
    std::map<std::string, double> parameters;
    if (!object.is_object())
        return parameters;
    for (const auto& [key, value] : object.items()) {
        if (key == "from_bytes" || key == "to_bytes")
            continue;
        if (value.is_object() && value.contains("value") && value["value"].is_number())
            parameters[key] = value["value"].get<double>();
        else if (value.is_number() && (key.ends_with("_us") || key.ends_with("_per_byte") || key.ends_with("_bytes")))
            parameters[key] = value.get<double>();
    }
    return parameters;
}

// Every yes/no property of each run's object the baseline has (loggp's
// `overlapped`: which form of eq. (1) a range took), side by side.
Json compare_flags(const std::vector<const Json*>& objects, const std::vector<ComparedRun>& runs)
{
    Json flags = Json::object();
    if (objects.front() == nullptr || !objects.front()->is_object())
        return flags;
    for (const auto& [name, base_value] : objects.front()->items()) {
        if (!base_value.is_boolean())
            continue;
        Json values = Json::array();
        for (size_t i = 0; i < runs.size(); ++i) {
            const Json* theirs = objects[i];
            bool known = theirs != nullptr && theirs->contains(name) && (*theirs)[name].is_boolean();
            values.push_back({{"label", runs[i].label}, {"value", known ? (*theirs)[name] : Json(nullptr)}});
        }
        flags[name] = values;
    }
    return flags;
}

double limit(const Json& range, const char* key)
{
    return range.contains(key) && range[key].is_number() ? range[key].get<double>() : NAN;
}

// A range's end; an open one (to_bytes null, e.g. nodecomm's last regime) has none.
double upper_limit(const Json& range)
{
    double to = limit(range, "to_bytes");
    return std::isnan(to) ? INFINITY : to;
}

// The range of `ranges` that overlaps [from, to] most (ranges are matched by
// the sizes they cover, not by position); nullptr when none overlaps.
const Json* matching_range(const Json* ranges, double from, double to)
{
    const Json* best = nullptr;
    double best_overlap = -1;
    if (ranges == nullptr)
        return nullptr;
    for (const Json& range : *ranges) {
        double overlap = std::min(to, upper_limit(range)) - std::max(from, limit(range, "from_bytes"));
        if (overlap >= 0 && overlap > best_overlap) {
            best = &range;
            best_overlap = overlap;
        }
    }
    return best;
}

// Every parameter the baseline has, for each run: value and difference.
Json compare_parameters(const std::vector<const Json*>& objects, const std::vector<ComparedRun>& runs)
{
    if (objects.front() == nullptr) // the baseline has nothing to compare with
        return Json::object();
    std::map<std::string, double> base = parameters_of(*objects.front());
    Json parameters = Json::object();
    for (const auto& [name, base_value] : base) {
        Json values = Json::array();
        size_t shared = 0;
        for (size_t i = 0; i < runs.size(); ++i) {
            std::map<std::string, double> theirs =
                objects[i] != nullptr ? parameters_of(*objects[i]) : std::map<std::string, double>{};
            auto found = theirs.find(name);
            double value = found == theirs.end() ? NAN : found->second;
            shared += found != theirs.end();
            Json entry = {{"label", runs[i].label}, {"value", json_number(value)}};
            if (i > 0)
                entry["diff"] = json_number(value - base_value);
            values.push_back(entry);
        }
        if (shared > 1)
            parameters[name] = values;
    }
    return parameters;
}

// Per protocol range of the baseline (or the whole model when it has no
// ranges), every parameter two runs share and its difference to the baseline's.
Json compare_models(const std::vector<ComparedRun>& runs)
{
    const Json& first = runs.front().run;
    if (!first.contains("model") || !first["model"].is_object())
        return nullptr;
    std::vector<const Json*> models;
    for (const ComparedRun& run : runs)
        models.push_back(run.run.contains("model") ? &run.run["model"] : nullptr);
    Json rows = Json::array();
    Json overall = compare_parameters(models, runs);
    if (!overall.empty())
        rows.push_back({{"range", "model"}, {"parameters", overall}});
    const Json* baseline = ranges_of(first);
    for (size_t r = 0; baseline != nullptr && r < baseline->size(); ++r) {
        const Json& base = (*baseline)[r];
        double from = limit(base, "from_bytes"), to = upper_limit(base);
        std::vector<const Json*> matched;
        for (const ComparedRun& run : runs)
            matched.push_back(matching_range(ranges_of(run.run), from, to));
        rows.push_back({{"range", r},
                        {"from_bytes", base.value("from_bytes", Json(nullptr))},
                        {"to_bytes", base.value("to_bytes", Json(nullptr))},
                        {"parameters", compare_parameters(matched, runs)},
                        {"flags", compare_flags(matched, runs)}});
    }
    return rows;
}

} // namespace

const Json* ranges_of(const Json& run)
{
    if (run.contains("model") && run["model"].is_object() && run["model"].contains("ranges") &&
        run["model"]["ranges"].is_array())
        return &run["model"]["ranges"];
    return nullptr;
}

Json compare_runs(const std::vector<ComparedRun>& runs)
{
    if (runs.empty())
        return nullptr;
    Json labels = Json::array();
    for (const ComparedRun& run : runs)
        labels.push_back(run.label);
    const Json& first = runs.front().run;
    Json comparison = {
        {"baseline", runs.front().label},      {"labels", labels}, {"pattern", first.value("pattern", "")},
        {"metric", first.value("metric", "")}, {"unit", "us"},     {"sizes", compare_sizes(runs)}};
    Json model = compare_models(runs);
    if (!model.is_null())
        comparison["model"] = model;
    if (check_maps(runs))
        if (Json maps = compare_maps(runs); !maps.is_null())
            comparison["allpairs"] = maps;
    return comparison;
}

std::vector<ComparedRun> compared_runs(const Document& document)
{
    std::vector<ComparedRun> runs;
    std::map<std::string, int> seen;
    for (const RunRecord& record : document.runs) {
        std::string label = record.module + (record.variant.empty() ? "" : "[" + record.variant + "]");
        int count = ++seen[label];
        if (count > 1)
            label.append("#").append(std::to_string(count));
        runs.push_back({label, to_json(record, false)});
    }
    return runs;
}

} // namespace ngx
