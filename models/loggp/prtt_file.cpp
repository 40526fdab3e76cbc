// Parsing and validating saved PRTT medians (see prtt_file.hpp).
#include <models/loggp/prtt_file.hpp>

#include <ngx/json_input.hpp>
#include <ngx/reporter.hpp>
#include <ngx/saved_run.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <sstream>

namespace ngx {
namespace {

const std::vector<std::string> required_columns = {"size_bytes",  "n",           "delay_us",
                                                   "prtt_1_0_us", "prtt_n_0_us", "prtt_n_d_us"};
// After the required columns, in this order, each optional.
const std::vector<std::string> optional_columns = {"o_r_us", "rel_ci95"};
constexpr size_t max_file_bytes = 64u << 20;

std::vector<std::string> split_cells(const std::string& line)
{
    std::vector<std::string> cells;
    std::stringstream stream(line);
    for (std::string cell; std::getline(stream, cell, ',');)
        cells.push_back(cell);
    if (!line.empty() && line.back() == ',')
        cells.emplace_back();
    return cells;
}

std::string trim(std::string text)
{
    while (!text.empty() && (text.back() == '\r' || text.back() == ' '))
        text.pop_back();
    size_t start = text.find_first_not_of(' ');
    return start == std::string::npos ? "" : text.substr(start);
}

Status bad(const std::string& name, size_t line, const std::string& why)
{
    return Status::usage(name + ":" + std::to_string(line) + ": " + why);
}

Result<double> parse_cell(const std::string& name, size_t line, const std::string& column, const std::string& cell)
{
    std::string text = trim(cell);
    double value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || end != text.data() + text.size() || error != std::errc() || !std::isfinite(value))
        return bad(name, line, "column " + column + ": '" + text + "' is not a number");
    if (value < 0)
        return bad(name, line, "column " + column + ": " + text + " is negative");
    return value;
}

Status check_header(const std::string& name, const std::vector<std::string>& header, size_t& columns)
{
    for (size_t i = 0; i < required_columns.size(); ++i) {
        if (i >= header.size())
            return bad(name, 1,
                       "missing column '" + required_columns[i] + "' (expected the header " + prtt_csv_header + ")");
        if (trim(header[i]) != required_columns[i])
            return bad(name, 1,
                       "column " + std::to_string(i + 1) + " is '" + trim(header[i]) + "', expected '" +
                           required_columns[i] + "' (header " + prtt_csv_header + ")");
    }
    for (size_t i = required_columns.size(); i < header.size(); ++i) {
        size_t k = i - required_columns.size();
        if (k >= optional_columns.size() || trim(header[i]) != optional_columns[k])
            return bad(name, 1, "unexpected column '" + trim(header[i]) + "' (header " + prtt_csv_header + ")");
    }
    columns = header.size();
    return Status::ok();
}

std::string column_name(size_t i)
{
    return i < required_columns.size() ? required_columns[i] : optional_columns[i - required_columns.size()];
}

Result<fit::PrttSample> parse_row(const std::string& name, size_t line, const std::vector<std::string>& cells,
                                  size_t columns, PrttTable& table)
{
    if (cells.size() != columns)
        return bad(name, line, "expected " + std::to_string(columns) + " cells, found " + std::to_string(cells.size()));
    double values[8] = {};
    for (size_t i = 0; i < columns; ++i) {
        if (column_name(i) == "rel_ci95" && trim(cells[i]).empty()) {
            values[i] = std::nan(""); // not measured (too few repetitions)
            continue;
        }
        NGX_ASSIGN_OR_RETURN(double value, parse_cell(name, line, column_name(i), cells[i]));
        values[i] = value;
    }
    if (values[0] < 1 || values[0] != std::floor(values[0]))
        return bad(name, line, "size_bytes must be a whole number >= 1");
    if (table.n == 0)
        table.n = values[1];
    if (values[1] != table.n || table.n < 2)
        return bad(name, line, "n must be the same number >= 2 on every line");
    fit::PrttSample sample{values[0], values[3], values[4], values[5], values[2], std::nullopt, std::nullopt};
    if (columns > required_columns.size())
        sample.o_r = values[6];
    if (columns > required_columns.size() + 1)
        table.rel_ci.push_back(values[7]);
    return sample;
}

Status check_sizes(const std::string& name, const PrttTable& table)
{
    if (table.samples.size() < 3)
        return Status::usage(name + ": " + std::to_string(table.samples.size()) +
                             " sizes; fitting g and G over eq. (7) needs at least three");
    for (size_t i = 1; i < table.samples.size(); ++i)
        if (table.samples[i].size <= table.samples[i - 1].size)
            return bad(name, i + 2,
                       "sizes must increase from line to line (" + std::to_string(uint64_t(table.samples[i].size)) +
                           " after " + std::to_string(uint64_t(table.samples[i - 1].size)) + ")");
    return Status::ok();
}

double extra(const Json& result, const char* key)
{
    return result.contains(key) && result[key].is_number() ? result[key].get<double>() : std::nan("");
}

bool is_loggp_run(const Json& run)
{
    const Json* pattern = json_member(run, "pattern");
    const Json* results = json_member(run, "results");
    return pattern != nullptr && *pattern == "loggp" && results != nullptr && results->is_array();
}

// The run's options.pattern_options.NAME; nullptr when absent.
const Json* saved_pattern_option(const Json& run, const char* name)
{
    const Json* options = json_member(run, "options");
    const Json* pattern_options = options != nullptr ? json_member(*options, "pattern_options") : nullptr;
    return pattern_options != nullptr ? json_member(*pattern_options, name) : nullptr;
}

// n of PRTT(n, d, s) from options.pattern_options.n; 0 when absent.
double saved_n(const Json& run)
{
    const Json* n = saved_pattern_option(run, "n");
    return n != nullptr && n->is_number() ? n->get<double>() : 0.0;
}

// The run's fit setting (LogGPFitSettings::negative), when it recorded one.
std::string saved_negative(const Json& run)
{
    const Json* negative = saved_pattern_option(run, "negative");
    return negative != nullptr && negative->is_string() ? negative->get<std::string>() : std::string();
}

// A saved loggp run: results carry the medians, o_r and the exchanges, options the n.
Result<PrttTable> parse_prtt_json(const Json& document, const std::string& name, const std::string& module)
{
    Result<const Json*> chosen = choose_saved_run(
        document, name, "loggp run", "not a saved loggp run (no pattern \"loggp\" with results)", is_loggp_run, module);
    if (!chosen)
        return chosen.status();
    const Json* run = *chosen;
    PrttTable table;
    table.n = saved_n(*run);
    table.negative = saved_negative(*run);
    if (!table.negative.empty() && table.negative != "yes" && table.negative != "no")
        return Status::usage(name + ": options.pattern_options.negative is '" + table.negative +
                             "', expected yes or no");
    for (const Json& r : (*run)["results"]) {
        fit::PrttSample sample{extra(r, "size_bytes"),
                               extra(r, "median_us"),
                               extra(r, "prtt_n_0_us"),
                               extra(r, "prtt_n_d_us"),
                               extra(r, "delay_us"),
                               extra(r, "o_r_us"),
                               std::nullopt};
        if (!std::isfinite(*sample.o_r))
            sample.o_r.reset();
        if (const double exchange = extra(r, "exchange_us"); std::isfinite(exchange)) // models/loggp/exchange_share.hpp
            sample.exchange = exchange;
        for (double value : {sample.size, sample.prtt_1_0, sample.prtt_n_0, sample.prtt_n_d, sample.delay})
            if (!std::isfinite(value))
                return Status::usage(name + ": a loggp result lacks one of size_bytes, median_us, prtt_n_0_us, "
                                            "prtt_n_d_us, delay_us");
        table.samples.push_back(sample);
        table.rel_ci.push_back(extra(r, "rel_ci95"));
    }
    if (table.n < 2)
        return Status::usage(name + ": options.pattern_options.n is missing or below 2");
    NGX_TRY(check_sizes(name, table));
    return table;
}

} // namespace

Result<PrttTable> parse_prtt_csv(const std::string& text, const std::string& name)
{
    if (text.find('\0') != std::string::npos)
        return Status::usage(name + ": binary data, not a CSV file");
    std::stringstream stream(text);
    std::string line;
    if (!std::getline(stream, line) || trim(line).empty())
        return Status::usage(name + ": empty file (expected the header " + std::string(prtt_csv_header) + ")");
    size_t columns = 0;
    NGX_TRY(check_header(name, split_cells(trim(line)), columns));
    PrttTable table;
    for (size_t number = 2; std::getline(stream, line); ++number) {
        if (trim(line).empty())
            continue;
        NGX_ASSIGN_OR_RETURN(fit::PrttSample sample, parse_row(name, number, split_cells(trim(line)), columns, table));
        table.samples.push_back(sample);
    }
    NGX_TRY(check_sizes(name, table));
    return table;
}

Result<PrttTable> read_prtt_file(const std::string& path, const std::string& module)
{
    Result<std::string> read = read_regular_file(path); // a FIFO would block: refused
    if (!read)
        return read.status();
    const std::string& text = *read;
    if (text.size() > max_file_bytes)
        return Status::usage(path + ": larger than 64 MiB; not a raw-PRTT file");
    size_t first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && text[first] == '{') {
        Json document = Json::parse(text, nullptr, false);
        if (document.is_discarded())
            return Status::usage(path + ": starts like JSON but is not valid JSON");
        NGX_TRY(check_json_document(document, path));
        return parse_prtt_json(document, path, module);
    }
    return parse_prtt_csv(text, path);
}

namespace {

double extra_value(const SizeRecord& size, const std::string& name)
{
    for (const auto& [key, value] : size.extra)
        if (key == name)
            return value;
    return std::nan("");
}

class PrttCsvReporter final : public Reporter {
public:
    explicit PrttCsvReporter(std::string path) : path_(std::move(path)) {}
    Status close(const Document& document) override
    {
        if (document.runs.empty())
            return Status::ok();
        return write_atomically(path_, to_prtt_csv(document.runs.front()));
    }

private:
    std::string path_;
};

} // namespace

std::string to_prtt_csv(const RunRecord& run)
{
    std::ostringstream out;
    out << std::setprecision(17) << prtt_csv_header << "\n"; // every digit: `ngx fit` gives the run's model
    Json n = run.options.contains("pattern_options") ? run.options["pattern_options"].value("n", Json()) : Json();
    for (const SizeRecord& size : run.sizes) {
        out << size.size_bytes << ',' << (n.is_number() ? n.get<double>() : std::nan("")) << ','
            << extra_value(size, "delay_us") << ',' << size.summary.median << ',' << extra_value(size, "prtt_n_0_us")
            << ',' << extra_value(size, "prtt_n_d_us") << ',' << extra_value(size, "o_r_us") << ',';
        if (double rel_ci = extra_value(size, "rel_ci95"); std::isfinite(rel_ci))
            out << rel_ci;
        out << "\n";
    }
    return out.str();
}

std::unique_ptr<Reporter> make_prtt_csv_reporter(std::string path)
{
    return std::make_unique<PrttCsvReporter>(std::move(path));
}

} // namespace ngx
