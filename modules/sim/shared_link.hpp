// The sim module's node link (Gropp et al. 2016's max-rate model as ground truth):
// with --sim-RN (bytes/s shared by all pairs of one node) and --sim-RC
// (bytes/s of each pair's own path to the NIC), a message of n bytes sent
// while a pairs of this node are communicating takes
//     max(n / R_C, a n / R_N) = a n / min(R_N, a R_C)
// on top of the LogGP costs, so k pairs ping-ponging at once see
// T = alpha + k n / min(R_N, k R_C) exactly (alpha = o_s + L + o_r, G = 0).
// The pairs of a node share one record in POSIX shared memory (named after
// the job: PMIX_NAMESPACE under mpirun, the Slurm step, else rank 0's pid,
// or --sim-link NAME; created with O_EXCL, a segment of that name someone
// else made is refused, and the name is removed as soon as every rank of
// the node has mapped it, so that no exit, not even SIGKILL, leaves it):
// one slot per pair holding until when that pair counts as communicating,
// i.e. its last send plus three of its round trips at the current share (a
// ping-pong pair sends on this node's link once per round trip), so that a
// pair stays counted between its sends and stops counting soon after it
// stops.
//
//     SharedLink link;                                   // in the module context
//     link.configure(read_link_settings(read));          // --sim-RN, --sim-RC, --sim-link
//     link.open(boot, alpha, units_per_ns, err);         // in connect
//     uint64_t extra = link.share(bytes, now);           // per data message
//
// Times (alpha, now, the result) are in the caller's clock unit, given as
// units per nanosecond (1 for CLOCK_MONOTONIC ns; a TSC's ticks per ns);
// every process of a node must use the same clock.
#ifndef NGX_SIM_SHARED_LINK_HPP
#define NGX_SIM_SHARED_LINK_HPP

#include <ngx/module.h>
#include <ngx/module_support.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace ngx::sim {

inline constexpr size_t max_link_pairs = 1024;

struct LinkRecord {
    std::atomic<uint64_t> active_until[max_link_pairs]; // the senders' clock unit
    std::atomic<uint32_t> attached;                     // ranks of the node that mapped it
};

struct LinkSettings {
    double rn_bytes_per_s = 0; // 0: unlimited
    double rc_bytes_per_s = 0;
    std::string name; // "": the job's
};

inline constexpr double max_rate_bytes_per_s = 1e13;

// The options of the shared link, rows of the sim module's table.
inline constexpr auto sim_RN = opt::row::number(
    "sim-RN", "0", 0, max_rate_bytes_per_s,
    "bytes/s of the node's link, shared by all pairs of a node (max-rate model, Gropp et al. 2016); 0 = none");
inline constexpr auto sim_RC = opt::row::number("sim-RC", "0", 0, max_rate_bytes_per_s,
                                                "bytes/s of each pair's own path to the link (max-rate model R_C); "
                                                "0 = none");
inline constexpr auto sim_link =
    opt::row::text("sim-link", "", "name of the shared link record (default: the job's name, else the driver's pid)");

// Reads --sim-RN, --sim-RC (bytes/s, 0 = unlimited) and --sim-link.
LinkSettings read_link_settings(mod::ModuleOptions& read);

class SharedLink {
public:
    SharedLink() = default;
    SharedLink(const SharedLink&) = delete;
    SharedLink& operator=(const SharedLink&) = delete;
    ~SharedLink();

    void configure(const LinkSettings& settings) { settings_ = settings; }
    bool enabled() const { return settings_.rn_bytes_per_s > 0 || settings_.rc_bytes_per_s > 0; }
    // "RN RC" for the peers' same-model check.
    std::string describe() const;
    // Maps this node's record; alpha is o_s + L + o_r of one message.
    ngx_status open(const ngx_bootstrap* boot, double alpha, double units_per_ns, ngx_error* err);
    // Time the link adds to a data message of `bytes` sent at `now`.
    uint64_t share(size_t bytes, uint64_t now);

private:
    LinkSettings settings_;
    std::string shm_name_;
    LinkRecord* record_ = nullptr;
    bool unlinked_ = false; // the name is gone: the node's last rank to map it removed it
    size_t slot_ = 0;
    double alpha_ = 0;
    double units_per_ns_ = 1;
};

// --sim-sleep: of a wait of `remaining_ns`, sleeps all but the last
// `margin_ns` (the caller spins the rest), so that many simulated processes
// can share few cores; margin 0 = never sleep.
void sleep_most_of(uint64_t remaining_ns, uint64_t margin_ns);
// With --sim-sleep (margin_ns > 0): a short sleep between polls of the ring,
// a fifth of the margin, so that waiting processes leave the cores free.
void nap(uint64_t margin_ns);

} // namespace ngx::sim

#endif
