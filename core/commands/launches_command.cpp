// `ngx launches`: the between-launch summary (see launches_command.hpp).
#include "launches_command.hpp"

#include "comparison.hpp"
#include "saved_runs.hpp"
#include <ngx/command_line.hpp>
#include <models/base/student_t.hpp>
#include <ngx/output_file.hpp>
#include <ngx/sizes.hpp>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <limits>
#include <set>
#include <sstream>

namespace ngx {
namespace {

constexpr const char* usage_text =
    "usage: ngx launches FILE.json FILE.json ... [-o OUT.json] [--json]\n"
    "Summarises K saved launches of the same measurement (ngx --launches K makes them): per size the\n"
    "median of each launch, per fitted parameter its value in each launch, each with a 95% interval\n"
    "over the K launch values (Student t): of the mean over launches, and for the next launch.\n";

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

int fail_with(const Status& status)
{
    std::cerr << "ngx launches: " << status.message() << "\n";
    return exit_code(status);
}

constexpr auto files_row = opt::row::repeatable(opt::row::text("file", opt::no_default, "one saved launch (JSON)"));
constexpr auto output_row = opt::row::output_file("output,o", "write the summary and every launch's document (JSON)");
constexpr auto json_row = opt::row::flag("json", "print the summary as JSON instead of the table");
constexpr auto help_row = opt::row::flag("help,h", "show this help");

opt::Table launches_table()
{
    return opt::Table("ngx launches", {files_row, output_row, json_row, help_row});
}

Json number_or_null(double value)
{
    return std::isfinite(value) ? Json(value) : Json(nullptr);
}

Json spread_json(const std::vector<double>& values)
{
    LaunchSpread s = launch_spread(values);
    return {{"values", values},
            {"mean", number_or_null(s.mean)},
            {"sd", number_or_null(s.sd)},
            {"ci95", {number_or_null(s.ci_low), number_or_null(s.ci_high)}},
            {"next_launch95", {number_or_null(s.next_low), number_or_null(s.next_high)}},
            {"spread_relative", number_or_null(s.spread)}};
}

// The widest within-launch interval of a size, relative to its median: what a single launch claimed.
double within_width(const Json& result)
{
    double lo = result.value("median_ci95_lo_us", nan), hi = result.value("median_ci95_hi_us", nan);
    double median = result.value("median_us", nan);
    return (hi - lo) / std::fabs(median);
}

// The last result of the size, as compare and check take it (the reader
// notes a size measured more than once).
const Json* result_of(const Json& run, uint64_t size)
{
    const Json* last = nullptr;
    for (const Json& result : run["results"])
        if (result.value("size_bytes", uint64_t(0)) == size)
            last = &result;
    return last;
}

// Per size of the first launch's run: the medians of every launch that has the size.
Json sizes_between(const std::vector<const Json*>& runs)
{
    Json sizes = Json::array();
    std::set<uint64_t> done; // a size measured twice: once, its last result
    for (const Json& first : (*runs.front())["results"]) {
        uint64_t size = first.value("size_bytes", uint64_t(0));
        if (!done.insert(size).second)
            continue;
        std::vector<double> medians;
        double widest_within = 0;
        for (const Json* run : runs)
            if (const Json* result = result_of(*run, size);
                result && result->value("median_us", nan) == result->value("median_us", nan)) {
                medians.push_back(result->value("median_us", nan));
                widest_within = std::max(widest_within, within_width(*result));
            }
        Json entry = spread_json(medians);
        entry["size_bytes"] = size;
        entry["within_launch_rel_ci95_widest"] = number_or_null(widest_within);
        sizes.push_back(std::move(entry));
    }
    return sizes;
}

const Json* range_from(const Json* ranges, const Json& like)
{
    if (ranges == nullptr)
        return nullptr;
    for (const Json& range : *ranges)
        if (range.value("from_bytes", Json()) == like.value("from_bytes", Json()) &&
            range.value("to_bytes", Json()) == like.value("to_bytes", Json()))
            return &range;
    return nullptr;
}

// Per fitted range of the first launch (model.ranges) and per parameter it
// states an interval for: the value of every launch that fitted the same range.
Json parameters_between(const std::vector<const Json*>& runs)
{
    Json parameters = Json::array();
    const Json* first = ranges_of(*runs.front());
    if (first == nullptr)
        return parameters;
    for (const Json& range : *first) {
        if (!range.contains("intervals") || !range["intervals"].is_object())
            continue;
        for (const auto& [name, interval] : range["intervals"].items()) {
            std::vector<double> values;
            for (const Json* run : runs)
                if (const Json* same = range_from(ranges_of(*run), range); same && (*same)[name].is_number())
                    values.push_back((*same)[name].get<double>());
            Json entry = spread_json(values);
            entry["name"] = name;
            entry["from_bytes"] = range.value("from_bytes", Json());
            entry["to_bytes"] = range.value("to_bytes", Json());
            entry["within_launch_ci95_first"] = interval.value("ci95", Json());
            parameters.push_back(std::move(entry));
        }
    }
    return parameters;
}

// The CPUs each rank ran on, from a document's context.
Json cpus_of(const Json& document)
{
    Json cpus = Json::array();
    const Json* context = document.contains("context") ? &document["context"] : &document; // one run: on top
    if (context != nullptr && context->contains("placement") && (*context)["placement"].is_array())
        for (const Json& rank : (*context)["placement"])
            cpus.push_back(rank.value("running_on_cpu", Json()));
    return cpus;
}

std::string run_name(const Json& run)
{
    return run.value("module", std::string("?")) + " " + run.value("pattern", std::string("?"));
}

Status check_alike(const std::vector<SavedFile>& files)
{
    const SavedFile& first = files.front();
    for (const SavedFile& file : files) {
        if (file.runs.size() != first.runs.size())
            return Status::usage(file.path + " holds " + std::to_string(file.runs.size()) + " runs, " + first.path +
                                 " " + std::to_string(first.runs.size()) + ": not launches of one measurement");
        for (size_t r = 0; r < file.runs.size(); ++r)
            if (run_name(file.runs[r].run) != run_name(first.runs[r].run))
                return Status::usage(file.path + ": run " + std::to_string(r + 1) + " is " +
                                     run_name(file.runs[r].run) + ", in " + first.path + " " +
                                     run_name(first.runs[r].run) + ": not launches of one measurement");
    }
    return Status::ok();
}

// "[0.269, 0.274]": fixed decimals for times (precision > 0), 4 significant digits for parameters (0).
std::string interval_text(const Json& pair, int precision)
{
    std::ostringstream out;
    if (!pair[0].is_number() || !pair[1].is_number())
        return "-";
    if (precision > 0)
        out << std::fixed << std::setprecision(precision);
    else
        out << std::setprecision(4);
    out << "[" << pair[0].get<double>() << ", " << pair[1].get<double>() << "]";
    return out.str();
}

std::string percent_text(const Json& value)
{
    std::ostringstream out;
    if (!value.is_number())
        return "-";
    out << std::fixed << std::setprecision(1) << 100 * value.get<double>() << "%";
    return out.str();
}

void size_rows(std::ostringstream& out, const Json& sizes)
{
    out << std::setw(10) << "size" << std::setw(12) << "mean" << std::setw(26) << "95% CI of the mean" << std::setw(26)
        << "next launch 95%" << std::setw(9) << "spread" << std::setw(13) << "1 launch ci"
        << "\n";
    for (const Json& size : sizes)
        out << std::setw(10) << format_bytes(size["size_bytes"].get<uint64_t>()) << std::setw(12) << std::fixed
            << std::setprecision(3) << size.value("mean", nan) << std::setw(26) << interval_text(size["ci95"], 3)
            << std::setw(26) << interval_text(size["next_launch95"], 3) << std::setw(9)
            << percent_text(size["spread_relative"]) << std::setw(13)
            << percent_text(size["within_launch_rel_ci95_widest"]) << "\n";
}

// Parameters are matched by range: a launch whose detector split the sizes
// elsewhere has no value for a range, and the "launches" column says so.
void parameter_rows(std::ostringstream& out, const Json& parameters, size_t k)
{
    if (parameters.empty())
        return;
    out << "fitted parameters, per range (launches: how many fitted the same range):\n";
    out << std::setw(16) << "parameter" << std::setw(22) << "range" << std::setw(10) << "launches" << std::setw(14)
        << "mean" << std::setw(30) << "95% CI of the mean" << std::setw(30) << "next launch 95%" << std::setw(9)
        << "spread"
        << "\n";
    for (const Json& p : parameters) {
        std::string range =
            p["from_bytes"].is_number() && p["to_bytes"].is_number()
                ? format_bytes(p["from_bytes"].get<uint64_t>()) + ".." + format_bytes(p["to_bytes"].get<uint64_t>())
                : "-";
        std::string launches = std::to_string(p["values"].size()) + "/" + std::to_string(k);
        out << std::setw(16) << p["name"].get<std::string>() << std::setw(22) << range << std::setw(10) << launches
            << std::setw(14) << std::setprecision(6) << std::defaultfloat << p.value("mean", nan) << std::setw(30)
            << interval_text(p["ci95"], 0) << std::setw(30) << interval_text(p["next_launch95"], 0) << std::setw(9)
            << percent_text(p["spread_relative"]) << "\n";
    }
}

std::string summary_table(const Json& summary)
{
    std::ostringstream out;
    size_t k = summary["launch_count"].get<size_t>();
    for (const Json& run : summary["between_launches"]) {
        out << run["module"].get<std::string>() << " " << run["pattern"].get<std::string>() << ": " << k
            << " launches, CPUs per launch:";
        for (const Json& launch : summary["launches"]) {
            out << " ";
            const char* separator = "";
            for (const Json& cpu : launch["cpus"]) {
                out << separator << (cpu.is_number_integer() ? cpu.dump() : std::string("?"));
                separator = ",";
            }
        }
        out << "\nmedian per size, us, over the " << k << " launches' medians:\n";
        size_rows(out, run["sizes"]);
        parameter_rows(out, run["parameters"], k);
        out << "\n";
    }
    out << "# " << summary["interval"].get<std::string>() << "\n";
    return out.str();
}

int launches_main(const std::vector<std::string>& arguments)
{
    Result<OptionValues> values = parse_arguments(arguments, launches_table(), "file");
    if (!values)
        return fail_with(Status::usage(values.status().message() + "\n" + usage_text));
    opt::Reader read(launches_table(), *values);
    if (read(help_row)) {
        std::cout << options_help(usage_text, launches_table());
        return 0;
    }
    const std::vector<std::string> files = read.all(files_row);
    const std::string output = read.optional(output_row).value_or("");
    const bool as_json = read(json_row);
    if (!read.ok())
        return fail_with(Status::usage(read.error()));
    Result<Json> summary = summarize_launches(files);
    if (!summary)
        return fail_with(summary.status());
    if (!output.empty()) {
        if (Status written = write_atomically(output, summary->dump(2) + "\n"); !written)
            return fail_with(written);
    }
    if (as_json)
        std::cout << summary->dump(2) << "\n";
    else
        std::cout << summary_table(*summary);
    return 0;
}

} // namespace

LaunchSpread launch_spread(const std::vector<double>& values)
{
    LaunchSpread s;
    size_t k = values.size();
    if (k == 0)
        return {nan, nan, nan, nan, nan, nan, nan};
    for (double v : values)
        s.mean += v / double(k);
    auto [low, high] = std::minmax_element(values.begin(), values.end());
    s.spread = (*high - *low) / std::fabs(s.mean);
    if (k < 2) {
        s.sd = s.ci_low = s.ci_high = s.next_low = s.next_high = s.spread = nan;
        return s;
    }
    double squares = 0;
    for (double v : values)
        squares += (v - s.mean) * (v - s.mean);
    s.sd = std::sqrt(squares / double(k - 1));
    double t = fit::student_t_quantile(0.975, double(k - 1));
    double half = t * s.sd / std::sqrt(double(k));
    double next = t * s.sd * std::sqrt(1.0 + 1.0 / double(k));
    s.ci_low = s.mean - half;
    s.ci_high = s.mean + half;
    s.next_low = s.mean - next;
    s.next_high = s.mean + next;
    return s;
}

Result<Json> summarize_launches(const std::vector<std::string>& paths)
{
    if (paths.size() < 2)
        return Status::usage("need the files of at least two launches (an interval between launches needs two "
                             "values)\n" +
                             std::string(usage_text));
    std::vector<SavedFile> files;
    for (const std::string& path : paths) {
        NGX_ASSIGN_OR_RETURN(SavedFile file, read_saved_file(path));
        if (file.launches.size() > 1)
            return Status::usage(path + ": holds " + std::to_string(file.launches.size()) +
                                 " launches already; give the files of single launches");
        files.push_back(std::move(file));
    }
    NGX_TRY(check_alike(files));
    Json between = Json::array();
    for (size_t r = 0; r < files.front().runs.size(); ++r) {
        std::vector<const Json*> runs;
        for (const SavedFile& file : files)
            runs.push_back(&file.runs[r].run);
        between.push_back({{"module", runs.front()->value("module", "")},
                           {"pattern", runs.front()->value("pattern", "")},
                           {"sizes", sizes_between(runs)},
                           {"parameters", parameters_between(runs)}});
    }
    Json launches = Json::array();
    for (const SavedFile& file : files)
        launches.push_back({{"file", file.path}, {"cpus", cpus_of(file.document)}, {"document", file.document}});
    return Json{
        {"launch_count", files.size()},
        {"interval", "95% intervals between launches: Student t over the " + std::to_string(files.size()) +
                         " launch values (" + std::to_string(files.size() - 1) +
                         " degrees of freedom; a parameter fewer launches fitted in the same range: over those); "
                         "'1 launch ci' is the widest interval one launch stated, within itself"},
        {"between_launches", between},
        {"launches", launches}};
}

CommandInfo launches_command()
{
    return {"launches", "between-launch intervals of saved launches (ngx launches A.json B.json ...)",
            [](const std::vector<std::string>& arguments, const PatternCatalog&) { return launches_main(arguments); }};
}

} // namespace ngx
