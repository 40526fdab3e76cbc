// Whether the CPUs, not the network, set a run's time. Each rank reads what
// it used over the run: CPU time (getrusage) and the time its measuring
// thread was runnable but waited for a CPU (the run-queue delay of
// /proc/thread-self/schedstat). Rank 0 gathers every rank's share and says
// when the ranks of one host outnumber its CPUs or a rank waited for a CPU
// for a noticeable part of the run: the timings then hold the scheduler's
// share, not only the network's.
//
//     CpuUsage start = read_cpu_usage();
//     ... the run ...
//     Json mine = rank_usage_json(rank, usage_between(start, read_cpu_usage()));
//     Json verdict = cpu_verdict(all_ranks);   // {"ranks": [...], "cpu_bound": ..., "reasons": [...]}
//     cpu_verdict_text(verdict)                 // ngx/reporter.hpp: the sentence the table prints
#ifndef NGX_CPU_SHARE_HPP
#define NGX_CPU_SHARE_HPP

#include <ngx/record.hpp>

#include <string>

namespace ngx {

// Cumulative use of this process since it started (or, from
// usage_between, over an interval).
struct CpuUsage {
    double wall_s = 0;     // steady clock
    double cpu_s = 0;      // user + system, every thread
    double waiting_s = -1; // runnable but not running, every thread; < 0: unknown
    long involuntary_switches = 0;
};

CpuUsage read_cpu_usage();
CpuUsage usage_between(const CpuUsage& start, const CpuUsage& end);

// One rank's use over the run with its host, that host's online CPUs and
// load average: what rank 0 gathers (rank_usage_json reads them here).
Json usage_json(int rank, const std::string& host, int cpus_online, double load_average, const CpuUsage& used);
Json rank_usage_json(int rank, const CpuUsage& used);

// From every rank's rank_usage_json: the ranks, and whether (and why) the
// CPUs may have set the run's time. A run timed by a virtual clock (the
// sim's) is never CPU-bound: its times do not depend on the CPUs ("clock":
// "virtual"). Pure.
Json cpu_verdict(const Json& ranks, bool virtual_clock = false);

} // namespace ngx

#endif
