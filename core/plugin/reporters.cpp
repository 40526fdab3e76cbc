// Table, JSON and CSV output of run records (see reporter.hpp).
#include <ngx/reporter.hpp>

#include "comparison_table.hpp"
#include "table_report.hpp"
#include <ngx/size_token.hpp>
#include <ngx/sizes.hpp>

#include "ngx_config.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ngx {
namespace {

// "99" -> "p99_us", "99.9" -> "p99.9_us".
std::string percentile_key(double rank)
{
    std::ostringstream key;
    key << "p" << rank << "_us";
    return key.str();
}

Json size_to_json(const SizeRecord& size, bool keep_raw)
{
    const Summary& s = size.summary;
    Json result = {{"size_bytes", size.size_bytes},  {"count", s.count},
                   {"min_us", json_number(s.min)},   {"median_us", json_number(s.median)},
                   {"mean_us", json_number(s.mean)}, {"stddev_us", json_number(s.stddev)},
                   {"p99_us", json_number(s.p99)},   {"max_us", json_number(s.max)}};
    for (const Percentile& p : s.percentiles)
        result[percentile_key(p.rank)] = json_number(p.value);
    for (const auto& [name, value] : size.extra)
        result[name] = json_number(value);
    if (keep_raw)
        result["raw_us"] = size.raw_us;
    return result;
}

// A right-aligned number with at least one space before it, however large.
std::string fixed(double value, int width, int precision = 2)
{
    std::ostringstream text;
    text << ' ' << std::setw(width - 1) << std::fixed << std::setprecision(precision) << value;
    return text.str();
}

// The names of the columns every row has.
std::string fixed_columns_header()
{
    std::ostringstream out;
    out << std::setw(10) << "bytes" << std::setw(8) << "size" << std::setw(9) << "count" << std::setw(11) << "min"
        << std::setw(11) << "median" << std::setw(11) << "mean" << std::setw(11) << "stddev" << std::setw(11) << "p99";
    return out.str();
}

// "# sizes (-s; K = 1000, Ki = 1024, ...): 12 from 1 B to 64 KiB; statistics per size over -c 100 samples
// after --warmup 10: ...": what -s and -c were read as, so that a unit slip shows in the first lines.
std::string settings_line(const Json& options)
{
    if (!options.is_object() || !options.contains("sizes") || !options["sizes"].is_array() || options["sizes"].empty())
        return "";
    const Json& sizes = options["sizes"];
    std::ostringstream out;
    out << "# sizes (-s; " << size_units_text << "): " << sizes.size() << " from "
        << format_bytes(sizes.front().get<uint64_t>()) << " to " << format_bytes(sizes.back().get<uint64_t>());
    if (options.contains("count") && options["count"].is_number())
        out << "; statistics of -c " << options["count"] << " samples per size after --warmup "
            << options.value("warmup", Json(0));
    out << "\n";
    return out.str();
}

std::string table_header(const RunRecord& run)
{
    std::ostringstream out;
    out << "# " << run.module << (run.variant.empty() ? "" : " [" + run.variant + "]") << " " << run.pattern << ": "
        << run.metric << " in microseconds\n";
    out << settings_line(run.options) << fixed_columns_header();
    return out.str();
}

// "p99.9" for the table's column of the 99.9th percentile.
std::string percentile_label(double rank)
{
    std::string key = percentile_key(rank);
    return key.substr(0, key.size() - 3);
}

// A pattern's column is as wide as its name or a 4-digit number in either
// notation ("-1.234e-05"), whichever is wider, plus two spaces, so that
// neighbouring values never run together.
int extra_width(const std::string& name)
{
    return int(std::max<size_t>(name.size(), 10)) + 2;
}

// The columns after the fixed ones: extra percentiles, then the pattern's.
std::string extra_header(const SizeRecord& size)
{
    std::ostringstream text;
    for (const Percentile& p : size.summary.percentiles)
        text << std::setw(11) << percentile_label(p.rank);
    for (const auto& extra : size.extra)
        text << std::setw(extra_width(extra.first)) << extra.first;
    return text.str();
}

std::string table_row(const SizeRecord& size)
{
    const Summary& s = size.summary;
    std::ostringstream out;
    out << std::setw(10) << size.size_bytes << std::setw(8) << size_token(size.size_bytes) << std::setw(9) << s.count
        << fixed(s.min, 11) << fixed(s.median, 11) << fixed(s.mean, 11) << fixed(s.stddev, 11) << fixed(s.p99, 11);
    for (const Percentile& p : s.percentiles)
        out << fixed(p.value, 11);
    for (const auto& [name, value] : size.extra)
        out << std::setw(extra_width(name)) << std::setprecision(4) << std::defaultfloat << value;
    return out.str();
}

// "64 B, 1 KiB" from a JSON array of sizes in bytes.
std::string size_list(const Json& sizes)
{
    std::string text;
    for (const Json& size : sizes)
        text += (text.empty() ? "" : ", ") + format_bytes(size.get<uint64_t>());
    return text;
}

// "# passes: 4 + 1 extra (measured again: 64 B); interval of the median still wider than 5%: 64 B"
std::string passes_line(const Json& measurement)
{
    if (!measurement.is_object() || !measurement.contains("passes"))
        return "";
    std::ostringstream out;
    out << "# passes: " << measurement["passes"].get<uint64_t>();
    if (uint64_t extra = measurement.value("extra_passes", uint64_t(0)); extra > 0)
        out << " + " << extra << " extra (measured again: " << size_list(measurement.value("remeasured_bytes", Json()))
            << ")";
    if (Json wide = measurement.value("wide_bytes", Json()); wide.is_array() && !wide.empty())
        out << "; 95% interval of the median still wider than " << measurement.value("max_rel_ci_percent", 0.0)
            << "%: " << size_list(wide);
    out << "\n";
    return out.str();
}

// "# adaptive: 12 sizes stopped within the 5% interval, 2 at -c 1000 (1 B, 2 B), 0 at the 10 s cap"
std::string adaptive_line(const Json& measurement)
{
    if (!measurement.is_object() || !measurement.contains("adaptive"))
        return "";
    const Json& adaptive = measurement["adaptive"];
    const Json& stopped = adaptive["stopped_bytes"];
    std::ostringstream out;
    out << "# adaptive: " << stopped["interval"].size() << " sizes stopped within the "
        << measurement.value("max_rel_ci_percent", 0.0) << "% interval, " << stopped["count"].size() << " at -c "
        << adaptive.value("max_count", uint64_t(0));
    if (!stopped["count"].empty())
        out << " (" << size_list(stopped["count"]) << ")";
    out << ", " << stopped["time"].size() << " at the " << adaptive.value("max_size_time_s", 0.0) << " s cap";
    if (!stopped["time"].empty())
        out << " (" << size_list(stopped["time"]) << ")";
    out << "\n";
    return out.str();
}

// "# bimodal: 1 B (10.00 and 15.00 us, 52% in the upper): two clusters; the median is the larger one's, ..."
std::string bimodal_line(const Json& measurement)
{
    if (!measurement.is_object() || !measurement.contains("bimodal") || measurement["bimodal"].empty())
        return "";
    std::ostringstream out;
    out << "# bimodal:";
    const char* separator = " ";
    for (const Json& size : measurement["bimodal"]) {
        out << separator << format_bytes(size.value("size_bytes", uint64_t(0))) << " (" << std::fixed
            << std::setprecision(2) << size.value("low_median_us", 0.0) << " and " << size.value("high_median_us", 0.0)
            << " us, " << std::setprecision(0) << 100 * size.value("high_share", 0.0) << "% in the upper)"
            << std::defaultfloat;
        separator = ", ";
    }
    out << ": two clusters; the median is the larger one's, the mean mixes both (--raw keeps the samples)\n";
    return out.str();
}

} // namespace

std::string cpu_verdict_line(const Json& verdict)
{
    if (!verdict.is_object() || !verdict.contains("ranks") || !verdict["ranks"].is_array())
        return "";
    if (std::string why = cpu_verdict_text(verdict); !why.empty())
        return "# warning: " + why + "\n";
    if (verdict.value("clock", "") == "virtual")
        return "# CPUs: the sim's virtual clock timed this run: the CPUs do not set its times\n";
    double least = 1e300, most = 0;
    for (const Json& rank : verdict["ranks"]) {
        least = std::min(least, rank.value("cpu_share", 0.0));
        most = std::max(most, rank.value("cpu_share", 0.0));
    }
    const Json& waited = verdict.contains("max_waiting_share") ? verdict["max_waiting_share"] : Json();
    char text[200];
    if (waited.is_number())
        std::snprintf(text, sizeof text,
                      "# CPUs: %zu ranks on a CPU %.0f-%.0f%% of the run, none waited for one more than %.1f%%: "
                      "the CPUs kept up\n",
                      verdict["ranks"].size(), least * 100, most * 100, waited.get<double>() * 100);
    else
        std::snprintf(text, sizeof text,
                      "# CPUs: %zu ranks on a CPU %.0f-%.0f%% of the run (the kernel keeps no run-queue times)\n",
                      verdict["ranks"].size(), least * 100, most * 100);
    return text;
}

std::string cpu_verdict_text(const Json& verdict)
{
    if (!verdict.is_object() || !verdict.value("cpu_bound", false) || !verdict.contains("reasons"))
        return "";
    std::string text = "the CPUs, not the network, may have set this run's time:";
    const char* separator = " ";
    for (const Json& reason : verdict["reasons"])
        if (reason.is_string()) {
            text += separator + reason.get<std::string>();
            separator = "; ";
        }
    return text;
}

namespace {

std::string run_footer(const RunRecord& run)
{
    std::ostringstream out;
    out << cpu_verdict_line(run.cpu);
    out << passes_line(run.measurement) << adaptive_line(run.measurement) << bimodal_line(run.measurement);
    if (!run.sizes.empty()) // what the stated intervals cover (ngx --launches K: between launches)
        out << "# the 95% intervals above are within this launch: the next launch (another placement, frequency, "
               "interrupts) may land outside them; --launches K states intervals between launches\n";
    if (run.status == "error")
        out << "# stopped by an error: " << run.error << "\n";
    else if (run.status == "interrupted")
        out << "# interrupted after " << run.sizes.size() << " sizes\n";
    return out.str();
}

// The named columns beyond the fixed ones (extra percentiles, pattern
// columns), in order of first appearance over all runs.
std::vector<std::string> extra_columns(const Document& document)
{
    std::vector<std::string> columns;
    auto add = [&](const std::string& name) {
        if (std::find(columns.begin(), columns.end(), name) == columns.end())
            columns.push_back(name);
    };
    for (const RunRecord& run : document.runs)
        for (const SizeRecord& size : run.sizes) {
            for (const Percentile& p : size.summary.percentiles)
                add(percentile_key(p.rank));
            for (const auto& extra : size.extra)
                add(extra.first);
        }
    return columns;
}

std::optional<double> column_value(const SizeRecord& size, const std::string& column)
{
    for (const Percentile& p : size.summary.percentiles)
        if (percentile_key(p.rank) == column)
            return p.value;
    for (const auto& [name, value] : size.extra)
        if (name == column)
            return value;
    return std::nullopt;
}

void write_csv_row(std::ostringstream& out, const RunRecord& run, const SizeRecord& size,
                   const std::vector<std::string>& columns)
{
    const Summary& s = size.summary;
    out << size.size_bytes << ',' << s.count << ',' << s.min << ',' << s.median << ',' << s.mean << ',' << s.stddev
        << ',' << s.p99 << ',' << run.module << ',' << run.pattern;
    for (const std::string& column : columns) {
        out << ',';
        if (std::optional<double> value = column_value(size, column))
            out << *value;
    }
    out << '\n';
}

std::string interval_cell(const Json& value, const Json& interval)
{
    if (!value.is_number())
        return "-";
    std::ostringstream cell;
    cell << std::setprecision(4) << value.get<double>();
    if (interval.is_object() && interval.contains("ci95") && interval["ci95"][0].is_number())
        cell << " [" << interval["ci95"][0].get<double>() << ", " << interval["ci95"][1].get<double>() << "]";
    return cell.str();
}

class FileReporter final : public Reporter {
public:
    FileReporter(std::string path, OutputFormat format, bool keep_raw)
            : path_(std::move(path)), format_(format), keep_raw_(keep_raw)
    {
    }

    Status close(const Document& document) override
    {
        std::string text = format_ == OutputFormat::json  ? to_json(document, keep_raw_).dump(2) + "\n"
                           : format_ == OutputFormat::csv ? to_csv(document)
                                                          : to_table(document);
        return write_atomically(path_, text);
    }

private:
    std::string path_;
    OutputFormat format_;
    bool keep_raw_;
};

// Whether two rows have the same columns beyond the fixed ones.
bool same_columns(const SizeRecord& a, const SizeRecord& b)
{
    if (a.extra.size() != b.extra.size() || a.summary.percentiles.size() != b.summary.percentiles.size())
        return false;
    for (size_t i = 0; i < a.extra.size(); ++i)
        if (a.extra[i].first != b.extra[i].first)
            return false;
    for (size_t i = 0; i < a.summary.percentiles.size(); ++i)
        if (a.summary.percentiles[i].rank != b.summary.percentiles[i].rank)
            return false;
    return true;
}

// Row i of a run's table, with its line end. The column names follow the
// run's header for the first row; a row whose columns differ from the row
// before (allpairs: the bandwidth row adds bandwidth_MBps) gets a header
// line of its own, so that no value stands under another's name.
std::string table_row_at(const std::vector<SizeRecord>& sizes, size_t i)
{
    std::string header;
    if (i == 0)
        header = extra_header(sizes[0]) + "\n";
    else if (!same_columns(sizes[i - 1], sizes[i]))
        header = fixed_columns_header() + extra_header(sizes[i]) + "\n";
    return header + table_row(sizes[i]) + "\n";
}

} // namespace

void TableReporter::run_started(const RunRecord& run)
{
    out_ << table_header(run) << std::flush;
}

void TableReporter::size_done(const RunRecord& run, const SizeRecord&)
{
    out_ << table_row_at(run.sizes, run.sizes.size() - 1) << std::flush;
}

void TableReporter::run_finished(const RunRecord& run)
{
    if (run.sizes.empty())
        out_ << "\n";
    out_ << model_table(run.model) << run_footer(run) << "\n";
    if (run_tables_)
        out_ << tables_text(run_tables_(run));
    out_ << std::flush;
}

Status TableReporter::close(const Document& document)
{
    if (!document.comparison.is_null())
        out_ << comparison_table(document.comparison) << std::flush;
    return Status::ok();
}

std::optional<OutputFormat> format_from_name(const std::string& name)
{
    if (name == "table" || name == "txt")
        return OutputFormat::table;
    if (name == "csv")
        return OutputFormat::csv;
    if (name == "json")
        return OutputFormat::json;
    return std::nullopt;
}

std::optional<OutputFormat> format_from_path(const std::string& path)
{
    size_t dot = path.rfind('.');
    if (dot == std::string::npos || path.find('/', dot) != std::string::npos)
        return std::nullopt;
    return format_from_name(path.substr(dot + 1));
}

Json to_json(const RunRecord& run, bool keep_raw)
{
    Json json = {{"module", run.module},
                 {"pattern", run.pattern},
                 {"metric", run.metric},
                 {"status", run.status},
                 {"options", run.options}};
    if (!run.variant.empty())
        json["variant"] = run.variant;
    if (!run.error.empty())
        json["error"] = run.error;
    json["wall_seconds"] = run.wall_seconds;
    json["messages"] = run.messages;
    Json results = Json::array();
    for (const SizeRecord& size : run.sizes)
        results.push_back(size_to_json(size, keep_raw));
    json["results"] = results;
    if (!run.model.is_null())
        json["model"] = run.model;
    if (!run.measurement.is_null())
        json["measurement"] = run.measurement;
    if (!run.cpu.is_null())
        json["cpu_use"] = run.cpu;
    return json;
}

// One run: its fields at the top level. Several: a "runs" array.
Json to_json(const Document& document, bool keep_raw)
{
    Json json = {{"schema_version", json_schema_version}};
    for (const auto& [key, value] : document.context.items())
        json[key] = value;
    if (document.runs.size() == 1) {
        Json run = to_json(document.runs.front(), keep_raw);
        for (const auto& [key, value] : run.items())
            json[key] = value;
    } else {
        Json runs = Json::array();
        for (const RunRecord& run : document.runs)
            runs.push_back(to_json(run, keep_raw));
        json["runs"] = runs;
    }
    if (!document.comparison.is_null())
        json["comparison"] = document.comparison;
    return json;
}

std::string to_csv(const Document& document)
{
    std::ostringstream out;
    out << std::setprecision(9);
    std::vector<std::string> columns = extra_columns(document);
    out << "size_bytes,count,min_us,median_us,mean_us,stddev_us,p99_us,module,pattern";
    for (const std::string& column : columns)
        out << ',' << column;
    out << '\n';
    for (const RunRecord& run : document.runs)
        for (const SizeRecord& size : run.sizes)
            write_csv_row(out, run, size, columns);
    return out.str();
}

std::string to_table(const Document& document)
{
    std::ostringstream out;
    for (const RunRecord& run : document.runs) {
        out << table_header(run);
        if (run.sizes.empty())
            out << "\n";
        for (size_t i = 0; i < run.sizes.size(); ++i)
            out << table_row_at(run.sizes, i);
        out << model_table(run.model) << run_footer(run) << "\n";
    }
    return out.str();
}

const char* ngx_version()
{
    return NGX_VERSION;
}

std::unique_ptr<Reporter> make_file_reporter(std::string path, OutputFormat format, bool keep_raw)
{
    return std::make_unique<FileReporter>(std::move(path), format, keep_raw);
}

namespace {

// A fitted parameter as "value [low, high]": either {"value": v, "ci95": [..]}
// or a number whose interval sits in `intervals[key]`.
std::string parameter_cell(const Json& value, const Json& intervals, const std::string& key)
{
    if (value.is_object() && value.contains("value"))
        return interval_cell(value["value"], value);
    return interval_cell(value, intervals.is_object() ? intervals.value(key, Json()) : Json());
}

// Fitted parameters carry a 95% interval; thresholds are named *_bytes.
bool is_parameter(const std::string& key, const Json& value, const Json& intervals)
{
    if (value.is_object())
        return value.contains("value") && value.contains("ci95");
    return value.is_number() && intervals.is_object() && intervals.contains(key);
}

std::string threshold_cell(const Json& value)
{
    return value.is_number() && value.get<double>() >= 0 ? format_bytes(uint64_t(value.get<double>())) : "none";
}

// Every parameter and threshold of one JSON object, "  key value" each.
std::string parameter_cells(const Json& object, const std::string& separator)
{
    std::ostringstream out;
    Json intervals = object.value("intervals", Json::object());
    for (const auto& [key, value] : object.items()) {
        if (is_parameter(key, value, intervals))
            out << separator << key << " " << parameter_cell(value, intervals, key);
        else if (key.ends_with("_bytes") && key != "from_bytes" && key != "to_bytes" && !value.is_array())
            out << separator << key << " " << threshold_cell(value);
    }
    return out.str();
}

std::string prediction_error_line(const Json& model)
{
    if (!model.contains("prediction_error") || !model["prediction_error"]["max_relative"].is_number())
        return "";
    std::ostringstream out;
    out << "# prediction error over the measured points: max " << std::setprecision(3)
        << 100 * model["prediction_error"]["max_relative"].get<double>() << "%, mean "
        << 100 * model["prediction_error"]["mean_relative"].get<double>() << "%\n";
    return out.str();
}

std::string ranges_table(const Json& ranges)
{
    std::ostringstream out;
    for (const Json& range : ranges) {
        out << "  " << threshold_cell(range.value("from_bytes", Json())) << " .. "
            << threshold_cell(range.value("to_bytes", Json())) << ":" << parameter_cells(range, "  ") << "\n";
        if (range.contains("note") && range["note"].is_string())
            out << "    note: " << range["note"].get<std::string>() << "\n";
        if (range.contains("warning") && range["warning"].is_string())
            out << "    warning: " << range["warning"].get<std::string>() << "\n";
    }
    return out.str();
}

// A verdict a model states about what it measured (allpairs: the slow nodes
// and links): {"summary": TEXT, "rows": [[TOKEN, ...], ...]}, printed as
// "# KIND verdict: TEXT" and one line of blank-separated tokens per row, so
// that `awk '$1 == "slow_node"'` reads it.
std::string verdict_table(const std::string& kind, const Json& verdict)
{
    if (!verdict.is_object() || !verdict.contains("summary"))
        return "";
    std::ostringstream out;
    out << "# " << kind << " verdict: " << verdict["summary"].get<std::string>() << "\n";
    for (const Json& row : verdict.value("rows", Json::array())) {
        out << " ";
        for (const Json& token : row) {
            out << " ";
            if (token.is_string())
                out << token.get<std::string>();
            else if (token.is_number())
                out << std::setprecision(4) << token.get<double>();
            else
                out << "-";
        }
        out << "\n";
    }
    return out.str();
}

} // namespace

// Generic: the core knows no model. A model is a JSON object with a "kind";
// its parameters are values with 95% intervals, its thresholds *_bytes, and
// models with protocol ranges list them in "ranges" (from_bytes, to_bytes);
// a model without parameters prints no parameter heading; a "verdict" is
// printed after them (verdict_table).
std::string model_table(const Json& model)
{
    if (!model.is_object())
        return "";
    std::string kind = model.value("kind", std::string("model"));
    bool ranged = model.contains("ranges") && model["ranges"].is_array();
    std::string overall = parameter_cells(model, "\n  ");
    std::ostringstream out;
    // "source": where a model a run was compared with came from (bw: its own fit or a file).
    const Json source = model.value("source", Json());
    if (ranged || !overall.empty())
        out << "# " << kind << " parameters" << (ranged ? " per protocol range" : "") << " (95% intervals)"
            << (source.is_string() ? ", from " + source.get<std::string>() : std::string()) << "\n";
    if (!overall.empty())
        out << overall.substr(1) << "\n";
    if (ranged)
        out << ranges_table(model["ranges"]);
    return out.str() + prediction_error_line(model) + verdict_table(kind, model.value("verdict", Json()));
}

} // namespace ngx
