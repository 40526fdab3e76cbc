// The readable table of a comparison object (see comparison_table.hpp).
#include "comparison_table.hpp"

#include <ngx/size_token.hpp>
#include <ngx/sizes.hpp>

#include <algorithm>
#include <iomanip>
#include <sstream>
#include <vector>

namespace ngx {
namespace {

std::string cell(const Json& value, int width, int precision)
{
    std::ostringstream out;
    if (value.is_number())
        out << std::setw(width) << std::fixed << std::setprecision(precision) << value.get<double>();
    else
        out << std::setw(width) << "-";
    return out.str();
}

void print_size_rows(std::ostringstream& out, const Json& comparison)
{
    out << std::setw(10) << "bytes" << std::setw(8) << "size";
    const Json& labels = comparison["labels"];
    std::vector<int> widths;
    for (size_t i = 0; i < labels.size(); ++i) {
        std::string label = labels[i].get<std::string>() + "_median";
        widths.push_back(std::max(12, int(label.size())));
        out << "  " << std::setw(widths.back()) << label;
        if (i > 0)
            out << std::setw(11) << "diff" << std::setw(8) << "ratio";
    }
    out << "\n";
    for (const Json& row : comparison["sizes"]) {
        uint64_t bytes = row["size_bytes"].get<uint64_t>();
        out << std::setw(10) << bytes << std::setw(8) << size_token(bytes);
        const Json& values = row["values"];
        for (size_t i = 0; i < values.size(); ++i) {
            out << "  " << cell(values[i]["median_us"], i < widths.size() ? widths[i] : 12, 3);
            if (i > 0)
                out << cell(values[i]["diff_us"], 11, 3) << cell(values[i]["ratio"], 8, 3);
        }
        out << "\n";
    }
}

std::string range_title(const Json& range)
{
    if (!range["range"].is_number())
        return "whole model";
    auto bytes = [](const Json& value) {
        return value.is_number() ? format_bytes(uint64_t(value.get<double>())) : std::string("?");
    };
    return "range " + std::to_string(range["range"].get<size_t>()) + ": " + bytes(range["from_bytes"]) + " .. " +
           bytes(range["to_bytes"]);
}

std::string parameter_text(const Json& value)
{
    if (value.is_boolean())
        return value.get<bool>() ? "yes" : "no";
    if (!value.is_number())
        return "-";
    std::ostringstream out;
    out << std::setprecision(4) << value.get<double>();
    return out.str();
}

void print_model_rows(std::ostringstream& out, const Json& comparison)
{
    if (!comparison.contains("model") || comparison["model"].is_null())
        return;
    out << "# fitted parameters: value (difference to " << comparison["baseline"].get<std::string>() << ")\n";
    for (const Json& range : comparison["model"]) {
        out << range_title(range) << "\n";
        for (const char* group : {"parameters", "flags"}) {
            if (!range.contains(group))
                continue;
            for (const auto& [parameter, values] : range[group].items()) {
                out << "  " << std::setw(16) << std::left << parameter << std::right;
                for (const Json& value : values) {
                    out << "  " << value["label"].get<std::string>() << " " << parameter_text(value["value"]);
                    if (value.contains("diff"))
                        out << " (" << parameter_text(value["diff"]) << ")";
                }
                out << "\n";
            }
        }
    }
}

} // namespace

std::string comparison_table(const Json& comparison)
{
    std::ostringstream out;
    out << "# comparison: " << comparison["pattern"].get<std::string>() << ", median "
        << comparison["metric"].get<std::string>() << " in microseconds; diff and ratio to "
        << comparison["baseline"].get<std::string>() << "\n";
    print_size_rows(out, comparison);
    print_model_rows(out, comparison);
    if (comparison.contains("allpairs"))
        out << map_comparison_table(comparison["allpairs"]);
    return out.str();
}

namespace {

std::string number_text(const Json& value, int precision = 4)
{
    if (!value.is_number())
        return "-";
    std::ostringstream out;
    out << std::setprecision(precision) << value.get<double>();
    return out.str();
}

void print_cells(std::ostringstream& out, const Json& quantity, const char* name, const char* unit)
{
    const Json& changed = quantity["changed"];
    out << "  " << name << ": median ratio " << number_text(quantity["median_ratio"]) << " over "
        << quantity["cells"].get<size_t>() << " cells; " << changed.size() << " moved apart from the rest\n";
    for (const Json& c : changed)
        out << "    " << c["from"].get<size_t>() << " (" << c["from_host"].get<std::string>() << ") -> "
            << c["to"].get<size_t>() << " (" << c["to_host"].get<std::string>() << "): " << number_text(c["baseline"])
            << " -> " << number_text(c["value"]) << " " << unit << " (x" << number_text(c["ratio"], 3) << ")\n";
}

} // namespace

std::string map_comparison_table(const Json& maps)
{
    if (maps.is_null())
        return "";
    std::ostringstream out;
    out << "# all-pairs maps, " << maps["ranks"].get<size_t>() << " ranks, cell by cell against "
        << maps["baseline"].get<std::string>() << " (row = sender); moved apart: beyond "
        << number_text(maps["rule"]["spread_factor"]) << " robust spreads of the rest and "
        << number_text(100 * maps["rule"]["least_change"].get<double>()) << "%\n";
    for (const Json& run : maps["runs"]) {
        out << run["label"].get<std::string>()
            << (run["hosts_differ"].get<bool>() ? " (its ranks ran on other hosts: cells matched by rank)" : "")
            << ":\n";
        print_cells(out, run["latency"], "latency", "us");
        print_cells(out, run["bandwidth"], "bandwidth", "MB/s");
        for (const Json& node : run["nodes"])
            if (node["changed"].get<bool>())
                out << "  node " << node["host"].get<std::string>() << " moved: latency x"
                    << number_text(node["latency_ratio"], 3) << ", bandwidth x"
                    << number_text(node["bandwidth_ratio"], 3) << "\n";
    }
    return out.str();
}

} // namespace ngx
