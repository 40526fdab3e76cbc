// What the ranks' CPUs did during a run (see cpu_share.hpp).
#include "cpu_share.hpp"

#include "sysinfo.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>

namespace ngx {
namespace {

// A rank that spent this share of the run runnable but off a CPU waited for
// one: the scheduler, not the network, then sets part of its timings. A
// spinning rank alone on its CPU waits well under 1%; a rank woken from a
// blocking call waits microseconds per wake-up.
constexpr double waited_share = 0.10;

double seconds(const timeval& t)
{
    return double(t.tv_sec) + double(t.tv_usec) / 1e6;
}

// The run-queue delay of the calling thread, the one that measures, in
// seconds (schedstat's second field, nanoseconds); < 0 when the kernel keeps
// none. Other threads (the watchdog, a progress thread) wake briefly and
// would count their own waits.
double run_queue_wait_s()
{
    std::ifstream stat("/proc/thread-self/schedstat");
    double running_ns = 0, waiting_ns = 0;
    if (!(stat >> running_ns >> waiting_ns))
        return -1;
    return waiting_ns / 1e9;
}

std::string host_name()
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    return host;
}

double share(double part, double whole)
{
    return whole > 0 ? part / whole : 0;
}

std::string percent(double fraction)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.0f%%", fraction * 100);
    return text;
}

// host -> {ranks, online CPUs}
std::map<std::string, std::pair<int, int>> ranks_per_host(const Json& ranks)
{
    std::map<std::string, std::pair<int, int>> hosts;
    for (const Json& rank : ranks) {
        auto& [count, cpus] = hosts[rank.value("host", std::string())];
        ++count;
        cpus = std::max(cpus, rank.value("cpus_online", 0));
    }
    return hosts;
}

} // namespace

CpuUsage read_cpu_usage()
{
    CpuUsage usage;
    usage.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    rusage self{};
    if (getrusage(RUSAGE_SELF, &self) == 0) {
        usage.cpu_s = seconds(self.ru_utime) + seconds(self.ru_stime);
        usage.involuntary_switches = self.ru_nivcsw;
    }
    usage.waiting_s = run_queue_wait_s();
    return usage;
}

CpuUsage usage_between(const CpuUsage& start, const CpuUsage& end)
{
    CpuUsage used;
    used.wall_s = end.wall_s - start.wall_s;
    used.cpu_s = end.cpu_s - start.cpu_s;
    // Threads that ended during the run take their waits along: never below 0.
    used.waiting_s = start.waiting_s < 0 || end.waiting_s < 0 ? -1 : std::max(0.0, end.waiting_s - start.waiting_s);
    used.involuntary_switches = end.involuntary_switches - start.involuntary_switches;
    return used;
}

Json rank_usage_json(int rank, const CpuUsage& used)
{
    return usage_json(rank, host_name(), int(sysconf(_SC_NPROCESSORS_ONLN)), load_average_1min(), used);
}

Json usage_json(int rank, const std::string& host, int cpus_online, double load_average, const CpuUsage& used)
{
    Json json = {{"rank", rank},
                 {"host", host},
                 {"cpus_online", cpus_online},
                 {"load_average_1min", load_average},
                 {"wall_s", used.wall_s},
                 {"cpu_s", used.cpu_s},
                 {"cpu_share", share(used.cpu_s, used.wall_s)},
                 {"involuntary_switches", used.involuntary_switches}};
    if (used.waiting_s >= 0) {
        json["waiting_s"] = used.waiting_s;
        json["waiting_share"] = share(used.waiting_s, used.wall_s);
    } else {
        json["waiting_s"] = nullptr;
        json["waiting_share"] = nullptr;
    }
    return json;
}

Json cpu_verdict(const Json& ranks, bool virtual_clock)
{
    if (virtual_clock)
        return {{"ranks", ranks}, {"clock", "virtual"}, {"cpu_bound", false}, {"reasons", Json::array()}};
    Json reasons = Json::array();
    for (const auto& [host, count_cpus] : ranks_per_host(ranks)) {
        const auto& [count, cpus] = count_cpus;
        if (cpus > 0 && count > cpus)
            reasons.push_back(std::to_string(count) + " ranks share the " + std::to_string(cpus) + " CPUs of host " +
                              host);
    }
    double most_waiting = 0;
    bool waiting_known = false;
    for (const Json& rank : ranks) {
        const Json& waiting = rank.contains("waiting_share") ? rank["waiting_share"] : Json();
        if (!waiting.is_number())
            continue;
        double value = waiting.get<double>();
        waiting_known = true;
        most_waiting = std::max(most_waiting, value);
        if (value >= waited_share)
            reasons.push_back("rank " + std::to_string(rank.value("rank", -1)) + " waited for a CPU " + percent(value) +
                              " of the run");
    }
    return {{"ranks", ranks},
            {"max_waiting_share", waiting_known ? Json(most_waiting) : Json()},
            {"waited_share_threshold", waited_share},
            {"clock", "real"},
            {"cpu_bound", !reasons.empty()},
            {"reasons", reasons}};
}

} // namespace ngx
