// The MPI bootstrap: used when ngx runs under mpirun or srun (or with
// --bootstrap mpi). It initialises MPI, takes rank and size from
// MPI_COMM_WORLD, pairs rank i with rank i + n/2 (an even count), and carries
// every bootstrap step (exchange, barrier, broadcast, gather) over MPI. MPI is
// only the bootstrap here: `mpirun -np 2 ngx -m tcp` measures raw TCP between
// the ranks. A pattern whose PatternInfo says RankGrouping::group (bcast)
// gets all ranks as one group instead: any P >= 2, rank 0 drives, no pairwise
// exchange (it would be an error), no peer address.
//
// Every step is non-blocking MPI polled with MPI_Test under the run's
// deadline, so a silent peer ends in an error, not a hang.
//
// Addresses (local_address / peer_address, what socket modules such as tcp
// listen on and connect to): the IPv4 address of the interface named by
// NGX_MPI_IFACE when set, else the first non-loopback IPv4 interface that is
// up, else 127.0.0.1; each rank picks its own and the pair exchanges them.
//
//     Result<std::unique_ptr<Bootstrap>> boot = start_mpi_bootstrap(timeout_ns, *config.pattern);
//     ...
//     finish_mpi_bootstrap(**boot, exit_code);  // MPI_Finalize, or MPI_Abort on failure
#ifndef NGX_MPI_BOOTSTRAP_HPP
#define NGX_MPI_BOOTSTRAP_HPP

#include <ngx/bootstrap.hpp>
#include <ngx/pattern.hpp>

#include <memory>
#include <string>

namespace ngx {

// MPI_Init_thread and the pairing or grouping `pattern` asks for; a rank
// count it cannot use (odd for pairs, below 2 for a group) is a usage error.
Result<std::unique_ptr<Bootstrap>> start_mpi_bootstrap(uint64_t timeout_ns, const PatternInfo& pattern);

// Tells an MPI bootstrap how the run ends: with exit code 0 or 2 (usage
// errors, which every rank sees alike) its destructor calls MPI_Finalize;
// with any other code it calls MPI_Abort so a peer blocked in MPI cannot
// hang the job. No effect on other bootstraps.
void finish_mpi_bootstrap(Bootstrap& boot, int exit_code);

// The MPI library ngx runs with: the first line of MPI_Get_library_version
// ("Open MPI v4.1.4, package: ..."); callable before MPI_Init.
std::string mpi_library_version();

// MPI_Abort(MPI_COMM_WORLD, exit_code) now, from any thread (the watchdog's
// while the main thread is stuck in MPI); returns only for other bootstraps.
void abort_mpi_job(Bootstrap& boot, int exit_code);

} // namespace ngx

#endif
