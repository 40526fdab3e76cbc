// Machine facts and CPU pinning (see sysinfo.hpp).
#include "sysinfo.hpp"

#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace ngx {
namespace {

// The value of the first "key : value" line of /proc/cpuinfo that starts with `key`.
std::string cpuinfo_field(const std::string& key)
{
    std::ifstream cpuinfo("/proc/cpuinfo");
    for (std::string line; std::getline(cpuinfo, line);)
        if (line.starts_with(key)) {
            size_t colon = line.find(':');
            return colon == std::string::npos || colon + 2 > line.size() ? "" : line.substr(colon + 2);
        }
    return "";
}

std::string cpu_model()
{
    std::string model = cpuinfo_field("model name");
    return model.empty() ? "unknown" : model;
}

// The first line of a small sysfs or procfs file; "" when absent.
std::string first_line(const std::filesystem::path& path)
{
    std::ifstream file(path);
    std::string line;
    std::getline(file, line);
    return line;
}

// The number at the start of `text` (double or long long, as T), or null.
template <typename T>
Json number_or_null(const std::string& text)
{
    T value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    return text.empty() || error != std::errc() ? Json(nullptr) : Json(value);
}

// The frequency governors of the online CPUs ("performance"), distinct, or null without cpufreq.
Json frequency_governors()
{
    std::set<std::string> governors;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
        std::filesystem::path dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu);
        if (!std::filesystem::exists(dir))
            break;
        std::string governor = first_line(dir / "cpufreq/scaling_governor");
        if (!governor.empty())
            governors.insert(governor);
    }
    return governors.empty() ? Json(nullptr) : Json(governors);
}

// Name, MTU, state and speed of every network interface (/sys/class/net).
Json network_interfaces()
{
    Json interfaces = Json::array();
    std::error_code error;
    std::set<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator("/sys/class/net", error))
        names.insert(entry.path().filename().string());
    for (const std::string& name : names) {
        std::filesystem::path dir = std::filesystem::path("/sys/class/net") / name;
        Json speed = number_or_null<long long>(first_line(dir / "speed")); // -1 or unreadable when down or virtual
        interfaces.push_back({{"name", name},
                              {"mtu", number_or_null<long long>(first_line(dir / "mtu"))},
                              {"state", first_line(dir / "operstate")},
                              {"speed_Mbps", speed.is_number() && speed.get<long long>() > 0 ? speed : Json(nullptr)}});
    }
    return interfaces;
}

// The logical CPUs that share a core with `cpu` ("0,2"), itself included.
std::string smt_siblings(int cpu)
{
    if (cpu < 0)
        return "";
    return first_line("/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/thread_siblings_list");
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

double load_average_1min()
{
    std::ifstream loadavg("/proc/loadavg");
    double one_minute = 0;
    loadavg >> one_minute;
    return one_minute;
}

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
            {"cpu_mhz", number_or_null<double>(cpuinfo_field("cpu MHz"))},
            {"frequency_governors", frequency_governors()},
            {"logical_cpus", sysconf(_SC_NPROCESSORS_ONLN)},
            {"load_average_1min", load_average_1min()},
            {"network_interfaces", network_interfaces()},
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
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    int cpu = sched_getcpu();
    return {{"rank", rank},
            {"host", host},
            {"requested_cpu", requested_cpu >= 0 ? Json(requested_cpu) : Json(nullptr)},
            {"affinity", affinity_list()},
            {"running_on_cpu", cpu},
            {"smt_siblings", smt_siblings(cpu)}};
}

} // namespace ngx
