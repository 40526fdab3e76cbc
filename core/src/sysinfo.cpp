// Machine facts and CPU pinning (see sysinfo.hpp).
#include "sysinfo.hpp"

#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>

namespace ngx {
namespace {

std::string cpu_model()
{
    std::ifstream cpuinfo("/proc/cpuinfo");
    for (std::string line; std::getline(cpuinfo, line);)
        if (line.starts_with("model name")) {
            size_t colon = line.find(':');
            return colon == std::string::npos ? line : line.substr(colon + 2);
        }
    return "unknown";
}

double load_average()
{
    std::ifstream loadavg("/proc/loadavg");
    double one_minute = 0;
    loadavg >> one_minute;
    return one_minute;
}

std::string utc_now()
{
    std::time_t now = std::time(nullptr);
    std::tm parts{};
    gmtime_r(&now, &parts);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
    return text;
}

// "0-1,4" style list of the CPUs this process may run on.
std::string affinity_list()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return "unknown";
    std::ostringstream text;
    const char* separator = "";
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
        if (!CPU_ISSET(cpu, &set))
            continue;
        int last = cpu;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set))
            ++last;
        text << separator << cpu;
        if (last > cpu)
            text << '-' << last;
        separator = ",";
        cpu = last;
    }
    return text.str();
}

} // namespace

Json machine_context()
{
    utsname names{};
    uname(&names);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    return {{"host", host},
            {"kernel", std::string(names.sysname) + " " + names.release},
            {"architecture", names.machine},
            {"cpu", cpu_model()},
            {"logical_cpus", sysconf(_SC_NPROCESSORS_ONLN)},
            {"load_average_1min", load_average()},
            {"started_at", utc_now()}};
}

Status pin_to_cpu(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        return Status::runtime("cannot pin to CPU " + std::to_string(cpu) + ": " + std::strerror(errno));
    return Status::ok();
}

std::vector<int> allowed_cpus()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    std::vector<int> cpus;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return cpus;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &set))
            cpus.push_back(cpu);
    return cpus;
}

Json placement(int rank, int requested_cpu)
{
    return {{"rank", rank},
            {"requested_cpu", requested_cpu >= 0 ? Json(requested_cpu) : Json(nullptr)},
            {"affinity", affinity_list()},
            {"running_on_cpu", sched_getcpu()}};
}

} // namespace ngx
