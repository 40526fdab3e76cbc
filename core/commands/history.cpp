// A directory of results as a trend (see history.hpp).
#include "history.hpp"

#include "check_output.hpp"
#include "saved_runs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <map>
#include <sstream>

namespace ngx {
namespace {

Result<HistoryEntry> read_entry(const std::string& path)
{
    NGX_ASSIGN_OR_RETURN(SavedFile file, read_saved_file(path));
    const Json& document = file.document;
    if (!document.contains("started_at") || !document["started_at"].is_string())
        return Status::usage(path + ": no recorded time (\"started_at\"): not the result of a measurement");
    return HistoryEntry{document["started_at"].get<std::string>(), std::move(file)};
}

std::string cell(double value)
{
    if (!std::isfinite(value))
        return "?";
    char text[32];
    std::snprintf(text, sizeof text, "%.5g", value);
    return text;
}

char marker(Verdict verdict)
{
    return verdict == Verdict::regression ? '+' : verdict == Verdict::improvement ? '-' : ' ';
}

// One row of the trend: a value's name and its cells, oldest first.
struct TrendRow {
    std::string run, name;
    std::vector<std::string> cells;
    double first = NAN, last = NAN;
};

std::vector<TrendRow> trend_rows(const std::vector<CheckResult>& steps)
{
    std::vector<TrendRow> rows;
    std::map<std::string, size_t> index; // run + name -> row
    for (size_t step = 0; step < steps.size(); ++step)
        for (const CheckedValue& v : steps[step].values) {
            auto [at, added] = index.try_emplace(v.run + "\n" + v.name, rows.size());
            if (added) {
                rows.push_back({v.run, v.name, std::vector<std::string>(steps.size() + 1, ""), v.baseline, NAN});
                rows.back().cells[step] = cell(v.baseline) + " ";
            }
            TrendRow& row = rows[at->second];
            row.cells[step + 1] = cell(v.current) + marker(v.verdict);
            row.last = v.current;
        }
    return rows;
}

// "#3": the third file, oldest first (built by appending: GCC 12's
// -Wrestrict misfires on "#" + std::to_string(...)).
std::string file_number(size_t index)
{
    std::string text = "#";
    text += std::to_string(index + 1);
    return text;
}

} // namespace

Result<std::vector<HistoryEntry>> read_history(const std::string& directory)
{
    std::error_code error;
    std::vector<std::string> paths;
    for (const auto& file : std::filesystem::directory_iterator(directory, error))
        if (std::error_code kind; file.is_regular_file(kind) && file.path().extension() == ".json")
            paths.push_back(file.path().string());
    if (error)
        return Status::usage(directory + ": cannot read the directory: " + error.message());
    std::vector<HistoryEntry> entries;
    for (const std::string& path : paths) {
        NGX_ASSIGN_OR_RETURN(HistoryEntry entry, read_entry(path));
        entries.push_back(std::move(entry));
    }
    if (entries.size() < 2)
        return Status::usage(directory + ": a history needs at least two result files (*.json), found " +
                             std::to_string(entries.size()));
    std::sort(entries.begin(), entries.end(), [](const HistoryEntry& a, const HistoryEntry& b) {
        return std::tie(a.started_at, a.file.path) < std::tie(b.started_at, b.file.path);
    });
    return entries;
}

Result<std::vector<CheckResult>> check_history(const std::vector<HistoryEntry>& entries, const CheckOptions& options)
{
    std::vector<CheckResult> steps;
    for (size_t i = 1; i < entries.size(); ++i) {
        NGX_ASSIGN_OR_RETURN(CheckResult step, check_files(entries[i - 1].file, entries[i].file, options));
        steps.push_back(std::move(step));
    }
    return steps;
}

std::string history_table(const std::vector<HistoryEntry>& entries, const std::vector<CheckResult>& steps)
{
    std::ostringstream out;
    out << "history of " << entries.size()
        << " results, oldest first; each checked against the one before it (+ a regression, - an improvement)\n";
    for (size_t i = 0; i < entries.size(); ++i)
        out << std::setw(5) << file_number(i) << "  " << entries[i].started_at << "  " << entries[i].file.path << "\n";
    std::string run;
    for (const TrendRow& row : trend_rows(steps)) {
        if (row.run != run) {
            run = row.run;
            out << run << " (sizes: median us)\n" << std::setw(30) << "size / parameter";
            for (size_t i = 0; i < entries.size(); ++i)
                out << std::setw(12) << file_number(i) + " ";
            out << std::setw(12) << "last vs #1"
                << "\n";
        }
        out << std::setw(30) << row.name;
        for (const std::string& text : row.cells)
            out << std::setw(12) << text;
        out << std::setw(12) << percent_change(row.first > 0 ? row.last / row.first - 1 : NAN) << "\n";
    }
    if (steps.empty())
        return out.str();
    for (const std::string& note : steps.back().notes)
        out << "note: " << note << "\n";
    out << "newest step (" << steps.back().current << "): " << check_summary(steps.back()) << "\n";
    return out.str();
}

} // namespace ngx
