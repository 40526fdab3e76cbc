// Timer calibration: the TSC frequency against CLOCK_MONOTONIC, and the
// resolution and overhead of whichever source is used.
#include <ngx/timer.hpp>

#include <algorithm>
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

// Ticks per microsecond over a 10 ms busy window; the median of five windows
// shrugs off one preempted window.
double measure_tsc_ticks_per_us()
{
    std::vector<double> rates;
    for (int round = 0; round < 5; ++round) {
        uint64_t ns0 = monotonic_ns(), tsc0 = read_tsc();
        while (monotonic_ns() - ns0 < 10000000) {
        }
        uint64_t ns1 = monotonic_ns(), tsc1 = read_tsc();
        rates.push_back(double(tsc1 - tsc0) / (double(ns1 - ns0) / 1000.0));
    }
    std::sort(rates.begin(), rates.end());
    return rates[rates.size() / 2];
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

Result<Timer> Timer::calibrate(TimerChoice choice)
{
    TimerInfo info;
    info.invariant_tsc = cpu_has_invariant_tsc();
    if (choice == TimerChoice::tsc && !info.invariant_tsc)
        return Status::usage("--timer tsc: this CPU has no invariant TSC; use --timer clock");
    bool use_tsc = info.invariant_tsc && choice != TimerChoice::clock;
#if defined(__x86_64__)
    if (use_tsc) {
        info.source = "tsc";
        info.ticks_per_us = measure_tsc_ticks_per_us();
    }
#endif
    if (!use_tsc) {
        info.source = "clock_gettime";
        info.ticks_per_us = 1000.0;
    }
    Timer timer(use_tsc, info);
    measure_read_cost(timer, timer.info_);
    return timer;
}

} // namespace ngx
