// LogGP parameters from parametrized round-trip times, exactly as Hoefler et al. 2007
// (Hoefler, Lichei, Rehm, "Low-Overhead LogGP Parameter Assessment"),
// one parameter set per detected protocol range (Hoefler et al. 2007, Table 2), and
// the LogGP predictions ngx offers (ping-pong, PRTT, linear and binomial-tree
// broadcast).
//
//     std::vector<PrttSample> samples = ...;   // one per message size
//     Result<LogGPFit> fit = fit_loggp(samples, /*n=*/16);
//     if (!fit) return fit.status();           // "too few points: 1 size, LogGP needs 2"
//     const LogGPParams& p = fit->params;
//     for (const LogGPRange& r : p.ranges)
//         show(r.from_bytes, r.g, r.G, r.L, r.send_line.at_one, r.send_line.per_byte,
//              r.recv_line.at_one, r.recv_line.per_byte);   // o_s, O_s, o_r, O_r
//     double t = p.prtt(16, 0.0, 4096);        // PRTT(16, 0, 4096), eq. (5)
//     double b = p.tree_bcast(64, 1 << 20);     // 64 processes, 1 MiB
//     fit->error.max_rel;                      // how well it reproduces the data
//
// The input per message size s is what the `loggp` pattern measures with
// Listing 1 of Hoefler et al. 2007: PRTT(1,0,s), PRTT(n,0,s), PRTT(n,d,s) and the delay
// d it used (paper: d = PRTT(1,0,s)), all in one time unit (ngx: microseconds).
//
// What is computed, per Hoefler et al. 2007:
//  - o(s) = (PRTT(n,d,s) - PRTT(1,0,s)) / (n-1) - d            eq. (6)
//  - y(s) = (PRTT(n,0,s) - PRTT(1,0,s)) / (n-1) = g + G (s-1)   eq. (7)
//  - protocol ranges: change points over x = s - 1 (section 3.5). The
//    published detector searches y(s) only; ngx's default searches every
//    measured curve, PRTT(1,0,s), y(s), o(s) and o_r(s), and a change in any
//    of them (level or slope, beyond its noise) starts a new range
//  - g, G: least-squares line through (s-1, y(s)) in each range: intercept
//    g, slope G, with regression confidence intervals (section 3.3)
//  - eel = PRTT(1,0,s_min) / 2: what the paper reports as L (section 3.4,
//    "half of the round trip time (EEL) of a small message", s_min = 1; if
//    the smallest measured size is not 1 the smallest is used and
//    `eel_size` says which).
//  - overheads per range as lines in the size (Hoefler et al. 2007 section 4: "o is
//    not constant ... but has a linear slope"; LogGOPSim's O):
//    o_s(s) = o_s + (s-1) O_s through o(s) of eq. (6), and
//    o_r(s) = o_r + (s-1) O_r through the measured receive overheads, each
//    with regression intervals; also the mean and median of o(s).
//
// L. The paper's reported L (the EEL) is not the L of eq. (1): by eq. (1)
// PRTT(1,0,s) = 2 (L + 2o + (s-1)G), so PRTT(1,0,1)/2 = L + 2o. To make the
// predictions reproduce the measurements, LogGPRange::L is the L of eq. (1)
// computed with the overhead lines: per size
// L(s) = PRTT(1,0,s)/2 - o_s(s) - o_r(s) - (s-1) G (2 o_s(s) when o_r was not
// measured), averaged over the range (t interval from the spread). Every
// prediction below uses the same lines, so parameters saved with their
// lines (OverheadLine::exact) reproduce the fit's `error` exactly.
// `eel` keeps the published quantity.
//
// Weighting. Hoefler et al. 2007 uses ordinary least squares and plain means. Timing
// noise is roughly proportional to the time, and sizes span 1 B..1 MiB, so by
// default (Weighting::relative) ngx weights the regression by 1/y^2, the
// o_s line and mean by 1/PRTT(n,d,s)^2, the o_r line by 1/o_r^2 and the mean
// of L by 1/PRTT(1,0,s)^2 (inverse-variance weights under proportional
// noise). Weighting::none gives the paper's plain fits.
//
// Validity flags: eq. (6) needs d > g + (s-1)G, eq. (7) needs
// g + (s-1)G >= o_s and >= o_r (eq. (5) with d = 0: otherwise the sender or
// the receiver, not the gap, paces the n messages); sizes where the fitted
// parameters violate these are listed, not dropped.
#ifndef NGX_FIT_LOGGP_HPP
#define NGX_FIT_LOGGP_HPP

#include <models/base/change_points.hpp>
#include <models/base/least_squares.hpp>
#include <models/base/measured.hpp>
#include <models/base/model_error.hpp>
#include <models/base/status.hpp>
#include <models/base/weighting.hpp>

#include <cstddef>
#include <cmath>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ngx::fit {

// One message size measured with Hoefler et al. 2007, Listing 1.
struct PrttSample {
    double size = 0;           // s, bytes (>= 1)
    double prtt_1_0 = 0;       // PRTT(1, 0, s)
    double prtt_n_0 = 0;       // PRTT(n, 0, s)
    double prtt_n_d = 0;       // PRTT(n, d, s)
    double delay = 0;          // d used for prtt_n_d
    std::optional<double> o_r; // receive overhead at s, if the pattern measured one
    // Time per exchange of s bytes both ways at once (isend + irecv + wait on
    // both ranks, back to back), if the pattern measured it (exchange_share.hpp).
    std::optional<double> exchange;
};

// One overhead as a line in the message size (Hoefler et al. 2007 section 4):
// o(s) = at_one + per_byte (s - 1), intercept and slope with intervals. A
// range of one size has no slope: its line is the constant at_one (per_byte
// NaN); an overhead not measured at all has at_one NaN.
struct OverheadLine {
    Measured at_one;   // o at s = 1 (o_s or o_r)
    Measured per_byte; // slope (O_s or O_r), per byte; NaN: none (a constant)
    bool fitted() const noexcept { return std::isfinite(at_one.value) && std::isfinite(per_byte.value); }
    bool known() const noexcept { return std::isfinite(at_one.value); }
    double at(double s) const noexcept
    {
        return std::isfinite(per_byte.value) ? at_one.value + per_byte.value * (s - 1) : at_one.value;
    }
    // A line given rather than fitted (a saved model): no intervals.
    static OverheadLine exact(double at_one, double per_byte) noexcept
    {
        return {Measured::exact(at_one), Measured::exact(per_byte)};
    }
};

// One protocol range: the parameters of one row of Hoefler et al. 2007, Table 2.
struct LogGPRange {
    double from_bytes = 0;  // smallest measured size in the range
    double to_bytes = 0;    // largest measured size in the range
    Measured L;             // latency of eq. (1) (see the overview)
    Measured g;             // gap, intercept of eq. (7)
    Measured G;             // gap per byte, slope of eq. (7)
    OverheadLine send_line; // o_s(s) = o_s + (s-1) O_s, eq. (6): the one store of o_s and O_s
    OverheadLine recv_line; // o_r(s) = o_r + (s-1) O_r: the one store of o_r and O_r (unknown: not measured)
    // Pipelined: the per-byte costs of a message overlap (sender's copy, wire,
    // receiver's copy run at once), so eq. (1) pays the slowest of O_s, O_r
    // and G once, as LogGOPSim's round trip 2 (2o + L + (s-1) max(O, G))
    // does, instead of their sum. Chosen by the joint fit (loggp_joint.hpp).
    bool overlapped = false;
    // The share of the send's per-byte overhead O_s that occupies the CPU
    // while the same rank receives (exchange_share.hpp), in [0, 1]; NaN:
    // not measured, read as 1 (all of it, LogGOPSim's o + (s-1)O).
    double exchange_cpu_share = Measured::nan;

    // o_s at size s: send_line.at(s).
    double o_at(double s) const noexcept { return send_line.at(s); }
    // o_r at size s: recv_line.at(s) (NaN: not measured).
    double o_r_at(double s) const noexcept { return recv_line.at(s); }
    // The overheads one message pays in eq. (1): o_s(s) + o_r(s) when the
    // receive overhead was measured, else 2 o_s(s) as the paper writes it.
    double overheads_at(double s) const noexcept;
    // One message of eq. (1) less L: o_s(s) + o_r(s) + (s-1) G, or when
    // overlapped o_s + o_r + (s-1) max(O_s, O_r, G).
    double transfer_at(double s) const noexcept;
    // The overhead lines' slopes and the receive intercept, the send line's
    // where o_r was not measured (eq. (1)'s 2o).
    double send_slope() const noexcept { return o_at(2) - o_at(1); }
    double recv_slope() const noexcept { return std::isfinite(o_r_at(1)) ? o_r_at(2) - o_r_at(1) : send_slope(); }
    double recv_at_one() const noexcept { return std::isfinite(o_r_at(1)) ? o_r_at(1) : o_at(1); }
    // The parameters the range spends on the PRTT curves: L, o_s, O_s, g, G
    // and, where o_r was measured, o_r and O_r; an overlapped range one more
    // (which per-byte stage is the slowest). model_choice.hpp counts them.
    std::size_t parameter_count() const noexcept
    {
        return (recv_line.known() ? 7 : 5) + (overlapped ? 1 : 0);
    } // The parameters below 0, by their JSON names ("L_us", "o_us",
    // "O_us_per_byte", "o_r_us", "O_r_us_per_byte", "g_us",
    // "G_us_per_byte"). A time or a time per byte below 0 has no physical
    // reading: a range with one is not LogGP (loggopsim.hpp: what an export keeps of it). The
    // fit gives one only where no admissible model meets its goal
    // (LogGPOptions::signed_when_missing).
    std::vector<std::string> negative_parameters() const;
    bool admissible() const { return negative_parameters().empty(); }
};

struct LogGPParams {
    std::vector<LogGPRange> ranges; // in increasing size order
    Measured eel;                   // PRTT(1,0,s_min)/2, Hoefler et al. 2007 section 3.4
    double eel_size = 1;            // s_min used for eel

    // The range whose parameters apply to size s: range i covers
    // [from_bytes_i, from_bytes_{i+1}) (Hoefler et al. 2007, Table 2); sizes below the
    // first range use the first, above the last use the last. nullptr when
    // there are no ranges.
    const LogGPRange* range_for(double s) const noexcept;

    // All predictions return NaN when there are no ranges or the arguments
    // are out of domain (n < 1, P < 1, s < 1).

    // Round trip of one s-byte message and its reply: PRTT(1,0,s) =
    // 2 (L + 2o + (s-1)G), Hoefler et al. 2007 eq. (1).
    double rtt(double s) const noexcept;
    // Half of it: the ping-pong latency L + 2o + (s-1)G.
    double half_rtt(double s) const noexcept;
    // PRTT(n,d,s) = PRTT(1,0,s) + (n-1) max(o + d, g + (s-1)G), eq. (5) with
    // eq. (1) and G_all of eq. (2).
    double prtt(double n, double d, double s) const noexcept;
    // Linear broadcast, the root sending P-1 messages one after the other:
    // successive sends start max(o, g + (s-1)G) apart (eq. (5) with d = 0),
    // the last one starts after (P-2) of these and needs
    // o + (s-1)G + L + o to arrive (eq. (1)):
    //   (P-2) max(g + (s-1)G, o) + 2o + L + (s-1)G     (P >= 2; 0 for P = 1)
    double linear_bcast(double P, double s) const noexcept;
    // Tree broadcast of height h = ceil(log2 P), Cameron et al. 2007 section 4.3.3:
    // h (2o + L + (s-1)G) + (h-1) g (0 for P = 1).
    double tree_bcast(double P, double s) const noexcept;

    // Streaming (ngx's bw pattern, OSU's osu_bw and osu_bibw): the time of a
    // window of W messages of s bytes, from the first call to the receipt of
    // the one 1-byte acknowledgement that answers the window. With
    // P(s) = max(o_s(s), o_r(s), g + (s-1)G), the period of a busy stream
    // (G_all of eq. (2) or the slower CPU, eq. (5) with d = 0), and a(1) =
    // L + o_s(1) + o_r(1) the acknowledgement (eq. (1) halved at s = 1):
    //   stream_window(W, s) = L + o_s(s) + (s-1)G + o_r(s)      the first message
    //                       + (W-1) P(s)                       the others, one per period
    //                       + a(1)
    // o_r(s) is o_s(s) where the receive overhead was not measured.
    double stream_window(double W, double s) const noexcept;
    // Both ranks stream W messages at once, each posting W receives (o_r(s)
    // each, all the CPU time of a non-blocking receive at its post), then W
    // sends (o_s(s) each, spaced by the gap), then waiting for them all; the
    // responder then acknowledges with 1 byte. The responder runs a(1) ahead
    // (its window starts as its acknowledgement leaves, the driver's as it
    // arrives), so the driver's last message lands after the responder's and
    // the window ends with the acknowledgement that follows it:
    //   exchange_window(W, s) = W o_r(s) + o_s(s) + (W-1) max(o_s(s), g + (s-1)G)
    //                         + L + (s-1)G + a(1)
    // Bidirectional bandwidth is 2 W s over it.
    double exchange_window(double W, double s) const noexcept;
    // One-sided (RDMA write/read, MPI_Put/MPI_Get): W puts of s bytes and a
    // flush, complete when the last put's bytes have landed and the target's
    // NIC has acknowledged them (an L back, no CPU on the target); W gets and
    // a flush, complete when the last answer has arrived (each get a request
    // of o_s(1) and L, the target's NIC answering at most one per
    // g + (s-1)G). With W = 1 the latency of put + flush and get + flush.
    //   put_window(W, s) = o_s(s) + (W-1) max(o_s(s), g + (s-1)G) + L + (s-1)G + L
    //   get_window(W, s) = o_s(1) + L + (W-1) max(o_s(1), g + (s-1)G) + L + (s-1)G
    double put_window(double W, double s) const noexcept;
    double get_window(double W, double s) const noexcept;
};

// Per-range fit details, for reports and plots.
// The measured curves the protocol-range detector searches.
enum class LogGPCurve {
    gap,              // y(s), eq. (7)
    prtt_1_0,         // PRTT(1,0,s)
    send_overhead,    // o(s), eq. (6)
    receive_overhead, // measured o_r(s)
    model,            // no curve alone: the range's fitted model missed across this size
};

// The outcome of the joint refinement of a range (loggp_joint.hpp).
struct JointFit {
    bool improved = false;                 // the range holds the joint parameters
    double paper_mean_rel = Measured::nan; // mean relative error of the paper's parameters
    double joint_mean_rel = Measured::nan; // ... and of the joint ones (NaN: not better)
    double paper_max_rel = Measured::nan;  // largest relative error of the paper's parameters
    double joint_max_rel = Measured::nan;  // ... and of the joint ones (NaN: not better)
    std::vector<std::string> held_at_zero; // e.g. "G_us_per_byte": solved below 0, held at 0
    std::size_t rounds = 0;                // branch updates used
    // The least weighted residual sum of squares (ModelError::sum_sq_rel) that
    // any parameter set tried reached: the least-squares objective the model
    // choice tests (model_choice.hpp), where the kept parameters are chosen by
    // misfit() and, toward the minimax solution, may have a larger one.
    double least_rss = Measured::nan;
};

struct LogGPRangeDetail {
    Range indices;                   // into the samples
    LineFit gap_line;                // y(s) against s - 1, eq. (7)
    std::optional<LineFit> o_line;   // o(s) against s - 1 (>= 2 points)
    std::optional<LineFit> o_r_line; // o_r(s) against s - 1 (>= 2 points with o_r)
    // Curves whose change starts this range (empty for the first range and
    // for detectors that search y(s) only).
    std::vector<LogGPCurve> split_by;
    // The paper's reading of the overheads as one number per range: the
    // (weighted) mean of o(s) of eq. (6) and of the measured o_r(s), for
    // reports; the model's overheads are the lines of LogGPRange.
    Measured o_mean;
    Measured o_r_mean;
    double o_median = Measured::nan;
    double L_median = Measured::nan;
    // The paper's costs held at 0 ("G_us_per_byte" where eq. (7)'s line
    // sloped below 0: g then the mean of y(s); "g_us": G then the line
    // through the origin; the same for o_s, O_s, o_r, O_r); the joint fit's
    // own holds are in `joint`.
    std::vector<std::string> held_at_zero;
    std::optional<JointFit> joint; // set when LogGPOptions::joint refined the range
};

struct LogGPFit {
    LogGPParams params;
    std::vector<LogGPRangeDetail> details;               // parallel to params.ranges
    std::vector<double> o_per_size;                      // o(s), eq. (6)
    std::vector<double> gap_per_size;                    // y(s), eq. (7)
    std::vector<double> L_per_size;                      // L(s) from eq. (1) with the overhead lines
    bool eel_from_size_one = true;                       // false: smallest size was not 1
    std::vector<std::size_t> delay_too_small;            // d <= g + (s-1)G: eq. (6) invalid
    std::vector<std::size_t> overhead_above_gap;         // o(s) or o_r(s) > g + (s-1)G: eq. (7) invalid
    std::vector<std::size_t> send_overhead_above_gap;    // o(s) > g + (s-1)G
    std::vector<std::size_t> receive_overhead_above_gap; // measured o_r(s) > g + (s-1)G
    // Prediction error over PRTT(1,0,s), PRTT(n,0,s) and PRTT(n,d,s) of all
    // samples, predicted with the fitted parameters by eqs. (1) and (5).
    ModelError error;
};

enum class ChangePointMethod {
    robust,     // detect_protocol_ranges_any over every measured curve (ngx default)
    robust_gap, // detect_protocol_ranges over y(s) of eq. (7) only
    paper,      // detect_protocol_ranges_paper (Hoefler et al. 2007 section 3.5 as published)
    none,       // one range over all sizes
};

struct LogGPOptions {
    ChangePointMethod method = ChangePointMethod::robust;
    RobustDetectorOptions robust{};
    PaperDetectorOptions paper{};
    Weighting weights = Weighting::relative; // weighting.hpp: --loggp-weights relative|none
    // Split a range the fitted model misses (above the quality goal) where
    // two halves fit it better than the measured noise explains (the test of
    // model_choice.hpp; split_misfits in loggp_splits.cpp); robust detector only.
    bool split_misfits = false;
    // Refine each range of >= 3 sizes with refine_range_jointly
    // (loggp_joint.hpp) where that reproduces the measurements better;
    // false: Hoefler et al. 2007's estimates, each from its own equation.
    bool joint = false;
    // Where no admissible model (every parameter >= 0) meets the quality
    // goal: with joint, take one with L free of sign (loggp_joint.hpp); then
    // the paper's estimates as fitted, a cost below 0 kept (fit_loggp), if
    // they meet it. Such a range is not LogGP and says so
    // (LogGPRange::negative_parameters). With split_misfits a range that
    // meets the goal only so is split where two admissible halves do.
    // false (`--loggp-negative no`, the main job's): never; L of eq. (1)
    // below 0 where no form of L >= 0 replaced it is held at 0, and a range
    // no admissible model meets misses the goal and says so.
    bool signed_when_missing = true;
    double level = 0.95; // confidence level of every interval
    // Relative standard error of the measured PRTT medians (typical over the
    // sizes, e.g. the 95% interval's relative half-width / 1.96), for the
    // default detector: each curve's change must then stand out against
    // this measured noise (a chi^2 test) instead of a noise estimated from
    // the curve itself, which a curved stretch inflates. Every choice
    // between two fits is tested against it too (model_choice.hpp: r).
    // NaN: estimate (the choices then use F tests on the residuals).
    // It sets the noise of PRTT(1,0,s), y(s) and o(s), all made of PRTT
    // medians; o_r(s) (one timed call) keeps its noise estimated.
    double relative_noise = Measured::nan;
};

// The error of eqs. (1) and (5) with one range's parameters over the three
// PRTT curves of `samples` (all taken as inside the range).
ModelError range_error(std::span<const PrttSample> samples, double n, const LogGPRange& range);

// Samples must have increasing sizes >= 1, finite times, n >= 2. At least
// two sizes are needed (too_few_points otherwise). A range of one point
// (possible only with method = paper on tiny inputs) is merged into its
// neighbour.
Result<LogGPFit> fit_loggp(std::span<const PrttSample> samples, double n, const LogGPOptions& options = {});

} // namespace ngx::fit

#endif
