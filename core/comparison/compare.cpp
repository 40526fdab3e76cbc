// `ngx compare`: reads saved ngx JSON files, validates them, and prints the
// comparison of their runs (or, with --json, the comparison object).
//
//     ngx compare tcp.json mpi.json          # table; exit 2 on bad input
//     ngx compare --json both.json           # a multi-run file compares its own runs
//
// The files are read by saved_runs.hpp (one run, or each run of a multi-run file).
#include "compare.hpp"

#include "comparison.hpp"
#include "map_comparison.hpp"
#include "saved_runs.hpp"
#include <ngx/command_line.hpp>
#include <ngx/status.hpp>

#include <iostream>

namespace ngx {
namespace {

constexpr const char* usage_text = "usage: ngx compare [--json] FILE.json FILE.json ...\n";
constexpr const char* about_text = "Compares saved runs: per size the median of each run, and the difference and\n"
                                   "ratio to the first (the baseline); fitted LogGP parameters where present;\n"
                                   "all-pairs maps cell by cell (the cells and nodes that moved apart from the rest).\n"
                                   "A file with several runs (ngx -m tcp,mpi ... -o F.json) counts as several.";

constexpr auto files_row = opt::row::repeatable(opt::row::text("file", opt::no_default, "saved runs (JSON)"));
constexpr auto json_row = opt::row::flag("json", "print the comparison object as JSON instead of the table");
constexpr auto help_row = opt::row::flag("help,h", "show this help");

opt::Table compare_table()
{
    return opt::Table("ngx compare", {files_row, json_row, help_row});
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

int compare_main(const std::vector<std::string>& arguments)
{
    Result<OptionValues> values = parse_arguments(arguments, compare_table(), "file");
    if (!values)
        return fail_with(Status::usage(values.status().message() + "\n" + usage_text));
    opt::Reader read(compare_table(), *values);
    if (read(help_row)) {
        std::cout << options_help(usage_text + std::string(about_text), compare_table());
        return 0;
    }
    const bool as_json = read(json_row);
    const std::vector<std::string> files = read.all(files_row);
    if (!read.ok())
        return fail_with(Status::usage(read.error()));
    std::vector<ComparedRun> runs;
    for (const std::string& file : files)
        if (Status status = collect_runs(file, runs); !status)
            return fail_with(status);
    if (runs.size() < 2)
        return fail_with(Status::usage("need at least two runs to compare (two files, or a file with several runs)\n" +
                                       std::string(usage_text)));
    if (Status status = check_same_pattern(runs); !status)
        return fail_with(status);
    if (Status status = check_maps(runs); !status)
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
