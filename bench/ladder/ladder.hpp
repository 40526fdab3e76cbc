// ladder.hpp: what the two variant ladders (shm_ladder.cpp, mpi_ladder.cpp)
// share: whole-number arguments, the clocks, and the one output row. Each
// program defines its own usage() (exits 2).
//
//     double per_ns = ladder::tsc_ticks_per_ns();
//     ladder::report("tsc", half_round_trips_ns);   // "tsc median_us min_us mean_us samples"
#ifndef NGX_BENCH_LADDER_HPP
#define NGX_BENCH_LADDER_HPP

#include <x86intrin.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

[[noreturn]] void usage();

namespace ladder {

inline long parse_long(const char* s)
{
    char* end = nullptr;
    errno = 0;
    long v = std::strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0')
        usage();
    return v;
}

inline uint64_t monotonic_ns()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

// The round trips of a run: -w warm-up, -n timed, -B per batch.
struct Counts {
    long warmup = 1000, iters = 20000, batch = 100;
    bool valid() const { return warmup >= 0 && iters >= 1 && batch >= 1 && iters >= batch; }
};

// Takes getopt's option `c` if it is one of Counts' (-w, -n, -B).
inline bool parse_count(int c, const char* arg, Counts& counts)
{
    long* target = c == 'w' ? &counts.warmup : c == 'n' ? &counts.iters : c == 'B' ? &counts.batch : nullptr;
    if (target == nullptr)
        return false;
    *target = parse_long(arg);
    return true;
}

// ngx's timer read (core/include/ngx/timer.hpp): rdtscp, no fence.
inline uint64_t tsc()
{
    unsigned int aux;
    return __rdtscp(&aux);
}

inline double tsc_ticks_per_ns()
{
    uint64_t ns0 = monotonic_ns(), t0 = tsc();
    while (monotonic_ns() - ns0 < 20000000) {
    }
    return double(tsc() - t0) / double(monotonic_ns() - ns0);
}

// Prints "variant median_us min_us mean_us samples" of half round trips in ns.
inline void report(const std::string& variant, std::vector<double>& ns)
{
    std::sort(ns.begin(), ns.end());
    double sum = 0;
    for (double v : ns)
        sum += v;
    size_t n = ns.size();
    double median = n % 2 ? ns[n / 2] : 0.5 * (ns[n / 2 - 1] + ns[n / 2]);
    std::printf("# variant median_us min_us mean_us samples\n");
    std::printf("%s %.4f %.4f %.4f %zu\n", variant.c_str(), median / 1000, ns[0] / 1000, sum / double(n) / 1000, n);
}

} // namespace ladder

#endif
