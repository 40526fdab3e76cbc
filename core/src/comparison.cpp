// Comparison of runs (see comparison.hpp). Works on the JSON form of runs so
// that live runs and saved files go through the same code.
#include <ngx/comparison.hpp>

#include <ngx/reporter.hpp>
#include <ngx/sizes.hpp>

#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

namespace ngx {
namespace {

const char* const loggp_parameters[] = {"L_us", "o_us", "g_us", "G_us_per_byte"};

Json number_or_null(double value)
{
    return std::isfinite(value) ? Json(value) : Json(nullptr);
}

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
    entry["median_us"] = number_or_null(median);
    if (!is_baseline) {
        entry["diff_us"] = number_or_null(median - baseline);
        entry["ratio"] = number_or_null(baseline > 0 ? median / baseline : NAN);
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

const Json* ranges_of(const Json& run)
{
    if (run.contains("model") && run["model"].is_object() && run["model"].contains("ranges") &&
        run["model"]["ranges"].is_array())
        return &run["model"]["ranges"];
    return nullptr;
}

double field(const Json& object, const char* name)
{
    return object.contains(name) && object[name].is_number() ? object[name].get<double>() : NAN;
}

// Per protocol range (matched by position), each LogGP parameter of every
// run and its difference to the baseline's.
Json compare_models(const std::vector<ComparedRun>& runs)
{
    const Json* baseline = ranges_of(runs.front().run);
    if (baseline == nullptr)
        return nullptr;
    Json ranges = Json::array();
    for (size_t r = 0; r < baseline->size(); ++r) {
        const Json& base = (*baseline)[r];
        Json row = {{"range", r},
                    {"from_bytes", base.value("from_bytes", Json(nullptr))},
                    {"to_bytes", base.value("to_bytes", Json(nullptr))},
                    {"parameters", Json::object()}};
        for (const char* parameter : loggp_parameters) {
            Json values = Json::array();
            for (size_t i = 0; i < runs.size(); ++i) {
                const Json* theirs = ranges_of(runs[i].run);
                double value = theirs != nullptr && r < theirs->size() ? field((*theirs)[r], parameter) : NAN;
                Json entry = {{"label", runs[i].label}, {"value", number_or_null(value)}};
                if (i > 0)
                    entry["diff"] = number_or_null(value - field(base, parameter));
                values.push_back(entry);
            }
            row["parameters"][parameter] = values;
        }
        ranges.push_back(row);
    }
    return ranges;
}

std::string cell(const Json& value, int width, int precision)
{
    std::ostringstream out;
    if (value.is_number())
        out << std::setw(width) << std::fixed << std::setprecision(precision) << value.get<double>();
    else
        out << std::setw(width) << "-";
    return out.str();
}

void print_size_rows(std::ostringstream& out, const Json& comparison)
{
    out << std::setw(10) << "size";
    const Json& labels = comparison["labels"];
    std::vector<int> widths;
    for (size_t i = 0; i < labels.size(); ++i) {
        std::string label = labels[i].get<std::string>();
        widths.push_back(std::max(12, int(label.size())));
        out << "  " << std::setw(widths.back()) << label;
        if (i > 0)
            out << std::setw(11) << "diff" << std::setw(8) << "ratio";
    }
    out << "\n";
    for (const Json& row : comparison["sizes"]) {
        out << std::setw(10) << format_bytes(row["size_bytes"].get<uint64_t>());
        const Json& values = row["values"];
        for (size_t i = 0; i < values.size(); ++i) {
            out << "  " << cell(values[i]["median_us"], i < widths.size() ? widths[i] : 12, 3);
            if (i > 0)
                out << cell(values[i]["diff_us"], 11, 3) << cell(values[i]["ratio"], 8, 3);
        }
        out << "\n";
    }
}

void print_model_rows(std::ostringstream& out, const Json& comparison)
{
    if (!comparison.contains("model") || comparison["model"].is_null())
        return;
    out << "# fitted LogGP parameters per range: value (difference to " << comparison["baseline"].get<std::string>()
        << ")\n";
    for (const Json& range : comparison["model"]) {
        out << "range " << range["range"].get<size_t>() << " from " << range["from_bytes"].dump() << " to "
            << range["to_bytes"].dump() << " bytes\n";
        for (const auto& [parameter, values] : range["parameters"].items()) {
            out << "  " << std::setw(14) << parameter;
            for (const Json& value : values) {
                out << "  " << value["label"].get<std::string>() << " " << cell(value["value"], 0, 4);
                if (value.contains("diff"))
                    out << " (" << cell(value["diff"], 0, 4) << ")";
            }
            out << "\n";
        }
    }
}

} // namespace

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
    return comparison;
}

std::string comparison_table(const Json& comparison)
{
    std::ostringstream out;
    out << "# comparison: " << comparison["pattern"].get<std::string>() << ", median "
        << comparison["metric"].get<std::string>() << " in microseconds; diff and ratio to "
        << comparison["baseline"].get<std::string>() << "\n";
    print_size_rows(out, comparison);
    print_model_rows(out, comparison);
    return out.str();
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
