// Tables as aligned text and as CSV (see table_report.hpp).
#include "table_report.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ngx {
namespace {

// A whole number as such (a byte count, a process count); any other number
// with six significant digits in the text, as JSON writes it in the CSV.
// NaN is no value (""); an infinity is "inf" or "-inf" in both.
std::string number_text(double value, bool csv)
{
    if (std::isnan(value))
        return "";
    if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 9007199254740992.0)
        return std::to_string(int64_t(value));
    if (csv && std::isfinite(value))
        return Json(value).dump();
    std::ostringstream out;
    out << value;
    return out.str();
}

// A cell's text, "" for null (the caller puts the column's null_text in the table).
std::string cell_text(const Json& cell, bool csv)
{
    if (cell.is_null())
        return "";
    if (cell.is_string())
        return cell.get<std::string>();
    if (cell.is_number_integer())
        return cell.dump();
    if (cell.is_number())
        return number_text(cell.get<double>(), csv);
    return cell.dump();
}

std::string csv_field(const std::string& text)
{
    if (text.find_first_of(",\"\r\n") == std::string::npos)
        return text;
    std::string quoted = "\"";
    for (char c : text)
        quoted.append(c == '"' ? 2 : 1, c);
    return quoted.append(1, '"');
}

std::string padded(const std::string& text, size_t width, bool right)
{
    const std::string fill(width - std::min(width, text.size()), ' ');
    return right ? fill + text : text + fill;
}

// Row `r`'s cell of column `c` (null where the row is short).
const Json& cell_at(const Table& table, size_t r, size_t c)
{
    static const Json null;
    const std::vector<Json>& row = table.rows[r];
    return c < row.size() ? row[c] : null;
}

} // namespace

std::string table_text(const Table& table)
{
    std::ostringstream out;
    if (!table.title.empty())
        out << "# " << table.title << "\n";
    for (const std::string& note : table.notes)
        out << "# " << note << "\n";
    if (table.rows.empty())
        return out.str();
    const size_t n = table.columns.size();
    std::vector<std::vector<std::string>> lines(1);
    for (const TableColumn& column : table.columns)
        lines.front().push_back(column.name);
    for (size_t r = 0; r < table.rows.size(); ++r) {
        lines.emplace_back();
        for (size_t c = 0; c < n; ++c) {
            const Json& cell = cell_at(table, r, c);
            std::string text = cell_text(cell, false);
            lines.back().push_back(text.empty() && !cell.is_string() ? table.columns[c].null_text : text); // null, NaN
        }
    }
    std::vector<size_t> widths(n, 0);
    for (const std::vector<std::string>& line : lines)
        for (size_t c = 0; c < n; ++c)
            widths[c] = std::max(widths[c], line[c].size());
    for (const std::vector<std::string>& line : lines) {
        std::string text;
        for (size_t c = 0; c < n; ++c)
            text.append(c == 0 ? "" : "  ").append(padded(line[c], widths[c], table.columns[c].numeric));
        out << text.erase(text.find_last_not_of(' ') + 1) << "\n";
    }
    return out.str();
}

std::string table_csv(const Table& table)
{
    std::string out;
    for (size_t c = 0; c < table.columns.size(); ++c)
        out.append(c == 0 ? "" : ",").append(csv_field(table.columns[c].name));
    out += "\n";
    for (size_t r = 0; r < table.rows.size(); ++r) {
        for (size_t c = 0; c < table.columns.size(); ++c)
            out.append(c == 0 ? "" : ",").append(csv_field(cell_text(cell_at(table, r, c), true)));
        out += "\n";
    }
    return out;
}

std::string tables_text(const std::vector<Table>& tables)
{
    std::string out;
    for (size_t i = 0; i < tables.size(); ++i)
        out.append(i == 0 ? "" : "\n").append(table_text(tables[i]));
    return out;
}

std::string tables_csv(const std::vector<Table>& tables)
{
    std::string out;
    for (size_t i = 0; i < tables.size(); ++i) {
        out.append(i == 0 ? "" : "\n").append("# " + tables[i].title + "\n");
        for (const std::string& note : tables[i].notes)
            out.append("# " + note + "\n");
        out.append(table_csv(tables[i]));
    }
    return out;
}

} // namespace ngx
