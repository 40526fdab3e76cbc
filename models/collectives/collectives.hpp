// Predicted cost of MPI collectives per algorithm, built on one
// point-to-point cost function (what one message of s bytes costs, from a
// fitted LogGP range or a LogGPS model), for any P >= 2.
//
//     MessageCostFn p2p = loggp_message_cost(params);       // range lookup
//     Collective c{CollectiveOp::allreduce, Algorithm::ring, 64, 1 << 20};
//     double us = predict_collective(c, p2p);               // closed form
//
// Cost semantics (LogGOPSim's, Hoefler, Schneider, Lumsdaine, "LogGOPSim:
// Simulating Large-Scale Applications in the LogGOPS Model", HPDC 2010):
// a send started at t keeps its rank's CPU busy o_s + (s-1)O and
// its NIC busy g + (s-1)G; the message reaches the receiver at t + o_s + L,
// whose CPU then takes o_r + (s-1)max(O, G) (once its CPU and NIC are free;
// its NIC is busy g + (s-1)G per message). One message to an idle receiver
// thus costs L + o_s + o_r + (s-1)max(O, G); consecutive sends of one rank
// start max(o_s + (s-1)O, g + (s-1)G) apart. A message above the rendezvous
// threshold S first sends a request and waits for the receiver's answer, as
// ngx's sim module documents (paper: Ino et al., "LogGPS", Table 3, T4 and
// T5): its data leaves max(t + request, receive posted) + reply. A reduction
// costs gamma us per byte of CPU time (Thakur et al. 2005's cost model: gamma).
//
// Closed forms. Each algorithm's time is written with the functions of this
// cost: one(s) (one message to a waiting receiver), spacing(s) (start to
// start of a rank's consecutive sends) and round(s) (every rank sends s to
// one peer and receives s from another at once). They are exact (equal to
// evaluate_schedule of collective_schedule.hpp, which plays the schedule event by event with the same
// rules) where the algorithm's ranks all do the same in every step (ring,
// pairwise, Bruck, dissemination, recursive doubling and Rabenseifner's
// allreduce with P a power of two), for the linear and binomial trees
// (bcast, scatter, gather, reduce, and allreduce as reduce + bcast), as the
// unit tests check for P = 2..17; they are approximations, said at each,
// where phases are added up (scatter + allgather, reduce-scatter + gather),
// for pipelines, and where non-power-of-two steps fold ranks in and out (the
// folded ranks start later; the closed form charges that delay to everyone).
// Measured against the event-by-event evaluation (P = 2..200, four
// parameter sets, 1 B to 1 MiB, gamma > 0), closed minus events:
// recursive-doubling allreduce and barrier 0..+33%, allgather -26..+33%,
// Rabenseifner allreduce -17..0% and reduce -11..+3%, scatter_allgather
// -17..0%, reduce ring and pipeline within 0.1%; the largest gaps at small
// non-power-of-two P (P = 5: a fold charged as a whole step). Predictions cost
// O(log^2 P) arithmetic at most, so P = 2^20 is as cheap as P = 4.
//
// LogGOPSim. With the parameters of `ngx predict --export loggopsim` and
// the schedule of `ngx export --goal`, LogGOPSim reproduces the exact
// closed forms to the picosecond (tests/integration/collectives-loggopsim.sh).
// Where a message reaches a rank whose CPU is busy and the rank's own next
// operation becomes ready at the same instant, ngx lets the own operation
// go first; LogGOPSim takes them in its event heap's order, which follows no
// rule, so the non-power-of-two folds, the binomial reduce/gather at other P
// and the pipeline can differ from it by a message's receive cost per tie
// (ngx's closed form and its own evaluation agree there).
#ifndef NGX_FIT_COLLECTIVES_HPP
#define NGX_FIT_COLLECTIVES_HPP

#include <models/loggp/loggp.hpp>
#include <models/loggps/loggps.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ngx::fit {

// What one message of a given size costs (see the overview), in us.
struct MessageCost {
    double send_cpu = 0; // o_s + (s-1)O: the sender's CPU from the send's start
    double send_gap = 0; // g + (s-1)G: the sender's NIC before its next send
    double arrival = 0;  // o_s + L: from the (data) send's start to the receiver
    double recv_cpu = 0; // o_r + (s-1)max(O, G): the receiver's CPU per message
    double recv_gap = 0; // g + (s-1)G: the receiver's NIC per message
    bool rendezvous = false;
    double request = 0; // rendezvous: the request's way to the receiver
    double reply = 0;   // rendezvous: from the receiver noticing it to the data's start
    // Rendezvous delay when the receive is already posted.
    double handshake() const noexcept { return rendezvous ? request + reply : 0; }
};

// The cost of one message of `bytes` bytes (bytes > 0, not necessarily whole:
// a block of n/P bytes). NaN fields: the model cannot price that size.
using MessageCostFn = std::function<MessageCost(double bytes)>;

// LogGP, per protocol range (Hoefler et al. 2007, Table 2): each message costed with
// the range its size falls in (LogGPParams::range_for), in the terms ngx's
// LogGOPSim export uses: O = max(O_s, O_r) for an overlapped range, else
// (O_s + O_r)/2 with G + O_s + O_r as the per-byte gap, so that one message
// costs L + transfer_at(s), eq. (1) halved; negative per-byte costs are 0.
// With a measured LogGPRange::exchange_cpu_share f < 1 the send's CPU per
// byte is O - (1 - f) O_s and the per-byte gap max(G, O) (exchange_share.hpp):
// an exchange then pays only the send's CPU before its receive.
MessageCost loggp_message_cost(const LogGPRange& range, double bytes) noexcept;
MessageCostFn loggp_message_cost(const LogGPParams& params);
// LogGPS (Ino et al., Table 3): send CPU T1 = o' + kO_s, arrival T1 + T2,
// receive CPU T3 = o' + kO_r, gaps g + T2 - L; above S a rendezvous with
// request o' + L and reply o' + o' + L + o' (T4 + T5 with a waiting receiver).
MessageCostFn loggps_message_cost(const LogGPSParams& params);

enum class CollectiveOp { bcast, reduce, allreduce, allgather, alltoall, gather, scatter, barrier };

enum class Algorithm {
    linear,             // bcast, gather, scatter: the root talks to each rank in turn; alltoall: all at once
    binomial,           // bcast, reduce, allreduce (reduce + bcast), gather, scatter
    pipeline,           // bcast: a chain of segments
    scatter_allgather,  // bcast: van de Geijn, binomial scatter + ring allgather
    recursive_doubling, // allreduce, allgather, barrier
    ring,               // reduce, allreduce (reduce-scatter + allgather/gather), allgather
    rabenseifner,       // reduce, allreduce: recursive halving + doubling/gather
    bruck,              // allgather, alltoall
    pairwise,           // alltoall
    dissemination,      // barrier
};

std::string_view op_name(CollectiveOp op) noexcept;
std::string_view algorithm_name(Algorithm algorithm) noexcept;
std::optional<CollectiveOp> op_from_name(std::string_view name) noexcept;
std::optional<Algorithm> algorithm_from_name(std::string_view name) noexcept;
// The algorithms ngx models for an operation, in a fixed order.
std::vector<Algorithm> algorithms_of(CollectiveOp op);
// Their names, "binomial, recursive_doubling, ring, rabenseifner".
std::string algorithm_list(CollectiveOp op);

// One collective. `bytes` is the buffer of bcast, reduce and allreduce, and
// each rank's block (the MPI count times the type size) of allgather,
// alltoall (per destination), gather and scatter; unused by barrier (its
// messages carry 1 byte: LogGOPSim cannot send 0).
struct Collective {
    CollectiveOp op = CollectiveOp::allreduce;
    Algorithm algorithm = Algorithm::ring;
    long long ranks = 2;          // P >= 2
    double bytes = 1;             // > 0
    double gamma = 0;             // reduction cost, us per byte (reduce, allreduce)
    double segment_bytes = 65536; // pipeline segment
};

// Why a collective cannot be costed: an algorithm ngx has no model of for
// the op, P < 2 or beyond 2^30, bytes not > 0, gamma or the segment invalid.
// Empty when it can.
std::string check_collective(const Collective& c);

// The closed form (see the overview). NaN when check_collective fails or a
// message cost is NaN.
double predict_collective(const Collective& c, const MessageCostFn& p2p);

} // namespace ngx::fit

#endif
