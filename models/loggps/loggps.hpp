// The LogGPS model of Ino, Fujimoto and Hagihara (2001, "LogGPS: A
// Parallel Computational Model for Synchronization Analysis"): LogGP plus
// a rendezvous threshold S, size-linear overheads o' + k O_s / o' + k O_r
// and two gaps per byte G_s / G_l split at the multi-packet threshold s.
// Costs of Table 3, MPI routine costs of Table 4, the round trip with an
// imbalance w of Table 6, and the parameter derivation of section 4.3.
//
//     // RTT measured at w = 0 and at a large imbalance w = W (pattern `loggps`)
//     Result<LogGPSFit> f = fit_loggps(sizes, rtt_w0, rtt_wW, W);
//     const LogGPSParams& p = f->params;
//     p.S;                       // rendezvous threshold (bytes)
//     p.rtt(4096, 100.0);         // Table 6, eq. (12)-(14), w = 100
//     p.linear_bcast(16, 1 << 20);
//
// Notation (Ino et al. 2001, section 3): k = message length in bytes; thresholds
// "k <= s" = single packet, "k > S" = synchronous (rendezvous). Table 3:
//   T1 = o' + k O_s                      send overhead
//   T2 = k G_s + L              (k <= s)  network time, single packet
//   T2' = s G_s + (k-s) G_l + L (k > s)   network time, multiple packets
//   T3 = o' + k O_r                      receive overhead
//   T4 = max{o' + L, t_r - t_s} + o'     REQ arrival and confirmation
//   T5 = o' + L + o'                     ACK
// (Section 3's (D3) text names the gaps the other way round; Table 3 and the
// slopes of section 4.3 fix G_s as the single-packet one, which we follow.)
//
// Reading of Table 6. In the RTT program (Fig. 3) P0 sends, computes w,
// receives; P1 receives and replies. For k > S both of P0's handshakes find
// the receiver already waiting, so T4 = 2o' + L in eq. (14); with that value
// eq. (14) equals the event-by-event composition of eqs. (5) and (9) (the
// tests check this).
//
// Reading of section 4.3 (derivation). From the two RTT curves, at w = 0 and
// at a W large enough that the max{} terms of Table 6 vanish:
//   w = 0, k <= s:      RTT = 4o' + 2L + 2 (O_s + O_r + G_s) k
//   w = W, k <= S:      RTT = W + 2o' + (O_s + O_r) k
//   w = 0, s < k <= S:  slope 2 (O_s + O_r + G_l)
//   w = W, k > S:       slope 2 O_s + O_r + G_l
// two intercepts and four slopes give six equations in L, o', O_s, O_r, G_s,
// G_l (the paper's Myrinet example lists exactly these).
// derive_loggps_paper() does that literally: four least-squares lines, six
// equations, s and S given (the paper takes them from the MPI
// documentation). fit_loggps() improves on it: it fits all points of every
// curve at once to the full Table 6 model (linear in the six parameters once
// each max{} branch is known; the branches are iterated to a fixed point), so
// continuity at s, the rendezvous intercepts and any w are used, W need not
// be "large" everywhere, and it searches s and S (unless given) over the
// measured sizes, picking the pair with the smallest penalised BIC (each
// threshold with measured sizes above it costs threshold_penalty * ln n on
// top of its extra coefficients, and needs min_sizes_above sizes above it,
// so noise alone does not buy a transport without rendezvous an S). s and S are
// reported as the largest measured size below the switch (s_next / S_next
// are the first sizes above). With no size above S, O_s and O_r cannot be
// separated: O_s = O_r is assumed and flagged; with no size above s, G_l is
// not measured (NaN, flagged).
//
// The gap g is not part of LogGPS costs (Ino et al. 2001, section 4.2 disregards
// it); predictions here ignore it as the paper does, except the tree
// broadcast of Cameron et al. 2007 section 4.3.3, which adds (h-1) g (g = 0 unless the
// caller sets it, e.g. from a LogGP fit of the same transport).
#ifndef NGX_FIT_LOGGPS_HPP
#define NGX_FIT_LOGGPS_HPP

#include <models/base/least_squares.hpp>
#include <models/base/linear_model.hpp>
#include <models/base/measured.hpp>
#include <models/base/model_error.hpp>
#include <models/base/status.hpp>
#include <models/base/weighting.hpp>

#include <cstddef>
#include <limits>
#include <optional>
#include <span>
#include <vector>

namespace ngx::fit {

struct LogGPSParams {
    static constexpr double inf = std::numeric_limits<double>::infinity();

    double L = 0;       // latency
    double o_prime = 0; // o': overhead of the first byte
    double O_s = 0;     // send overhead per subsequent byte
    double O_r = 0;     // receive overhead per subsequent byte
    double G_s = 0;     // gap per byte, single packet (k <= s)
    double G_l = 0;     // gap per byte beyond s (k > s)
    double s = inf;     // multi-packet threshold, bytes
    double S = inf;     // rendezvous threshold, bytes
    double g = 0;       // gap between messages; only tree_bcast uses it (see the overview)

    // Table 3 terms. `wait` = t_r - t_s, the receive call's time minus the
    // send call's (negative or -inf when the receiver is already waiting).
    double t1(double k) const noexcept; // o' + k O_s
    double t2(double k) const noexcept; // T2 for k <= s, T2' for k > s
    double t3(double k) const noexcept; // o' + k O_r
    double t4(double wait) const noexcept;
    double t5() const noexcept;

    // Communication cost, Table 3 eq. (1)-(3): send call to end of receive.
    double comm_cost(double k, double wait = -inf) const noexcept;
    // MPI routine costs, Table 4.
    double send_cost(double k, double wait = -inf) const noexcept; // eq. (4), (5)
    double isend_cost() const noexcept;                            // eq. (6)
    double recv_cost(double k, double wait) const noexcept;        // eq. (7)-(9)
    double irecv_cost() const noexcept;                            // eq. (10)
    // eq. (11): max{T_blk - elapsed, o'}, elapsed = t_w - t_i, the time from
    // the non-blocking call to the wait (printed as t_i - t_w, which would be
    // negative; we read it as the elapsed time).
    double wait_cost(double t_blk, double elapsed) const noexcept;

    // Round trip with imbalance w >= 0, Table 6 eq. (12)-(14).
    double rtt(double k, double w = 0) const noexcept;
    double half_rtt(double k) const noexcept { return rtt(k, 0) / 2; }
    // PRTT(n, d, k) of Hoefler et al. 2007 Listing 1 under LogGPS: n blocking sends
    // d apart, n receives, one reply; composed event by event from Table 4
    // (send returns after eq. (4)/(5), each receive ends per eq. (7)-(9)
    // with t_r = end of the previous receive). prtt(1, 0, k) == rtt(k, 0).
    double prtt(double n, double d, double k) const noexcept;
    // Linear broadcast: the root's P-1 blocking sends back to back to
    // waiting receivers; the last one ends (P-2) send_cost + comm_cost.
    double linear_bcast(double P, double k) const noexcept;
    // Tree of height h = ceil(log2 P), Cameron et al. 2007 section 4.3.3 with LogGPS's
    // message cost: h comm_cost(k) + (h-1) g (0 for P = 1).
    double tree_bcast(double P, double k) const noexcept;
};

// One round trip measured with the `loggps` pattern.
struct RttPoint {
    double size = 0; // k, bytes
    double w = 0;    // imbalance (dummy computation on P0), same unit as rtt
    double rtt = 0;
};

struct LogGPSOptions {
    std::optional<double> s; // multi-packet threshold if known (bytes)
    std::optional<double> S; // rendezvous threshold if known (bytes; inf = none)
    // relative: weight points by 1 / (rtt - w)^2, noise proportional to the
    // communication part (the busy-wait w is exact); none: unweighted.
    Weighting weights = Weighting::relative;
    // Threshold search (when s or S is not given): each threshold with
    // measured sizes above it adds threshold_penalty * ln(n) to the BIC and
    // needs at least min_sizes_above distinct sizes above it.
    double threshold_penalty = 2.0;
    std::size_t min_sizes_above = 2;
    double level = 0.95;
};

struct LogGPSFit {
    LogGPSParams params;
    // The six parameters with regression standard errors and intervals
    // (conditional on the chosen s and S).
    Measured L, o_prime, O_s, O_r, G_s, G_l;
    double s_next = LogGPSParams::inf; // first measured size above s
    double S_next = LogGPSParams::inf; // first measured size above S
    bool O_split_assumed = false;      // no size above S: O_s = O_r assumed
    bool G_l_measured = true;          // false: no size above s, G_l is NaN
    // Indices of the points with w > 0 whose Table 6 max{} term is still
    // positive (W not large enough to hide the communication there).
    std::vector<std::size_t> not_overlapped;
    double bic = 0;   // penalised BIC of the chosen (s, S)
    ModelError error; // rtt(k, w) against every point
};

// Points in any order; sizes >= 0, w >= 0, all finite. Needs at least two
// sizes at w = 0 and two at some w > 0 below S.
Result<LogGPSFit> fit_loggps(std::span<const RttPoint> points, const LogGPSOptions& options = {});

// The usual two curves: RTT(k) at w = 0 and at w = W, over the same sizes.
Result<LogGPSFit> fit_loggps(std::span<const double> sizes, std::span<const double> rtt_w0,
                             std::span<const double> rtt_wW, double W, const LogGPSOptions& options = {});

// Ino et al. 2001, section 4.3, literally: lines through (w=0, k<=s), (w=W, k<=S),
// (w=0, s<k<=S) and (w=W, k>S), then the six equations. Each segment needs
// >= 2 points; if (s, S] has fewer, the w = 0 slope over k > S (also
// 2(O_s + O_r + G_l)) is used instead. Sizes increasing.
Result<LogGPSParams> derive_loggps_paper(std::span<const double> sizes, std::span<const double> rtt_w0,
                                         std::span<const double> rtt_wW, double W, double s, double S);

} // namespace ngx::fit

#endif
