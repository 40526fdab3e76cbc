// All-pairs maps compared cell by cell (see map_comparison.hpp).
#include "map_comparison.hpp"

#include <ngx/statistics.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ngx {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
using Matrix = std::vector<std::vector<double>>;

// object[key] when object is an object holding it, else nullptr.
const Json* member(const Json& object, const char* key)
{
    if (!object.is_object())
        return nullptr;
    auto found = object.find(key);
    return found == object.end() ? nullptr : &*found;
}

const Json* map_of(const Json& run)
{
    const Json* model = member(run, "model");
    const Json* map = model != nullptr && model->is_object() ? member(*model, "allpairs") : nullptr;
    return map != nullptr && map->is_object() ? map : nullptr;
}

// A P x P matrix of the map (null cells and anything not a number: NaN).
Matrix matrix_of(const Json& map, const char* name, size_t P)
{
    Matrix m(P, std::vector<double>(P, nan));
    const Json* rows = member(map, name);
    if (rows == nullptr || !rows->is_array())
        return m;
    for (size_t i = 0; i < P && i < rows->size(); ++i)
        if ((*rows)[i].is_array())
            for (size_t j = 0; j < P && j < (*rows)[i].size(); ++j)
                if ((*rows)[i][j].is_number())
                    m[i][j] = (*rows)[i][j].get<double>();
    return m;
}

std::vector<std::string> hosts_of(const Json& map, size_t P)
{
    std::vector<std::string> hosts(P);
    const Json* list = member(map, "hosts");
    for (size_t i = 0; list != nullptr && list->is_array() && i < P && i < list->size(); ++i)
        if ((*list)[i].is_string())
            hosts[i] = (*list)[i].get<std::string>();
    return hosts;
}

size_t ranks_of(const Json& map)
{
    const Json* hosts = member(map, "hosts");
    return hosts != nullptr && hosts->is_array() ? hosts->size() : 0;
}

// log(value / baseline) per cell; NaN where either is not a positive number.
Matrix log_ratios(const Matrix& baseline, const Matrix& other)
{
    Matrix r = baseline;
    for (size_t i = 0; i < r.size(); ++i)
        for (size_t j = 0; j < r[i].size(); ++j)
            r[i][j] = i != j && baseline[i][j] > 0 && other[i][j] > 0 ? std::log(other[i][j] / baseline[i][j]) : nan;
    return r;
}

std::vector<double> finite_cells(const Matrix& m)
{
    std::vector<double> cells;
    for (const std::vector<double>& row : m)
        for (double v : row)
            if (std::isfinite(v))
                cells.push_back(v);
    return cells;
}

// Whether `x` (a log ratio) moved apart from `others`.
bool apart(double x, const std::vector<double>& others, const MapChangeRule& rule)
{
    const double centre = finite_median(others);
    if (!std::isfinite(x) || !std::isfinite(centre))
        return false;
    const double margin = std::max(rule.spread_factor * scaled_mad(others), std::log1p(rule.least_change));
    return std::fabs(x - centre) > margin;
}

Json ratio_matrix(const Matrix& logs)
{
    Json rows = Json::array();
    for (const std::vector<double>& row : logs) {
        Json out = Json::array();
        for (double v : row)
            out.push_back(json_number(std::exp(v)));
        rows.push_back(out);
    }
    return rows;
}

// One quantity (latency or bandwidth) of one run against the baseline.
Json compare_quantity(const Matrix& baseline, const Matrix& other, const std::vector<std::string>& hosts,
                      const MapChangeRule& rule)
{
    const Matrix logs = log_ratios(baseline, other);
    const std::vector<double> all = finite_cells(logs);
    Json changed = Json::array();
    for (size_t i = 0; i < logs.size(); ++i)
        for (size_t j = 0; j < logs[i].size(); ++j)
            if (apart(logs[i][j], all, rule))
                changed.push_back({{"from", i},
                                   {"to", j},
                                   {"from_host", hosts[i]},
                                   {"to_host", hosts[j]},
                                   {"baseline", json_number(baseline[i][j])},
                                   {"value", json_number(other[i][j])},
                                   {"ratio", json_number(std::exp(logs[i][j]))}});
    return {{"median_ratio", json_number(std::exp(finite_median(all)))},
            {"cells", all.size()},
            {"ratio", ratio_matrix(logs)},
            {"changed", changed}};
}

// The log ratios of a host's cells: to and from other hosts, or all of its
// ranks' cells when every rank is on one host.
std::vector<double> host_cells(const Matrix& logs, const std::vector<std::string>& hosts, const std::string& host)
{
    const bool one_host = std::all_of(hosts.begin(), hosts.end(), [&](const std::string& h) { return h == hosts[0]; });
    std::vector<double> cells;
    for (size_t i = 0; i < logs.size(); ++i)
        for (size_t j = 0; j < logs[i].size(); ++j)
            if (i != j && (hosts[i] == host || hosts[j] == host) && (one_host || hosts[i] != hosts[j]) &&
                std::isfinite(logs[i][j]))
                cells.push_back(logs[i][j]);
    return cells;
}

Json compare_nodes(const Matrix& latency_logs, const Matrix& bandwidth_logs, const std::vector<std::string>& hosts,
                   const MapChangeRule& rule)
{
    std::vector<std::string> distinct;
    for (const std::string& h : hosts)
        if (std::find(distinct.begin(), distinct.end(), h) == distinct.end())
            distinct.push_back(h);
    std::vector<double> lat(distinct.size()), bw(distinct.size());
    for (size_t k = 0; k < distinct.size(); ++k) {
        lat[k] = finite_median(host_cells(latency_logs, hosts, distinct[k]));
        bw[k] = finite_median(host_cells(bandwidth_logs, hosts, distinct[k]));
    }
    Json nodes = Json::array();
    for (size_t k = 0; k < distinct.size(); ++k) {
        std::vector<double> other_lat = lat, other_bw = bw;
        other_lat.erase(other_lat.begin() + long(k));
        other_bw.erase(other_bw.begin() + long(k));
        const bool moved = distinct.size() > 2 && (apart(lat[k], other_lat, rule) || apart(bw[k], other_bw, rule));
        nodes.push_back({{"host", distinct[k]},
                         {"latency_ratio", json_number(std::exp(lat[k]))},
                         {"bandwidth_ratio", json_number(std::exp(bw[k]))},
                         {"changed", moved}});
    }
    return nodes;
}

} // namespace

Status check_maps(const std::vector<ComparedRun>& runs)
{
    size_t with_map = 0;
    for (const ComparedRun& run : runs)
        with_map += map_of(run.run) != nullptr;
    if (with_map == 0)
        return Status::ok();
    for (const ComparedRun& run : runs) {
        const Json* map = map_of(run.run);
        if (map == nullptr)
            return Status::usage(run.label + " holds no all-pairs map (model.allpairs), " + runs.front().label +
                                 (map_of(runs.front().run) ? " does" : " does not") + ": compare maps with maps");
        if (ranks_of(*map) < 2)
            return Status::usage(run.label + ": its all-pairs map names fewer than 2 ranks (model.allpairs.hosts)");
        if (ranks_of(*map) != ranks_of(*map_of(runs.front().run)))
            return Status::usage("all-pairs maps of different sizes: " + runs.front().label + " has " +
                                 std::to_string(ranks_of(*map_of(runs.front().run))) + " ranks, " + run.label +
                                 " has " + std::to_string(ranks_of(*map)) + " (cells are compared by rank)");
    }
    return Status::ok();
}

Json compare_maps(const std::vector<ComparedRun>& runs, MapChangeRule rule)
{
    if (runs.empty() || map_of(runs.front().run) == nullptr)
        return nullptr;
    const Json& base = *map_of(runs.front().run);
    const size_t P = ranks_of(base);
    const std::vector<std::string> hosts = hosts_of(base, P);
    const Matrix base_lat = matrix_of(base, "latency_us", P), base_bw = matrix_of(base, "bandwidth_MBps", P);
    Json compared = Json::array();
    for (size_t r = 1; r < runs.size(); ++r) {
        const Json* map = map_of(runs[r].run);
        if (map == nullptr || ranks_of(*map) != P)
            continue; // check_maps refuses these
        const Matrix lat = matrix_of(*map, "latency_us", P), bw = matrix_of(*map, "bandwidth_MBps", P);
        compared.push_back({{"label", runs[r].label},
                            {"hosts_differ", hosts_of(*map, P) != hosts},
                            {"latency", compare_quantity(base_lat, lat, hosts, rule)},
                            {"bandwidth", compare_quantity(base_bw, bw, hosts, rule)},
                            {"nodes", compare_nodes(log_ratios(base_lat, lat), log_ratios(base_bw, bw), hosts, rule)}});
    }
    return {{"baseline", runs.front().label},
            {"ranks", P},
            {"hosts", hosts},
            {"rule", {{"spread_factor", rule.spread_factor}, {"least_change", rule.least_change}}},
            {"runs", compared}};
}

} // namespace ngx
