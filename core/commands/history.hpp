// `ngx check DIR`: the results in one directory as a history. The files
// (every *.json) are ordered by the time each run recorded (started_at,
// then the file name), each is checked against the one before it
// (regression_check.hpp), and the trend shows per size and per parameter
// the value of every file, marked where a step changed significantly.
//
//     Result<std::vector<HistoryEntry>> files = read_history("results/");
//     Result<std::vector<CheckResult>> steps = check_history(*files, options);
//     std::cout << history_table(*files, *steps);
#ifndef NGX_HISTORY_HPP
#define NGX_HISTORY_HPP

#include "regression_check.hpp"

#include <string>
#include <vector>

namespace ngx {

struct HistoryEntry {
    std::string started_at; // UTC, ISO 8601: sorts as text
    SavedFile file;
};

// At least two result files, oldest first; a file without a recorded time is a usage error.
Result<std::vector<HistoryEntry>> read_history(const std::string& directory);

// steps[i]: entry i + 1 checked against entry i.
Result<std::vector<CheckResult>> check_history(const std::vector<HistoryEntry>& entries, const CheckOptions& options);

std::string history_table(const std::vector<HistoryEntry>& entries, const std::vector<CheckResult>& steps);

} // namespace ngx

#endif
