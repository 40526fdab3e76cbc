// Rendering an analysis (see trace_report.hpp).
#include "trace_report.hpp"

#include "cpu_share.hpp"

#include <models/loggps/loggps_model.hpp>
#include <ngx/reporter.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

namespace ngx::trace {
namespace {

Json costs_json(const Costs& c)
{
    return {{"overhead_s", c.overhead_s},
            {"sender_sync_s", c.sender_sync_s},
            {"receiver_sync_s", c.receiver_sync_s},
            {"collective_s", c.collective_s},
            {"collective_sync_s", c.collective_sync_s},
            {"unmodelled_s", c.unmodelled_s}};
}

Json with_costs(Json j, const Costs& c)
{
    const Json costs = costs_json(c);
    for (const auto& [key, value] : costs.items())
        j[key] = value;
    return j;
}

Json total_json(const ReplayReport& r)
{
    return with_costs({{"measured_s", r.measured_s},
                       {"predicted_s", r.predicted_s},
                       {"error_percent", json_number(r.error_percent())},
                       {"measured_mpi_s", r.measured_mpi_s},
                       {"computation_s", r.computation_s}},
                      r.total);
}

Json ranks_json(const ReplayReport& r)
{
    Json ranks = Json::array();
    for (const RankResult& x : r.per_rank)
        ranks.push_back(with_costs({{"rank", x.rank},
                                    {"measured_s", x.measured_s},
                                    {"predicted_s", x.predicted_s},
                                    {"measured_mpi_s", x.measured_mpi_s},
                                    {"computation_s", x.computation_s}},
                                   x.costs));
    return ranks;
}

Json sites_json(const ReplayReport& r)
{
    Json sites = Json::array();
    for (const auto& [key, s] : r.sites)
        sites.push_back(with_costs({{"call", key.call},
                                    {"bytes_min", bin_min_bytes(key.bin)},
                                    {"bytes_max", bin_max_bytes(key.bin)},
                                    {"calls", s.calls},
                                    {"measured_s", s.measured_s},
                                    {"predicted_s", s.predicted_s}},
                                   s.costs));
    return sites;
}

Json counts_json(const std::map<std::string, long long>& counts)
{
    Json u = Json::array();
    for (const auto& [what, n] : counts)
        u.push_back({{"call", what}, {"events", n}});
    return u;
}

std::string fmt(const char* format, double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

std::string seconds(double s)
{
    return fmt("%.6f", s);
}

void table_row(std::ostringstream& out, const std::string& label, double measured, double predicted, const Costs& c)
{
    char buf[256];
    std::snprintf(buf, sizeof buf, "%-22s %11.6f %11.6f %11.6f %11.6f %11.6f %11.6f %11.6f\n", label.c_str(), measured,
                  predicted, c.overhead_s, c.sender_sync_s, c.receiver_sync_s, c.collective_s + c.collective_sync_s,
                  c.unmodelled_s);
    out << buf;
}

void table_header(std::ostringstream& out, const char* first, const char* measured)
{
    char buf[256];
    std::snprintf(buf, sizeof buf, "%-22s %11s %11s %11s %11s %11s %11s %11s\n", first, measured, "predicted",
                  "overhead", "send sync", "recv sync", "collective", "unmodelled");
    out << buf;
}

std::string bin_label(int bin)
{
    if (bin < 0)
        return "0 B";
    return fmt("%.0f", bin_min_bytes(bin)) + "-" + fmt("%.0f", bin_max_bytes(bin)) + " B";
}

} // namespace

Json traced_cpu_verdict(const std::vector<RankReader>& ranks)
{
    Json used = Json::array();
    for (const RankReader& reader : ranks) {
        const ngx_trace_header& h = reader.header();
        if (!(h.flags & NGX_TRACE_FLAG_CPU) || !(h.flags & NGX_TRACE_FLAG_FINALIZED))
            continue;
        CpuUsage use;
        use.wall_s = double(h.fini.t_local - h.init.t_local) / 1e9;
        use.cpu_s = double(h.cpu_ns) / 1e9;
        use.waiting_s = h.waiting_ns < 0 ? -1 : double(h.waiting_ns) / 1e9;
        use.involuntary_switches = long(h.involuntary_switches);
        std::string host(h.hostname, strnlen(h.hostname, sizeof h.hostname));
        used.push_back(usage_json(h.rank, host, int(h.cpus_online), h.load_milli / 1000.0, use));
    }
    return used.empty() ? Json() : cpu_verdict(used);
}

Json analysis_json(const Analysis& a)
{
    const ReplayReport& r = a.report;
    Json j = {{"kind", "trace_analysis"},
              {"model", "LogGPS (Ino et al. 2001, Tables 3 and 4)"},
              {"trace", a.trace},
              {"params_file", a.params_file},
              {"ranks_count", r.ranks},
              {"events", r.events},
              {"finalized", r.finalized},
              {"params", patterns::loggps_params_json(a.params)},
              {"total", total_json(r)},
              {"ranks", ranks_json(r)},
              {"sites", sites_json(r)},
              {"unmodelled", counts_json(r.unmodelled)},
              {"approximated", counts_json(r.approximated)}};
    if (!a.cpu.is_null())
        j["cpu_use"] = a.cpu;
    if (a.what_if) {
        const WhatIf& w = *a.what_if;
        Json set = Json::object();
        for (const auto& [name, value] : w.set)
            set[name] = json_number(value);
        const double gain = r.predicted_s - w.report.predicted_s;
        j["what_if"] = {{"set", set},
                        {"params", patterns::loggps_params_json(w.params)},
                        {"gain_s", gain},
                        {"gain_percent", json_number(100 * gain / r.predicted_s)},
                        {"total", total_json(w.report)},
                        {"ranks", ranks_json(w.report)},
                        {"unmodelled", counts_json(w.report.unmodelled)}};
    }
    return j;
}

std::string analysis_csv(const Analysis& a)
{
    std::ostringstream out;
    out << "scenario,scope,rank,call,bytes_min,bytes_max,calls,measured_s,predicted_s,overhead_s,sender_sync_s,"
           "receiver_sync_s,collective_s,collective_sync_s,unmodelled_s\n";
    auto costs = [](const Costs& c) {
        return seconds(c.overhead_s) + "," + seconds(c.sender_sync_s) + "," + seconds(c.receiver_sync_s) + "," +
               seconds(c.collective_s) + "," + seconds(c.collective_sync_s) + "," + seconds(c.unmodelled_s);
    };
    auto scenario = [&](const std::string& name, const ReplayReport& r) {
        out << name << ",total,,,,,," << seconds(r.measured_s) << "," << seconds(r.predicted_s) << "," << costs(r.total)
            << "\n";
        for (const RankResult& x : r.per_rank)
            out << name << ",rank," << x.rank << ",,,,," << seconds(x.measured_s) << "," << seconds(x.predicted_s)
                << "," << costs(x.costs) << "\n";
        for (const auto& [key, s] : r.sites)
            out << name << ",site,," << key.call << "," << fmt("%.0f", bin_min_bytes(key.bin)) << ","
                << fmt("%.0f", bin_max_bytes(key.bin)) << "," << s.calls << "," << seconds(s.measured_s) << ","
                << seconds(s.predicted_s) << "," << costs(s.costs) << "\n";
    };
    scenario("measured_params", a.report);
    if (a.what_if)
        scenario("what_if", a.what_if->report);
    return out.str();
}

std::string analysis_table(const Analysis& a)
{
    const ReplayReport& r = a.report;
    std::ostringstream out;
    out << "trace " << a.trace << ": " << r.ranks << " ranks, " << r.events << " calls"
        << (r.finalized ? "" : " (not every rank reached MPI_Finalize)") << "; LogGPS from " << a.params_file
        << " (S = " << fmt("%.0f", a.params.S) << " B)\n";
    out << "T_m " << seconds(r.measured_s) << " s, T_p " << seconds(r.predicted_s) << " s, sigma "
        << fmt("%+.1f", r.error_percent()) << " %\n"
        << cpu_verdict_line(a.cpu) << "\n";
    out << "seconds (sums over ranks; computation " << seconds(r.computation_s) << " s, in MPI "
        << seconds(r.measured_mpi_s) << " s)\n";
    table_header(out, "rank", "measured");
    for (const RankResult& x : r.per_rank)
        table_row(out, std::to_string(x.rank), x.measured_s, x.predicted_s, x.costs);
    table_row(out, "total (T_m, T_p)", r.measured_s, r.predicted_s, r.total);
    out << "\nper call site and message size (measured = time inside the calls)\n";
    table_header(out, "call, size", "in MPI");
    for (const auto& [key, s] : r.sites)
        table_row(out, key.call + " " + bin_label(key.bin), s.measured_s, s.predicted_s, s.costs);
    if (!r.unmodelled.empty()) {
        out << "\nkept at their measured duration (no model):";
        for (const auto& [what, n] : r.unmodelled)
            out << " " << what << " x" << n << ";";
        out << "\n";
    }
    for (const auto& [what, n] : r.approximated)
        out << "approximated: " << what << " (x" << n << ")\n";
    if (a.what_if) {
        const ReplayReport& w = a.what_if->report;
        out << "\nwhat if";
        for (const auto& [name, value] : a.what_if->set)
            out << " " << name << "=" << fmt("%g", value);
        const double gain = r.predicted_s - w.predicted_s;
        out << ": T_p " << seconds(w.predicted_s) << " s, gain " << seconds(gain) << " s ("
            << fmt("%+.1f", 100 * gain / r.predicted_s) << " %)\n";
        table_header(out, "rank", "measured");
        for (const RankResult& x : w.per_rank)
            table_row(out, std::to_string(x.rank), x.measured_s, x.predicted_s, x.costs);
        table_row(out, "total", w.measured_s, w.predicted_s, w.total);
    }
    return out.str();
}

} // namespace ngx::trace
