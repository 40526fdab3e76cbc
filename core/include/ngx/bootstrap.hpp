// The bootstrap: how the processes of a run find each other, separate from
// the module being measured (the measured API never exchanges addresses).
//
// Implementations: a stream bootstrap over one socket, used both by the local
// launcher (ngx forks its peer, a socketpair joins them) and by the TCP
// rendezvous (--listen / --connect); and, when built with MPI, one over MPI
// for runs under mpirun or srun. Ranks are paired: with 2k ranks, rank i
// measures against rank i + k (and back).
//
// Every step over the bootstrap names itself (a label that every rank gives
// alike, "loggp: o_r per size") and is numbered on each rank; its messages
// carry both (bootstrap.cpp). A rank that receives another step's message
// ends at once with a desync error naming both ranks' steps, instead of the
// two waiting out the deadline in steps that never meet. The label is for
// that check and its message only; the implementations carry raw bytes.
//
//     Status s = boot.exchange(my_address_blob, peer_blob, "tcp: addresses");
//     ngx_bootstrap c_view = boot.c_view();   // what modules receive
#ifndef NGX_BOOTSTRAP_HPP
#define NGX_BOOTSTRAP_HPP

#include <ngx/module.h>
#include <ngx/status.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ngx {

using Bytes = std::vector<uint8_t>;

// How the processes of a run were started and joined.
enum class BootstrapKind {
    local, // ngx forked its peer on this machine
    tcp,   // --listen / --connect rendezvous
    mpi,   // ranks of mpirun or srun
};

class Bootstrap {
public:
    virtual ~Bootstrap() = default;

    virtual BootstrapKind kind() const = 0;
    std::string name() const; // "local", "tcp", "mpi": for output only
    virtual int rank() const = 0;
    virtual int nranks() const = 0;
    // The rank this one measures against: i <-> i + nranks/2 (an MPI
    // bootstrap that forms one group for a collective pattern overrides both).
    virtual int peer() const { return rank() < nranks() / 2 ? rank() + nranks() / 2 : rank() - nranks() / 2; }
    // Rank 0..k-1 drive the measurement; their peers respond.
    virtual bool is_driver() const { return rank() < nranks() / 2; }

    virtual std::string local_address() const = 0;
    virtual std::string peer_address() const = 0;

    // The steps, each named by `step` (the same text on every rank), which
    // also prefixes their errors ("waiting for the peer after the run: ...").
    // Sends `mine` to the peer and receives the peer's blob.
    Status exchange(const Bytes& mine, Bytes& theirs, std::string_view step);
    // Returns once every rank of the run has entered it.
    Status barrier(std::string_view step);
    // Rank 0's `value` reaches every rank (rank 0 does not wait for them).
    Status broadcast(Bytes& value, std::string_view step);
    // Every rank's `mine` reaches rank 0, in rank order (others get nothing
    // and do not wait for rank 0).
    Status gather(const Bytes& mine, std::vector<Bytes>& all, std::string_view step);
    // The steps taken so far on this rank (the number of the last one).
    uint64_t steps_taken() const { return steps_; }

    // What each implementation carries: the steps above without their check,
    // for them and for decorators that wrap another bootstrap.
    virtual Status raw_exchange(const Bytes& mine, Bytes& theirs) = 0;
    virtual Status raw_broadcast(Bytes& value) = 0;
    virtual Status raw_gather(const Bytes& mine, std::vector<Bytes>& all) = 0;
    // Whether raw_exchange() reaches peer(); false for a group without pairs
    // (a collective pattern under MPI, a run of more than two hosts).
    virtual bool has_pair_channel() const { return true; }
    // Whether raw_broadcast() and raw_gather() reach every rank; false for the
    // view of one link being opened, whose barrier is its pair's alone.
    virtual bool has_collectives() const { return true; }

    // A C view for modules; valid while this object lives.
    ngx_bootstrap c_view();

private:
    std::string local_address_copy_, peer_address_copy_;
    uint64_t steps_ = 0;
};

// What a bootstrap may know first-hand about where the ranks are (the
// host list of a --listen/--connect run). An interface of its own, asked
// with known_host_address(), rather than a virtual of Bootstrap: pattern
// plugins that derive from Bootstrap keep the layout they were built with.
class HostDirectory {
public:
    virtual ~HostDirectory() = default;
    // The address of `rank`'s host, or "" when only that rank can say.
    virtual std::string host_address_of(int rank) const = 0;
};

// `boot`'s first-hand address of `rank`'s host (HostDirectory), or "". Per-peer
// links dial it when it is not empty, so that no rank can make another dial
// elsewhere by what it says of itself.
std::string known_host_address(const Bootstrap& boot, int rank);

Bytes to_bytes(const std::string& text);
std::string to_string(const Bytes& bytes);

} // namespace ngx

#endif
