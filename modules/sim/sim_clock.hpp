// The sim module's clock and the cost of its own calls.
//
// The sim promises that a send keeps the caller busy o_s and a receive o_r
// (Hoefler et al. 2007: o is the time the processor is engaged in the call). It can
// only read its clock inside the call, so the caller sees more: the way in
// (call, the first clock read up to its sample point), the busy-wait's
// overshoot past its deadline and the way out (the rest of the last read,
// the return). CallCost measures these once, at connect, by timing many
// calls of the module's own send through a function pointer, as the core
// calls it, in a probe mode that only busy-waits a fixed time; the module
// then takes the caller's call time as its first read minus `entry` and ends
// its busy-wait `exit` before the model's return time. What remains is the
// difference between the probe's way and a real call's (a few ns).
//
// The clock is the invariant TSC (rdtsc, about 10 ns a read against 23 ns for
// clock_gettime on a 2-vCPU KVM guest) when the kernel itself trusts the TSC
// across CPUs (clocksource "tsc"), else CLOCK_MONOTONIC in ns. Both peers
// must use the same one: the message stamps hold absolute times.
//
//     SimClock clock = SimClock::make();
//     CallCost cost = CallCost::measure(clock, [&] { return one_probe_call(); });
//     uint64_t call = clock.now() - cost.entry;  ...  spin to (return_time - cost.exit)
#ifndef NGX_SIM_CLOCK_HPP
#define NGX_SIM_CLOCK_HPP

#include <ngx/module_support.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

namespace ngx::sim {

class SimClock {
public:
    // TSC when it is invariant and the kernel's clocksource; else CLOCK_MONOTONIC.
    static SimClock make()
    {
        SimClock clock;
#if defined(__x86_64__)
        if (tsc_usable())
            clock.tsc_ = true, clock.ticks_per_ns_ = measure_tsc_ticks_per_ns();
#endif
        return clock;
    }

    // Virtual time: `*counter` is the clock, in picoseconds from 0.
    static SimClock simulated(uint64_t* counter)
    {
        SimClock clock;
        clock.virtual_now_ = counter;
        clock.ticks_per_ns_ = 1000.0;
        return clock;
    }

    uint64_t now() const
    {
        if (virtual_now_ != nullptr)
            return *virtual_now_;
#if defined(__x86_64__)
        if (tsc_)
            return __rdtsc();
#endif
        return ngx::mod::monotonic_ns();
    }

    // A duration in ns as ticks of this clock.
    uint64_t ticks(double ns) const
    {
        return uint64_t(std::llround(std::max(ns, 0.0) * ticks_per_ns_));
    }
    double ticks_per_ns() const
    {
        return ticks_per_ns_;
    }
    const char* name() const
    {
        return virtual_now_ != nullptr ? "virtual" : tsc_ ? "tsc" : "clock_gettime";
    }
    bool is_virtual() const
    {
        return virtual_now_ != nullptr;
    }
    // Virtual time: moves the clock to `until` unless it is past it already.
    void advance_to(uint64_t until) const
    {
        *virtual_now_ = std::max(*virtual_now_, until);
    }

private:
#if defined(__x86_64__)
    static bool tsc_usable()
    {
        unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
        if (__get_cpuid_max(0x80000000, nullptr) < 0x80000007u)
            return false;
        __get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx);
        if ((edx & (1u << 8)) == 0) // invariant TSC
            return false;
        char source[32] = {};
        FILE* f = std::fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
        if (f == nullptr)
            return false;
        bool read = std::fgets(source, sizeof source, f) != nullptr;
        std::fclose(f);
        return read && std::strncmp(source, "tsc", 3) == 0 && (source[3] == '\n' || source[3] == '\0');
    }

    // TSC ticks per ns over three 2 ms windows against CLOCK_MONOTONIC (median):
    // the error is a few reads over 2 ms, about 1e-5.
    static double measure_tsc_ticks_per_ns()
    {
        double rates[3];
        for (double& rate : rates) {
            uint64_t ns0 = ngx::mod::monotonic_ns(), tsc0 = __rdtsc();
            while (ngx::mod::monotonic_ns() - ns0 < 2000000) {
            }
            uint64_t ns1 = ngx::mod::monotonic_ns(), tsc1 = __rdtsc();
            rate = double(tsc1 - tsc0) / double(ns1 - ns0);
        }
        std::sort(rates, rates + 3);
        return rates[1];
    }
#endif

    bool tsc_ = false;
    double ticks_per_ns_ = 1.0;
    uint64_t* virtual_now_ = nullptr; // virtual time: the counter
};

// Busy-waits until `clock` reaches `until`; returns the last reading. Every
// 256 spins `stop()` may end it early (then it returns 0).
template <typename Stop>
uint64_t spin_to(const SimClock& clock, uint64_t until, Stop stop)
{
    unsigned spins = 0;
    uint64_t now;
    while ((now = clock.now()) < until) {
        if ((++spins & 255u) == 0 && stop())
            return 0;
    }
    return now;
}

// What a caller sees of a call beyond the busy-wait the module aims at, in
// clock ticks: `entry` from the call to the first read's sample, `exit` from
// the deadline to the return (the overshoot included).
struct CallCost {
    uint64_t entry = 0;
    uint64_t exit = 0;

    static constexpr double probe_wait_ns = 200;

    // `call()` makes one call of the module's own send, in a mode where it
    // only busy-waits probe_wait_ns from its first read, and returns that
    // call's overshoot in ticks; so the probe goes the way a real call goes.
    template <typename Call>
    static CallCost measure(const SimClock& clock, Call call)
    {
        const double wait = double(clock.ticks(probe_wait_ns));
        double least_beyond = 1e300, its_overshoot = 0;
        for (int w = 0; w < windows; ++w) {
            double beyond = 0, overshoot = 0;
            window(clock, call, wait, &beyond, &overshoot);
            // Contention only ever adds: the least disturbed window. A window
            // whose overshoot exceeds its whole cost was disturbed between
            // the medians' batches and tells nothing.
            if (overshoot <= beyond && beyond < least_beyond)
                least_beyond = beyond, its_overshoot = overshoot;
        }
        CallCost cost;
        if (least_beyond > 1e299)
            return cost; // no window was usable: no correction
        // The overshoot is seen inside; the rest is the two halves of a read
        // and the call and return around them, split evenly.
        double rest = least_beyond - its_overshoot;
        cost.entry = uint64_t(std::llround(rest / 2));
        cost.exit = uint64_t(std::llround(rest / 2 + its_overshoot));
        return cost;
    }

private:
    static constexpr int calls = 100; // a batch: about 20 us
    static constexpr int batches = 21;
    static constexpr int windows = 5;

    // Ticks per call beyond the wait, and the overshoot, as medians of short
    // batches (an interrupt spoils a batch, not the window).
    template <typename Call>
    static void window(const SimClock& clock, Call& call, double wait, double* beyond, double* overshoot)
    {
        double per_call[batches], per_overshoot[batches];
        for (int b = 0; b < batches; ++b) {
            uint64_t over = 0;
            uint64_t t0 = clock.now();
            for (int i = 0; i < calls; ++i)
                over += call();
            per_call[b] = double(clock.now() - t0) / calls - wait;
            per_overshoot[b] = double(over) / calls;
        }
        std::nth_element(per_call, per_call + batches / 2, per_call + batches);
        std::nth_element(per_overshoot, per_overshoot + batches / 2, per_overshoot + batches);
        *beyond = per_call[batches / 2];
        *overshoot = per_overshoot[batches / 2];
    }
};

} // namespace ngx::sim

#endif
