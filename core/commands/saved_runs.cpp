// Reading saved result files (see saved_runs.hpp).
#include "saved_runs.hpp"

#include <ngx/json_input.hpp>
#include <ngx/sizes.hpp>

#include <filesystem>
#include <iostream>
#include <map>

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
    std::map<uint64_t, int> seen;
    for (const Json& size : run["results"]) {
        if (!size.is_object() || !size.contains("size_bytes") || !size["size_bytes"].is_number_unsigned())
            return Status::usage(where + ": a result without a valid \"size_bytes\"");
        ++seen[size["size_bytes"].get<uint64_t>()];
    }
    for (const auto& [bytes, count] : seen) // the readers keep one result per size: say which
        if (count > 1)
            std::cerr << "ngx: note: " << where << ": " << count << " results of " << format_bytes(bytes)
                      << "; the last one is compared\n";
    return Status::ok();
}

// The runs of a document, labelled "path" (one run) or "path:module"; errors name `where`.
Result<std::vector<ComparedRun>> runs_of(const Json& document, const std::string& path, const std::string& where)
{
    std::vector<ComparedRun> runs;
    if (!document.contains("runs")) {
        NGX_TRY(check_run(document, where));
        runs.push_back({path, document});
        return runs;
    }
    const Json& list = document["runs"];
    if (!list.is_array() || list.empty())
        return Status::usage(where + ": \"runs\" is not a non-empty array");
    for (size_t i = 0; i < list.size(); ++i) {
        NGX_TRY(check_run(list[i], where + ": runs[" + std::to_string(i) + "]"));
        runs.push_back({path + ":" + list[i]["module"].get<std::string>(), list[i]});
    }
    return runs;
}

// The file parsed as a JSON object: a regular file with a known schema_version.
Result<Json> read_result_file(const std::string& path)
{
    NGX_ASSIGN_OR_RETURN(Json read, read_json_input(path));
    const Json& document = read;
    if (!document.is_object())
        return Status::usage(path + ": not an ngx result (expected a JSON object)");
    return document;
}

// A file of several launches: each launch's runs, labelled by the file's path.
Result<SavedFile> read_launches(const std::string& path, const Json& document)
{
    const Json& list = document["launches"];
    if (!list.is_array() || list.empty())
        return Status::usage(path + ": \"launches\" is not a non-empty array");
    SavedFile file{path, Json(), {}, {}};
    for (size_t i = 0; i < list.size(); ++i) {
        std::string where = path + ": launches[" + std::to_string(i) + "]";
        if (!list[i].is_object() || !list[i].contains("document") || !list[i]["document"].is_object())
            return Status::usage(where + ": no \"document\" (the launch's result)");
        NGX_ASSIGN_OR_RETURN(std::vector<ComparedRun> runs, runs_of(list[i]["document"], path, where));
        file.launches.push_back(std::move(runs));
    }
    file.document = list[0]["document"];
    file.runs = file.launches.front();
    return file;
}

} // namespace

Status collect_runs(const std::string& path, std::vector<ComparedRun>& runs)
{
    NGX_ASSIGN_OR_RETURN(SavedFile file, read_saved_file(path));
    if (file.launches.size() > 1)
        std::cerr << "ngx: note: " << path << " holds " << file.launches.size()
                  << " launches; the first one is compared (ngx check tests between launches)\n";
    const std::string stem = std::filesystem::path(path).stem().string();
    for (ComparedRun& run : file.runs)
        runs.push_back({stem + run.label.substr(path.size()), std::move(run.run)}); // "path:module" -> "stem:module"
    return Status::ok();
}

Result<SavedFile> read_saved_file(const std::string& path)
{
    NGX_ASSIGN_OR_RETURN(Json document, read_result_file(path));
    if (document.contains("launch_count") && document.contains("launches"))
        return read_launches(path, document);
    NGX_ASSIGN_OR_RETURN(std::vector<ComparedRun> runs, runs_of(document, path, path));
    std::vector<std::vector<ComparedRun>> launches{runs};
    return SavedFile{path, std::move(document), std::move(runs), std::move(launches)};
}

} // namespace ngx
