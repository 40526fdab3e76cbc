// Warnings about a harmful setting (see setting_warnings.hpp).
#include "setting_warnings.hpp"

#include <cmath>
#include <cstdio>
#include <string>

namespace ngx {
namespace {

constexpr double busy_load = 1.0;             // load average from which other work competes
constexpr double timer_overhead_share = 0.05; // of the smallest measured median

std::string number(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", value);
    return text;
}

void warn_governors(const Json& context, Json& warnings)
{
    if (!context.contains("frequency_governors") || !context["frequency_governors"].is_array())
        return;
    for (const Json& governor : context["frequency_governors"])
        if (governor.is_string() && governor != "performance")
            warnings.push_back("CPU frequency governor " + governor.get<std::string>() +
                               ", not performance: the clock may change during the run");
}

void warn_load(const Json& context, Json& warnings)
{
    double load = context.value("load_average_1min", 0.0);
    if (load >= busy_load)
        warnings.push_back("load average " + number(load) + " before the run: other processes compete for the CPUs");
}

// An affinity list of more than one CPU ("0-3", "0,2").
bool several_cpus(const std::string& affinity)
{
    return affinity.find_first_of(",-") != std::string::npos;
}

void warn_unpinned(const Json& context, Json& warnings)
{
    if (!context.contains("placement") || !context["placement"].is_array())
        return;
    for (const Json& rank : context["placement"]) {
        if (!rank.is_object() || !rank.contains("affinity") || !rank["affinity"].is_string())
            continue;
        const std::string affinity = rank["affinity"].get<std::string>();
        if (several_cpus(affinity))
            warnings.push_back("rank " + std::to_string(rank.value("rank", -1)) + " is not pinned (may run on CPUs " +
                               affinity + "): --cpus pins the ranks");
    }
}

void warn_timer(const Json& context, double smallest_median_us, Json& warnings)
{
    if (!context.contains("timer") || !context["timer"].is_object() || !(smallest_median_us > 0))
        return;
    double overhead_ns = context["timer"].value("overhead_ns", 0.0);
    if (overhead_ns / 1000 > timer_overhead_share * smallest_median_us)
        warnings.push_back("timer overhead " + number(overhead_ns) +
                           " ns is over 5% of the smallest median measured (" + number(smallest_median_us) + " us)");
}

} // namespace

Json setting_warnings(const Json& context, double smallest_median_us)
{
    Json warnings = Json::array();
    warn_governors(context, warnings);
    warn_load(context, warnings);
    warn_unpinned(context, warnings);
    warn_timer(context, smallest_median_us, warnings);
    return warnings;
}

double smallest_median_us(const Document& document)
{
    double smallest = NAN;
    for (const RunRecord& run : document.runs)
        for (const SizeRecord& size : run.sizes)
            if (size.summary.count > 0 && size.summary.median > 0 && !(size.summary.median >= smallest))
                smallest = size.summary.median;
    return smallest;
}

} // namespace ngx
