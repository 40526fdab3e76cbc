// How much of the per-byte overheads occupies the CPU when the same rank
// sends and receives at once: the share of O_s and O_r that an exchange
// (MPI_Sendrecv, or isend + irecv + wait) pays besides the message's flight.
//
//     double x = exchange_time(range, 65536, 0.0);        // the model of an exchange
//     std::optional<ExchangeShareFit> f = fit_exchange_share(range, samples_in_range);
//     if (f) range.exchange_cpu_share = f->share;
//
// Why. Eq. (6) of Hoefler et al. 2007 gives o_s(s) = o_s + (s-1) O_s from
// blocking sends. Where the send is CPU work (a copy, sim's busy-wait) all
// of it delays a receive the rank runs next; where a blocking send waits
// (a rendezvous send over TCP waits for the handshake and for the socket
// to drain), that wait overlaps a concurrent receive. Blocking calls cannot
// tell the two apart; an exchange can. ngx's model of one exchange of s
// bytes between two ranks that both post the receive, then send, then wait
// for both (as MPI_Sendrecv does; not from a paper):
//
//   X_f(s) = max(g + (s-1)G, o_s + o_r + f (s-1) (O_s + O_r) + L + (s-1)G)
//
// the overheads' CPU part (their intercepts and the share f of their
// per-byte parts) and the message's flight, one after the other; never
// faster than the gap lets a rank send back to back. With f = 1 it is one
// message of eq. (1) (Hoefler et al. 2007), the sim module's exact rule for
// irecv + isend + wait (modules/sim/sim.cpp: the send's whole o_s(s) is
// busy-waited before the data leaves), and LogGOPSim's reading
// (o + (s-1)O is CPU time); f = 0: the per-byte parts are all waiting,
// overlapped with the flight (a rendezvous send waiting for the socket to
// drain; a receive call waiting for the data as it streams in: Open MPI's
// tcp BTL above 128 KiB, ExchangeShare.AReceiveThatWaitsForTheFlightIsNotChargedAfterIt).
// One share for both, since an exchange times them together. fit_exchange_share takes the f in
// [0, 1] that reproduces the measured exchanges best (least squares of the
// relative residuals over a grid of 1/1000, ties to the larger f), and the
// collective models (collectives.hpp) charge a send's CPU only that share
// of its per-byte overhead.
#ifndef NGX_FIT_EXCHANGE_SHARE_HPP
#define NGX_FIT_EXCHANGE_SHARE_HPP

#include <models/loggp/loggp.hpp>

#include <optional>
#include <span>

namespace ngx::fit {

// X_f(s) above with the range's parameters (o_r and O_r those of the send
// where o_r was not measured).
double exchange_time(const LogGPRange& range, double s, double share) noexcept;

struct ExchangeShareFit {
    double share = Measured::nan;        // f in [0, 1]
    double mean_rel = Measured::nan;     // mean relative error of X_f over the points
    double mean_rel_cpu = Measured::nan; // ... and of X_1 (all of O_s as CPU time)
    std::size_t points = 0;              // sizes with a measured exchange
};

// f for one range from the samples in it that have `exchange`. nullopt when
// none has, or when the range has no per-byte send overhead (O_s <= 0: no
// share to find).
std::optional<ExchangeShareFit> fit_exchange_share(const LogGPRange& range, std::span<const PrttSample> samples);

} // namespace ngx::fit

#endif
