// What the output files say about the machine and the placement of the two
// sides (the environment Hoefler and Belli, "Scientific Benchmarking of
// Parallel Computing Systems", SC15, ask every result to carry): host,
// kernel, CPU model and clock, frequency governor, logical CPUs, load,
// network interfaces and their MTU; per rank its pinning, CPU and SMT siblings.
//
//     Json host = machine_context();
//     Status pinned = pin_to_cpu(3);
//     double after = load_average_1min();   // at the end of the run
#ifndef NGX_SYSINFO_HPP
#define NGX_SYSINFO_HPP

#include <ngx/record.hpp>
#include <ngx/status.hpp>

#include <vector>

namespace ngx {

Json machine_context();

// The 1-minute load average (/proc/loadavg); 0 when unknown.
double load_average_1min();

Status pin_to_cpu(int cpu);

// The CPUs this process may run on, in increasing order.
std::vector<int> allowed_cpus();

// This process's placement: requested CPU (or null), affinity list, CPU it runs on.
Json placement(int rank, int requested_cpu);

} // namespace ngx

#endif
