// Reading saved ngx result files (what `ngx ... -o F.json` wrote) for the
// commands that work on them (compare, check): each file's runs, validated
// enough to use, labelled for the output. Bad input is a usage error naming
// the file and the field.
//
//     std::vector<ComparedRun> runs;
//     NGX_TRY(collect_runs("tcp.json", runs));   // one run, or each of a multi-run file
//     Result<Json> document = read_result_file("tcp.json");
//
// Input shapes: a single-run document has module/pattern/results at the top
// level; a multi-run document has `runs: [...]`. Labels are the file name
// (single run) or "file:module" (runs of a multi-run file).
#ifndef NGX_SAVED_RUNS_HPP
#define NGX_SAVED_RUNS_HPP

#include "comparison.hpp"
#include <ngx/status.hpp>

#include <string>
#include <vector>

namespace ngx {

// The file parsed as a JSON object.
Result<Json> read_result_file(const std::string& path);

// Appends the runs of one file to `runs`.
Status collect_runs(const std::string& path, std::vector<ComparedRun>& runs);

// The runs of an already read document (`path` names it in messages).
Result<std::vector<ComparedRun>> runs_of(const Json& document, const std::string& path);

} // namespace ngx

#endif
