// A table as data: what a pattern or a model kind returns for the core to
// print (a fit's tables in FitOutput, a live run's in PatternInfo::run_tables,
// `ngx predict`'s rows), never text. Each column is named with its unit
// (time_us, bytes, rate_MBps) and says whether it holds numbers; each cell is
// a JSON value: a number, a string or null (nothing there). The core renders
// every table the same way: aligned text or CSV (core/plugin/table_report.hpp).
//
//     Table t{.title = "T(k, n) us", .columns = {{"bytes", true}, {"k=1_us", true, "-"}}};
//     t.rows.push_back({1024, json_number(12.5)});
#ifndef NGX_TABLE_HPP
#define NGX_TABLE_HPP

#include <ngx/record.hpp>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace ngx {

struct TableColumn {
    std::string name;        // with its unit: time_us, bytes, rate_MBps
    bool numeric = false;    // right-aligned in the text
    std::string null_text{}; // what the text shows for a null cell ("-"); CSV leaves it empty
};

struct Table {
    std::string title{}; // "# title" above the text; names the table in a CSV of several
    std::vector<TableColumn> columns{};
    std::vector<std::vector<Json>> rows{}; // one cell per column
    std::vector<std::string> notes{};      // "# note" lines under the title
};

// The tables a pattern adds to a live run's text, after the run's own (PatternInfo::run_tables).
using RunTables = std::function<std::vector<Table>(const RunRecord&)>;

// A table of JSON objects that share their keys (a fit's "rows"): one
// column per key of the first, numeric where its value is a number; a key
// an object lacks is a null cell.
inline Table table_of_objects(std::string title, const Json& objects, std::vector<std::string> notes = {})
{
    Table table{.title = std::move(title), .notes = std::move(notes)};
    if (!objects.is_array() || objects.empty() || !objects.front().is_object())
        return table;
    for (const auto& [key, value] : objects.front().items())
        table.columns.push_back({key, value.is_number() || value.is_null(), "-"});
    for (const Json& object : objects) {
        std::vector<Json> row;
        for (const TableColumn& column : table.columns)
            row.push_back(object.is_object() ? object.value(column.name, Json()) : Json());
        table.rows.push_back(std::move(row));
    }
    return table;
}

} // namespace ngx

#endif
