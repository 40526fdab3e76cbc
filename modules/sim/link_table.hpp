// --sim-links FILE: the latency L and the gap per byte G of each ordered pair
// of ranks, for a simulated cluster whose links differ (a slow node, a slow
// cable). One line per ordered pair, "FROM TO L G": ranks, L in
// microseconds (at least 1), G in microseconds per byte; blank lines and
// # comments are skipped. A pair the file does not name keeps --sim-L and
// --sim-G. The sender's row decides: a message from FROM to TO arrives
// L + (s-1) G after its injection.
//
//     ngx::sim::LinkTable table;
//     std::string why;
//     if (!ngx::sim::read_link_table("links.txt", &table, &why)) ... why names the line
//     if (const LinkCost* cost = table.find(0, 3)) ... cost->latency_ns
#ifndef NGX_SIM_LINK_TABLE_HPP
#define NGX_SIM_LINK_TABLE_HPP

#include <ngx/module_support.hpp>

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <utility>

namespace ngx::sim {

struct LinkCost {
    double latency_ns = 0;
    double gap_per_byte_ns = 0;
};

struct LinkTable {
    std::map<std::pair<int, int>, LinkCost> costs;

    const LinkCost* find(int from, int to) const
    {
        auto it = costs.find({from, to});
        return it == costs.end() ? nullptr : &it->second;
    }
};

// A table of a million pairs is far below this.
inline constexpr size_t max_link_table_bytes = size_t(64) << 20;

inline bool read_link_table(const std::string& path, LinkTable* table, std::string* why)
{
    std::string text;
    if (!ngx::mod::read_small_file(path, max_link_table_bytes, &text, why))
        return false;
    std::istringstream in(text);
    LinkTable read;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        line = line.substr(0, line.find('#'));
        std::istringstream fields(line);
        long from = 0, to = 0;
        double latency_us = 0, gap_us = 0;
        std::string extra;
        if (!(fields >> from)) {
            if (line.find_first_not_of(" \t\r") == std::string::npos)
                continue; // blank
        }
        const std::string where = path + " line " + std::to_string(number) + ": ";
        if (!fields || !(fields >> to >> latency_us >> gap_us) || (fields >> extra)) {
            *why = where + "expected 'FROM TO L G' (ranks, L in us, G in us/byte)";
            return false;
        }
        if (from < 0 || to < 0 || from == to || from > 1000000 || to > 1000000) {
            *why = where + "FROM and TO must be two different ranks";
            return false;
        }
        if (!std::isfinite(latency_us) || latency_us < 1 || latency_us > 1e6 || !std::isfinite(gap_us) || gap_us < 0 ||
            gap_us > 1e3) {
            *why = where + "L must be 1..1e6 us and G 0..1000 us/byte";
            return false;
        }
        if (!read.costs.emplace(std::pair<int, int>{int(from), int(to)}, LinkCost{latency_us * 1e3, gap_us * 1e3})
                 .second) {
            *why = where + "the pair " + std::to_string(from) + " -> " + std::to_string(to) + " is named twice";
            return false;
        }
    }
    *table = std::move(read);
    return true;
}

} // namespace ngx::sim

#endif
