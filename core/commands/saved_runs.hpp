// Reading saved ngx result files (what `ngx ... -o F.json` wrote) for the
// commands that work on them (compare, check): each file's runs, validated
// enough to use, labelled for the output. Bad input is a usage error naming
// the file and the field.
//
//     std::vector<ComparedRun> runs;
//     NGX_TRY(collect_runs("tcp.json", runs));   // one run, or each of a multi-run file
//     Result<SavedFile> file = read_saved_file("results/tcp.json");
//
// Input shapes: a single-run document has module/pattern/results at the top
// level; a multi-run document has `runs: [...]`; a file of several launches
// (`ngx --launches K -o`, `ngx launches -o`) holds each launch's document
// under `launches[].document`. collect_runs labels runs by
// the file name without directory and extension ("tcp", or "both:mpi" for a
// run of a multi-run file); read_saved_file by the path as given.
#ifndef NGX_SAVED_RUNS_HPP
#define NGX_SAVED_RUNS_HPP

#include "comparison.hpp"
#include <ngx/status.hpp>

#include <string>
#include <vector>

namespace ngx {

// Appends the runs of one file to `runs` (for ngx compare).
Status collect_runs(const std::string& path, std::vector<ComparedRun>& runs);

// One file whole: its document (with the context) and its runs.
struct SavedFile {
    std::string path;
    Json document;
    std::vector<ComparedRun> runs; // labelled "path", or "path:module" in a multi-run file
    // Each launch's runs: one entry for a result file, K for a file of K
    // launches (then `runs` and `document` are the first launch's).
    std::vector<std::vector<ComparedRun>> launches;
};

Result<SavedFile> read_saved_file(const std::string& path);

} // namespace ngx

#endif
