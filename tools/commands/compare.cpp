// `ngx compare`: reads saved ngx JSON files, validates them, and prints the
// comparison of their runs (or, with --json, the comparison object).
//
//     ngx compare tcp.json mpi.json          # table; exit 2 on bad input
//     ngx compare --json both.json           # a multi-run file compares its own runs
//
// Input shapes: a single-run document has module/pattern/results at the top
// level; a multi-run document has `runs: [...]`. Labels are the file name
// (single run) or "file:module" (runs of a multi-run file).
#include "compare.hpp"

#include "comparison.hpp"
#include <ngx/command_line.hpp>
#include <ngx/json_input.hpp>
#include <ngx/sizes.hpp>
#include <ngx/status.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

namespace ngx {
namespace {

constexpr const char* usage_text = "usage: ngx compare [--json] FILE.json FILE.json ...\n"
                                   "Compares saved runs: per size the median of each run, and the difference and\n"
                                   "ratio to the first (the baseline); fitted LogGP parameters where present.\n"
                                   "A file with several runs (ngx -m tcp,mpi ... -o F.json) counts as several.\n"
                                   "  --json   print the comparison object as JSON instead of the table\n";

Result<Json> read_json(const std::string& path)
{
    Result<Json> read = read_json_input(path); // a regular file, a known schema_version
    if (!read)
        return read.status();
    const Json& document = *read;
    if (!document.is_object())
        return Status::usage(path + ": not an ngx result (expected a JSON object)");
    return document;
}

Status check_run(const Json& run, const std::string& where)
{
    for (const char* key : {"module", "pattern", "results"})
        if (!run.contains(key))
            return Status::usage(where + ": missing field \"" + key + "\" (not an ngx result file?)");
    for (const char* key : {"module", "pattern"})
        if (!run[key].is_string())
            return Status::usage(where + ": \"" + key + "\" is not a string");
    if (!run["results"].is_array())
        return Status::usage(where + ": \"results\" is not an array");
    std::map<uint64_t, int> seen;
    for (const Json& size : run["results"]) {
        if (!size.is_object() || !size.contains("size_bytes") || !size["size_bytes"].is_number_unsigned())
            return Status::usage(where + ": a result without a valid \"size_bytes\"");
        ++seen[size["size_bytes"].get<uint64_t>()];
    }
    for (const auto& [bytes, count] : seen) // compare keeps one median per size: say which
        if (count > 1)
            std::cerr << "ngx compare: note: " << where << ": " << count << " results of " << format_bytes(bytes)
                      << "; the last one is compared\n";
    return Status::ok();
}

// Appends the runs of one file to `runs`.
Status collect_runs(const std::string& path, std::vector<ComparedRun>& runs)
{
    Result<Json> document = read_json(path);
    if (!document)
        return document.status();
    std::string stem = std::filesystem::path(path).stem().string();
    if (!document->contains("runs")) {
        NGX_TRY(check_run(*document, path));
        runs.push_back({stem, *document});
        return Status::ok();
    }
    const Json& list = (*document)["runs"];
    if (!list.is_array() || list.empty())
        return Status::usage(path + ": \"runs\" is not a non-empty array");
    for (size_t i = 0; i < list.size(); ++i) {
        NGX_TRY(check_run(list[i], path + ": runs[" + std::to_string(i) + "]"));
        runs.push_back({stem + ":" + list[i]["module"].get<std::string>(), list[i]});
    }
    return Status::ok();
}

Status check_same_pattern(const std::vector<ComparedRun>& runs)
{
    const std::string& pattern = runs.front().run["pattern"].get_ref<const std::string&>();
    for (const ComparedRun& run : runs)
        if (run.run["pattern"] != pattern)
            return Status::usage("cannot compare different patterns: " + runs.front().label + " is " + pattern + ", " +
                                 run.label + " is " + run.run["pattern"].get<std::string>());
    return Status::ok();
}

int fail_with(const Status& status)
{
    std::cerr << "ngx compare: " << status.message() << "\n";
    return exit_code(status);
}

std::vector<opt::OptionSpec> compare_specs()
{
    opt::OptionSpec files = opt::optional_value("file", "saved runs (JSON)");
    files.repeatable = true;
    return {files, opt::flag("json", "print the comparison object as JSON instead of the table"),
            opt::flag("help,h", "show this help")};
}

int compare_main(const std::vector<std::string>& arguments)
{
    Result<OptionValues> values = parse_arguments(arguments, compare_specs(), "file");
    if (!values)
        return fail_with(Status::usage(values.status().message() + "\n" + usage_text));
    opt::OptionReader read(*values);
    if (read.given("help")) {
        std::cout << usage_text;
        return 0;
    }
    bool as_json = read.given("json");
    std::vector<std::string> files;
    for (const auto& [name, value] : *values)
        if (name == "file")
            files.push_back(value);
    std::vector<ComparedRun> runs;
    for (const std::string& file : files)
        if (Status status = collect_runs(file, runs); !status)
            return fail_with(status);
    if (runs.size() < 2)
        return fail_with(Status::usage("need at least two runs to compare (two files, or a file with several runs)\n" +
                                       std::string(usage_text)));
    if (Status status = check_same_pattern(runs); !status)
        return fail_with(status);
    Json comparison = compare_runs(runs);
    if (as_json)
        std::cout << comparison.dump(2) << "\n";
    else
        std::cout << comparison_table(comparison);
    return 0;
}

} // namespace

CommandInfo compare_command()
{
    return {"compare", "compare saved runs (ngx compare A.json B.json ...)",
            [](const std::vector<std::string>& arguments, const PatternCatalog&) { return compare_main(arguments); }};
}

} // namespace ngx
