// Replay of an MPI trace under LogGPS (Ino et al. 2001, Tables 3 and 4):
// each rank's clock advances by the measured computation between its calls
// and by the predicted cost of each call, sends and receives matched by
// MPI's non-overtaking order per (communicator, source, destination, tag).
//
//     Result<ReplayReport> r = replay_trace(ranks, params);   // ranks: open_trace()
//     r->total.predicted_s;  r->total.sender_sync_s;
//
// Every point-to-point operation is a request (a blocking call is a request
// and its wait at once). A request resolves when its partner is known: an
// eager send (k <= S) at once with T_blk = T1 (eq. (4)); a rendezvous send
// when its receive is posted, T_blk = send_cost(k, t_r - t_s) (eq. (5)); a
// receive when its send is posted, T_blk = recv_cost(k, t_r - t_s)
// (eq. (7)-(9)). Isend and Irecv cost o' (eq. (6), (10)); a call that waits
// for requests R at t_w ends at max(t_w + b, max_R (t_post + T_blk)), with
// b = o' for Wait/Test calls and 0 for blocking calls (eq. (11) for each
// request). The split of a call's time: with every T_blk replaced by its
// value for a partner on time (sender sync: the receive posted before the
// request arrives, send_cost(k, -inf); receiver sync: the message there,
// recv_cost(k, +inf)) the call ends at e0: overhead = e0 - t_w; with only
// the receive requests' replaced it ends at e1: receiver sync = end - e1,
// sender sync = e1 - e0. These are the paper's definitions (section 3):
// sender sync max{t_r - t_s - (o' + L), 0}, receiver sync the time from the
// receive's call to the data's arrival.
//
// Collectives on MPI_COMM_WORLD: every rank waits for the last to arrive
// (collective sync), then the collective costs what Open MPI's tuned
// decision's algorithm costs under LogGPS (collectives.hpp, closed form;
// where ngx has no model of that algorithm, its first model of the
// operation stands in, counted in `approximated`).
// What cannot be modelled (collectives on other communicators, the v
// variants, an algorithm ngx has no model of, Probe, a completion of a
// request the trace did not create) keeps its measured duration and is
// counted per call kind in `unmodelled`, never dropped.
//
// Errors (usage, exit 2): receives or sends left unmatched, a replay that
// cannot proceed (a rank waits for a message no rank sends, or a deadlock
// under changed parameters), ranks disagreeing on their collectives.
#ifndef NGX_TRACE_REPLAY_HPP
#define NGX_TRACE_REPLAY_HPP

#include "trace_reader.hpp"

#include <models/loggps/loggps.hpp>
#include <ngx/status.hpp>

#include <map>
#include <string>
#include <vector>

namespace ngx::trace {

// Predicted costs, seconds.
struct Costs {
    double overhead_s = 0;
    double sender_sync_s = 0;
    double receiver_sync_s = 0;
    double collective_s = 0;      // modelled collectives, after the last rank arrived
    double collective_sync_s = 0; // waiting in a collective for the last rank
    double unmodelled_s = 0;      // events kept at their measured duration
    void add(const Costs& c);
};

struct RankResult {
    int rank = 0;
    double measured_s = 0;      // first call to last return, on rank 0's clock
    double measured_mpi_s = 0;  // inside MPI calls
    double computation_s = 0;   // between calls (the tracer's flushes excluded)
    double predicted_s = 0;     // first call to the predicted end of the last
    double predicted_end_s = 0; // from the earliest first call of all ranks
    Costs costs;
};

// One call kind and message-size bin: sizes in [bytes_min, bytes_max].
struct SiteKey {
    std::string call;
    int bin = -1; // floor(log2(bytes)); -1: 0 bytes
    bool operator<(const SiteKey& o) const { return call != o.call ? call < o.call : bin < o.bin; }
};
struct SiteResult {
    long long calls = 0;
    double measured_s = 0;
    double predicted_s = 0;
    Costs costs;
};

struct ReplayReport {
    int ranks = 0;
    long long events = 0;
    bool finalized = true;  // every rank reached MPI_Finalize
    double measured_s = 0;  // T_m: earliest first call to latest last return
    double predicted_s = 0; // T_p
    std::vector<RankResult> per_rank;
    Costs total;               // summed over ranks
    double measured_mpi_s = 0; // summed over ranks
    double computation_s = 0;  // summed over ranks
    std::map<SiteKey, SiteResult> sites;
    std::map<std::string, long long> unmodelled;   // call kind -> events kept at their measured duration
    std::map<std::string, long long> approximated; // collective: Open MPI's algorithm and what priced it
    double error_percent() const { return 100 * (predicted_s - measured_s) / measured_s; } // Table 7's sigma
};

// The ranks' readers are rewound first, so a trace can be replayed again.
Result<ReplayReport> replay_trace(std::vector<RankReader>& ranks, const fit::LogGPSParams& params);

// Bin bounds of a SiteKey.
double bin_min_bytes(int bin);
double bin_max_bytes(int bin);

} // namespace ngx::trace

#endif
