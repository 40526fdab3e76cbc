// Reporters turn run records into output. The live table on stdout sees
// each size as it finishes; file reporters write the whole Document when the
// invocation ends, whether it completed, failed or was interrupted, so the
// results measured so far are never lost.
//
//     std::vector<std::unique_ptr<Reporter>> reporters;
//     reporters.push_back(std::make_unique<TableReporter>(std::cout));
//     reporters.push_back(make_file_reporter("out.json", OutputFormat::json, keep_raw));
#ifndef NGX_REPORTER_HPP
#define NGX_REPORTER_HPP

#include <ngx/output_file.hpp> // check_writable, write_atomically
#include <ngx/record.hpp>
#include <ngx/status.hpp>
#include <ngx/table.hpp>

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace ngx {

inline constexpr int json_schema_version = 1;

enum class OutputFormat { table, csv, json };

class Reporter {
public:
    virtual ~Reporter() = default;
    virtual void run_started(const RunRecord&) {}
    virtual void size_done(const RunRecord&, const SizeRecord&) {}
    virtual void pass_done(const RunRecord&, uint64_t /*done*/, uint64_t /*planned*/) {}
    virtual void run_finished(const RunRecord&) {}
    virtual Status close(const Document&) { return Status::ok(); }
};

// A fixed-width table: a header per run, a line per size as it finishes;
// after each run the tables `run_tables` returns for it (a pattern's), as text.
class TableReporter final : public Reporter {
public:
    explicit TableReporter(std::ostream& out, RunTables run_tables = {}) : out_(out), run_tables_(std::move(run_tables))
    {
    }
    void run_started(const RunRecord& run) override;
    void size_done(const RunRecord& run, const SizeRecord& size) override;
    void run_finished(const RunRecord& run) override;
    Status close(const Document& document) override; // prints the comparison, if any

private:
    std::ostream& out_;
    RunTables run_tables_;
};

std::optional<OutputFormat> format_from_name(const std::string& name);
std::optional<OutputFormat> format_from_path(const std::string& path);

Json to_json(const RunRecord& run, bool keep_raw);
Json to_json(const Document& document, bool keep_raw);
std::string to_csv(const Document& document);
std::string to_table(const Document& document);

// Writes the document to `path` when closed (atomically: temp file + rename).
std::unique_ptr<Reporter> make_file_reporter(std::string path, OutputFormat format, bool keep_raw);

// A run's CPU verdict (RunRecord::cpu) in one sentence: why the CPUs, not
// the network, may have set its time ("" when they kept up or none was taken).
std::string cpu_verdict_text(const Json& verdict);
// The table's line for it: "# warning: ..." when the CPUs may have set the
// time, else how long any rank waited for a CPU ("" without a verdict).
std::string cpu_verdict_line(const Json& verdict);

// A run's model as a table: its parameters with intervals, per protocol
// range where it has ranges ("" when the run has none).
std::string model_table(const Json& model);

} // namespace ngx

#endif
