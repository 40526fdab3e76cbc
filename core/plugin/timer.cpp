// Timer calibration: the TSC frequency against CLOCK_MONOTONIC, and the
// resolution and overhead of whichever source is used.
#include <ngx/timer.hpp>

#include <algorithm>
#include <cstdio>
#include <sched.h>
#include <vector>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace ngx {
namespace {

uint64_t monotonic_ns()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

#if defined(__x86_64__)
uint64_t read_tsc()
{
    unsigned int aux;
    return __rdtscp(&aux);
}

// The TSC's rate over five 2 ms busy windows against CLOCK_MONOTONIC: their
// median (ticks per microsecond; one preempted window does not move it) and
// how far the windows disagree, (max - min) / median.
struct TscRate {
    double ticks_per_us = 0;
    double spread = 0;
};

// Five windows of 2 ms: a window's ends are read within about 100 ns of each
// other, so each rate is good to 5e-5, far inside the 0.5% a steady rate
// allows, and calibrating adds 10 ms to every run, not the 50 of 10 ms windows.
constexpr uint64_t tsc_window_ns = 2'000'000;

TscRate measure_tsc_rate()
{
    std::vector<double> rates;
    for (int round = 0; round < 5; ++round) {
        uint64_t ns0 = monotonic_ns(), tsc0 = read_tsc();
        while (monotonic_ns() - ns0 < tsc_window_ns) {
        }
        uint64_t ns1 = monotonic_ns(), tsc1 = read_tsc();
        rates.push_back(double(tsc1 - tsc0) / (double(ns1 - ns0) / 1000.0));
    }
    std::sort(rates.begin(), rates.end());
    double median = rates[rates.size() / 2];
    return {median, (rates.back() - rates.front()) / median};
}

std::string format_percent(double fraction)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.2f%%", fraction * 100);
    return text;
}

// Whether this thread may run on one CPU only: a TSC without the invariant
// flag may differ between CPUs (a guest's kernel says "TSCs unsynchronized"),
// never along one CPU.
bool pinned_to_one_cpu()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    return sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) == 1;
}
#endif

// Smallest non-zero step and mean cost of one read, in ns.
void measure_read_cost(const Timer& timer, TimerInfo& info)
{
    constexpr int reads = 10000;
    uint64_t smallest = UINT64_MAX;
    uint64_t first = timer.now(), previous = first;
    for (int i = 0; i < reads; ++i) {
        uint64_t current = timer.now();
        if (current > previous)
            smallest = std::min(smallest, current - previous);
        previous = current;
    }
    info.overhead_ns = timer.to_us(previous - first) * 1000.0 / reads;
    info.resolution_ns = smallest == UINT64_MAX ? 0.0 : timer.to_us(smallest) * 1000.0;
}

} // namespace

bool cpu_has_invariant_tsc()
{
#if defined(__x86_64__)
    unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
    // unsigned int with GCC, int with clang's cpuid.h
    if (static_cast<unsigned int>(__get_cpuid_max(0x80000000, nullptr)) < 0x80000007u)
        return false;
    __get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx);
    return (edx & (1u << 8)) != 0;
#else
    return false;
#endif
}

// Without the invariant flag the TSC is still the better clock where
// clock_gettime is no vDSO read but a system call into a slow clocksource (a
// QEMU/TCG guest's hpet: 1.4 us a read, 0.7 us steps, against 9 us round
// trips), as long as its rate holds and the thread stays on one CPU; perftest
// reads it there too.
constexpr double slow_clock_ns = 200;        // the vDSO's read costs 15-60 ns
constexpr double steady_rate_spread = 0.005; // five windows within 0.5%

Result<Timer> Timer::calibrate(TimerChoice choice)
{
    TimerInfo info;
    info.source = "clock_gettime";
    info.ticks_per_us = 1000.0;
    info.invariant_tsc = cpu_has_invariant_tsc();
    if (choice == TimerChoice::clock) {
        info.reason = "--timer clock";
        return Timer(false, info).with_read_cost();
    }
#if defined(__x86_64__)
    if (info.invariant_tsc) {
        info.source = "tsc";
        info.ticks_per_us = measure_tsc_rate().ticks_per_us;
        info.reason = "invariant TSC (CPUID 0x80000007 EDX bit 8)";
        return Timer(true, info).with_read_cost();
    }
    Timer clock = Timer(false, info).with_read_cost();
    if (choice == TimerChoice::tsc || clock.info_.overhead_ns > slow_clock_ns)
        return unflagged_tsc(choice, clock);
    clock.info_.reason =
        "no invariant TSC; clock_gettime costs " + std::to_string(int(clock.info_.overhead_ns)) + " ns a read";
    return clock;
#else
    if (choice == TimerChoice::tsc)
        return Status::usage("--timer tsc: this machine has no TSC; use --timer clock");
    info.reason = "no TSC on this architecture";
    return Timer(false, info).with_read_cost();
#endif
}

Timer Timer::with_read_cost() &&
{
    measure_read_cost(*this, info_);
    return std::move(*this);
}

// A TSC without the invariant flag: taken when asked for with a steady rate,
// or automatically when its rate is steady and this thread is pinned.
Result<Timer> Timer::unflagged_tsc(TimerChoice choice, Timer clock)
{
#if defined(__x86_64__)
    TscRate rate = measure_tsc_rate();
    bool steady = rate.spread <= steady_rate_spread, pinned = pinned_to_one_cpu();
    bool asked = choice == TimerChoice::tsc;
    if (asked && !steady)
        return Status::usage("--timer tsc: this CPU has no invariant TSC and its rate moved by " +
                             format_percent(rate.spread) + " between 2 ms windows; use --timer clock");
    if (!asked && !(steady && pinned)) {
        clock.info_.reason =
            std::string("no invariant TSC, and the TSC ") + (steady ? "may differ between the CPUs this thread runs on"
                                                                    : "rate moved by " + format_percent(rate.spread));
        return clock;
    }
    TimerInfo info = clock.info_;
    info.source = "tsc";
    info.ticks_per_us = rate.ticks_per_us;
    info.reason = "no invariant TSC flag, but its rate held within " + format_percent(rate.spread) +
                  " over five 2 ms windows and clock_gettime costs " + std::to_string(int(info.overhead_ns)) +
                  " ns a read; " +
                  (pinned ? "this thread runs on one CPU" : "--timer tsc, thread not pinned to one CPU");
    return Timer(true, info).with_read_cost();
#else
    (void)choice;
    return clock;
#endif
}

Timer Timer::virtual_time(const ngx_virtual_clock& clock)
{
    TimerInfo info;
    info.source = "virtual";
    info.ticks_per_us = clock.ticks_per_us;
    info.resolution_ns = 1e3 / clock.ticks_per_us;
    info.overhead_ns = 0;
    info.reason = "the module simulates the network in virtual time: samples read its clock";
    Timer timer(false, std::move(info));
    timer.virtual_ = clock;
    return timer;
}

} // namespace ngx
