// The one renderer of tables (ngx/table.hpp) in the core: aligned text for
// the terminal (a live run's pattern tables, `ngx fit`, `ngx predict`) and
// CSV (--format csv). Numbers: a whole number as an integer; any other with
// six significant digits in the text, as JSON writes it in the CSV. A null
// cell is the column's null_text in the text and empty in the CSV.
//
//     std::cout << table_text(table);   // "# title", "# note"s, header, aligned rows
//     std::cout << tables_csv(tables);  // per table "# title", its CSV, a blank line between
#ifndef NGX_PLUGIN_TABLE_REPORT_HPP
#define NGX_PLUGIN_TABLE_REPORT_HPP

#include <ngx/table.hpp>

#include <string>
#include <vector>

namespace ngx {

// "# title" (when it has one), "# note" lines, then the header and one
// aligned line per row (none without rows); trailing spaces trimmed.
std::string table_text(const Table& table);
// The header and one line per row; fields with a comma, a quote or a line
// break quoted, quotes doubled (RFC 4180). No title and no notes.
std::string table_csv(const Table& table);

// Each table's text, a blank line between them.
std::string tables_text(const std::vector<Table>& tables);
// Each table as "# title", its "# note" lines and its CSV, a blank line between them.
std::string tables_csv(const std::vector<Table>& tables);

} // namespace ngx

#endif
