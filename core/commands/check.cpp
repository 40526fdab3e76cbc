// `ngx check`: arguments, files and exit codes (see check.hpp).
#include "check.hpp"

#include "check_output.hpp"
#include "history.hpp"
#include "saved_runs.hpp"
#include <ngx/command_line.hpp>

#include <filesystem>
#include <optional>
#include <iostream>

namespace ngx {
namespace {

constexpr const char* usage_text =
    "usage: ngx check [--tolerance PCT] [--alpha 0.05] [--format text|junit] BASELINE.json NEW.json\n"
    "       ngx check [options] DIR\n";
constexpr const char* about_text =
    "Checks a new run against a baseline of the same measurement, per size and per fitted\n"
    "parameter: Mann-Whitney rank-sum on the raw samples when both files kept them (--raw),\n"
    "else a z test on the medians' 95% intervals; p-values Holm-corrected over the check.\n"
    "A change counts when significant and larger than the minimum effect: --tolerance, else\n"
    "15% per size and 30% per parameter against one launch (what launches spread), 5% when\n"
    "a side holds several launches (a file of ngx --launches K, or ngx launches -o): then\n"
    "each size and parameter is tested between launches (a t test on the launch values).\n"
    "With a directory: the trend of its *.json files ordered by their recorded time, each\n"
    "against the one before.\n"
    "Exit 0: no regression; 1: a regression (DIR: in the newest file); 2: bad input.";

constexpr auto files_row =
    opt::row::repeatable(opt::row::text("file", opt::no_default, "BASELINE.json NEW.json, or DIR"));
constexpr auto tolerance_row = opt::row::percentage("tolerance", opt::no_default, 0, 1000,
                                                    "smallest relative change that counts (default: see above)");
constexpr auto alpha_row = opt::row::number("alpha", "0.05", 1e-12, 0.5, "family-wise significance level");
constexpr auto format_row =
    opt::row::choice("format", "text", {"text", "junit"}, "text, or JUnit XML: one testcase per size / parameter");
constexpr auto help_row = opt::row::flag("help,h", "show this help");

opt::Table check_table()
{
    return opt::Table("ngx check", {files_row, tolerance_row, alpha_row, format_row, help_row});
}

int fail_with(const Status& status)
{
    std::cerr << "ngx check: " << status.message() << "\n";
    return exit_code(status);
}

struct CheckRequest {
    std::vector<std::string> files;
    CheckOptions options;
    bool junit = false;
};

Result<CheckRequest> read_request(const OptionValues& values)
{
    opt::Reader read(check_table(), values);
    CheckRequest request;
    if (std::optional<double> tolerance = read.optional(tolerance_row))
        request.options.tolerance = *tolerance / 100;
    request.options.alpha = read(alpha_row);
    request.junit = read(format_row) == "junit";
    request.files = read.all(files_row);
    if (!read.ok())
        return Status::usage(read.error());
    std::error_code error;
    bool directory = request.files.size() == 1 && std::filesystem::is_directory(request.files.front(), error);
    if (request.files.size() != 2 && !directory)
        return Status::usage((request.files.size() == 1 ? request.files.front() + ": not a directory: " : "") +
                             "expected BASELINE.json NEW.json, or one directory\n" + usage_text);
    return request;
}

int print_result(const CheckResult& result, const CheckRequest& request, const std::string& table)
{
    std::cout << (request.junit ? check_junit(result, request.options) : table);
    return result.count(Verdict::regression) > 0 ? 1 : 0;
}

int check_files(const CheckRequest& request)
{
    Result<SavedFile> baseline = read_saved_file(request.files[0]);
    if (!baseline)
        return fail_with(baseline.status());
    Result<SavedFile> current = read_saved_file(request.files[1]);
    if (!current)
        return fail_with(current.status());
    Result<CheckResult> result = check_files(*baseline, *current, request.options);
    if (!result)
        return fail_with(result.status());
    return print_result(*result, request, check_table(*result, request.options));
}

int check_directory(const CheckRequest& request)
{
    Result<std::vector<HistoryEntry>> entries = read_history(request.files.front());
    if (!entries)
        return fail_with(entries.status());
    Result<std::vector<CheckResult>> steps = check_history(*entries, request.options);
    if (!steps)
        return fail_with(steps.status());
    return print_result(steps->back(), request, history_table(*entries, *steps));
}

int check_main(const std::vector<std::string>& arguments)
{
    Result<OptionValues> values = parse_arguments(arguments, check_table(), "file");
    if (!values)
        return fail_with(Status::usage(values.status().message() + "\n" + usage_text));
    if (opt::Reader(check_table(), *values).given(help_row)) {
        std::cout << options_help(usage_text + std::string(about_text), check_table());
        return 0;
    }
    Result<CheckRequest> request = read_request(*values);
    if (!request)
        return fail_with(request.status());
    return request->files.size() == 1 ? check_directory(*request) : check_files(*request);
}

} // namespace

CommandInfo check_command()
{
    return {"check", "regression check of a new run against a baseline, or the trend of a directory (ngx check A B)",
            [](const std::vector<std::string>& arguments, const PatternCatalog&) { return check_main(arguments); }};
}

} // namespace ngx
