// The clock that times every sample.
//
// On x86-64 with an invariant TSC (CPUID 0x80000007 EDX bit 8) it reads cycles
// with rdtscp, calibrated against CLOCK_MONOTONIC; otherwise
// clock_gettime(CLOCK_MONOTONIC), unless that is a slow system call (a
// QEMU/TCG guest's hpet) and the TSC's rate holds on a thread pinned to one
// CPU: then the TSC still. Calibrate after pinning; `reason` says why.
// rdtscp waits until every earlier instruction has executed, so an interval
// ends after the operation it times; no fence follows it: an lfence there
// doubled the measured MPI shared-memory ping-pong (0.46 against 0.23 us),
// and letting the next operation start a few cycles early shortens an
// interval by no more. Its measured resolution and overhead go into every
// result file.
//
//     Timer timer = Timer::calibrate(TimerChoice::automatic);
//     uint64_t t0 = timer.now();  ...;  double us = timer.to_us(timer.now() - t0);
#ifndef NGX_TIMER_HPP
#define NGX_TIMER_HPP

#include <ngx/module.h>
#include <ngx/status.hpp>

#include <cstdint>
#include <ctime>
#include <string>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace ngx {

enum class TimerChoice { automatic, tsc, clock };

struct TimerInfo {
    std::string source;       // "tsc", "clock_gettime" or "virtual"
    double ticks_per_us = 0;  // calibrated frequency (1000 for clock_gettime: ticks are ns)
    double resolution_ns = 0; // smallest step seen between two reads
    double overhead_ns = 0;   // cost of one read
    bool invariant_tsc = false;
    std::string reason; // why this source, in words
};

class Timer {
public:
    // Calibrates the chosen source; asking for "tsc" where its rate is not
    // steady (or there is none) is a usage error.
    static Result<Timer> calibrate(TimerChoice choice);
    // Times with a module's simulated clock (ABI 1.4); `clock` stays valid
    // while the module is connected.
    static Timer virtual_time(const ngx_virtual_clock& clock);

    uint64_t now() const
    {
        if (virtual_.now != nullptr) [[unlikely]]
            return virtual_.now(virtual_.ctx);
#if defined(__x86_64__)
        if (use_tsc_) {
            unsigned int aux;
            return __rdtscp(&aux); // after every earlier instruction; see above
        }
#endif
        timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
    }

    double to_us(uint64_t ticks) const
    {
        return double(ticks) / info_.ticks_per_us;
    }
    uint64_t us_to_ticks(double us) const
    {
        return uint64_t(us * info_.ticks_per_us);
    }

    // Busy-waits until the clock reads `until` or later; returns the last
    // read. Virtual time moves there at once.
    uint64_t wait_until(uint64_t until) const
    {
        if (virtual_.now != nullptr) [[unlikely]] {
            virtual_.advance_to(virtual_.ctx, until);
            return now();
        }
        uint64_t last;
        while ((last = now()) < until) {
        }
        return last;
    }

    // Spins until `us` microseconds have passed (the "wait(d)" of Hoefler et al. 2007, Listing 1).
    void busy_wait_us(double us) const
    {
        wait_until(now() + us_to_ticks(us));
    }

    bool is_virtual() const
    {
        return virtual_.now != nullptr;
    }

    const TimerInfo& info() const
    {
        return info_;
    }

private:
    Timer(bool use_tsc, TimerInfo info) : use_tsc_(use_tsc), info_(std::move(info)) {}
    Timer with_read_cost() &&;
    static Result<Timer> unflagged_tsc(TimerChoice choice, Timer clock);
    bool use_tsc_;
    TimerInfo info_;
    ngx_virtual_clock virtual_{}; // now == nullptr: real time
};

bool cpu_has_invariant_tsc();

} // namespace ngx

#endif
