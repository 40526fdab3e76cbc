// What the output files say about the machine and the placement of the two
// sides: host, kernel, CPU model, logical CPUs, load; pinning.
//
//     Json host = machine_context();
//     Status pinned = pin_to_cpu(3);
#ifndef NGX_SYSINFO_HPP
#define NGX_SYSINFO_HPP

#include <ngx/record.hpp>
#include <ngx/status.hpp>

#include <vector>

namespace ngx {

Json machine_context();

Status pin_to_cpu(int cpu);

// The CPUs this process may run on, in increasing order.
std::vector<int> allowed_cpus();

// This process's placement: requested CPU (or null), affinity list, CPU it runs on.
Json placement(int rank, int requested_cpu);

} // namespace ngx

#endif
