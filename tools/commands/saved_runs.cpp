// Reading saved result files (see saved_runs.hpp).
#include "saved_runs.hpp"

#include <filesystem>
#include <fstream>

namespace ngx {
namespace {

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
    for (const Json& size : run["results"])
        if (!size.is_object() || !size.contains("size_bytes") || !size["size_bytes"].is_number_unsigned())
            return Status::usage(where + ": a result without a valid \"size_bytes\"");
    return Status::ok();
}

} // namespace

Result<Json> read_result_file(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        return Status::usage(path + ": cannot open the file");
    Json document = Json::parse(in, nullptr, false);
    if (document.is_discarded())
        return Status::usage(path + ": not a JSON file");
    if (!document.is_object())
        return Status::usage(path + ": not an ngx result (expected a JSON object)");
    return document;
}

Result<std::vector<ComparedRun>> runs_of(const Json& document, const std::string& path)
{
    std::string stem = std::filesystem::path(path).stem().string();
    std::vector<ComparedRun> runs;
    if (!document.contains("runs")) {
        NGX_TRY(check_run(document, path));
        runs.push_back({stem, document});
        return runs;
    }
    const Json& list = document["runs"];
    if (!list.is_array() || list.empty())
        return Status::usage(path + ": \"runs\" is not a non-empty array");
    for (size_t i = 0; i < list.size(); ++i) {
        NGX_TRY(check_run(list[i], path + ": runs[" + std::to_string(i) + "]"));
        runs.push_back({stem + ":" + list[i]["module"].get<std::string>(), list[i]});
    }
    return runs;
}

Status collect_runs(const std::string& path, std::vector<ComparedRun>& runs)
{
    Result<Json> document = read_result_file(path);
    if (!document)
        return document.status();
    Result<std::vector<ComparedRun>> found = runs_of(*document, path);
    if (!found)
        return found.status();
    runs.insert(runs.end(), found->begin(), found->end());
    return Status::ok();
}

} // namespace ngx
