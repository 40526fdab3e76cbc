// `ngx check`: arguments, files and exit codes (see check.hpp).
#include "check.hpp"

#include "check_output.hpp"
#include "history.hpp"
#include "saved_runs.hpp"
#include <ngx/command_line.hpp>

#include <filesystem>
#include <iostream>

namespace ngx {
namespace {

constexpr const char* usage_text =
    "usage: ngx check [--tolerance 5%] [--alpha 0.05] [--format text|junit] BASELINE.json NEW.json\n"
    "       ngx check [options] DIR\n"
    "Checks a new run against a baseline of the same measurement, per size and per fitted\n"
    "parameter: Mann-Whitney rank-sum on the raw samples when both files kept them (--raw),\n"
    "else a z test on the medians' 95% intervals; p-values Holm-corrected over the check.\n"
    "A change counts when significant and larger than --tolerance. With a directory: the\n"
    "trend of its *.json files ordered by their recorded time, each against the one before.\n"
    "Exit 0: no regression; 1: a regression (DIR: in the newest file); 2: bad input.\n"
    "  --tolerance P   smallest relative change that counts (default 5%)\n"
    "  --alpha A       family-wise significance level (default 0.05)\n"
    "  --format F      text (default) or junit (JUnit XML: one testcase per size / parameter)\n";

int fail_with(const Status& status)
{
    std::cerr << "ngx check: " << status.message() << "\n";
    return exit_code(status);
}

std::vector<opt::OptionSpec> check_specs()
{
    opt::OptionSpec files = opt::optional_value("file", "BASELINE.json NEW.json, or DIR");
    files.repeatable = true;
    return {files,
            {"tolerance", "5%", "smallest relative change that counts"},
            {"alpha", "0.05", "family-wise significance level"},
            {"format", "text", "text or junit"},
            opt::flag("help,h", "show this help")};
}

struct CheckRequest {
    std::vector<std::string> files;
    CheckOptions options;
    bool junit = false;
};

Result<CheckRequest> read_request(const OptionValues& values)
{
    opt::OptionReader read(values);
    CheckRequest request;
    request.options.tolerance = read.percentage("tolerance", 0, 1000) / 100;
    request.options.alpha = read.number("alpha", 1e-12, 0.5);
    request.junit = read.choice("format", {"text", "junit"}) == "junit";
    if (!read.ok())
        return Status::usage(read.error());
    for (const auto& [name, value] : values)
        if (name == "file")
            request.files.push_back(value);
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
    Result<OptionValues> values = parse_arguments(arguments, check_specs(), "file");
    if (!values)
        return fail_with(Status::usage(values.status().message() + "\n" + usage_text));
    if (opt::OptionReader(*values).given("help")) {
        std::cout << usage_text;
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
