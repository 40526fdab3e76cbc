// The joint LogGP fit of one protocol range: ngx's refinement of Hoefler et al. 2007's
// estimates, so that one parameter set reproduces every measured curve.
//
//     LogGPRange range = ...;                    // Hoefler et al. 2007's estimates (loggp.hpp)
//     Result<JointFit> j = refine_range_jointly(range_samples, n, Weighting::relative, 0.95, range);
//     if (j && j->improved) ...                  // range now holds the joint parameters
//
// Why. Hoefler et al. 2007 takes each parameter from one equation: o from eq. (6), g
// and G from eq. (7), L from eq. (1). Each equation holds only where its
// assumption does, and on real transports they pull apart: on shared
// memory the sender's copy is both the per-byte send overhead O_s of
// o(s) (section 4's slope) and the gap per byte G of y(s), so eq. (1) with
// both counts the copy twice, and PRTT(1,0,s) is mispredicted by up to 130%
// at the ends of a range (measured on ngx's shm module, 1 KiB .. 128 KiB).
//
// What. With theta = (L, o_s, O_s, o_r, O_r, g, G) and x = s - 1, every
// measurement of the range is linear in theta once the branch of each max
// is known:
//   PRTT(1,0,s) = 2 (L + o_s + O_s x + o_r + O_r x + G x)         eq. (1)
//   PRTT(n,0,s) = PRTT(1,0,s) + (n-1) max(o_s + O_s x, g + G x)   eq. (5), d = 0
//   PRTT(n,d,s) = PRTT(1,0,s) + (n-1) max(o_s + O_s x + d, g + G x) eq. (5)
//   o_r(s)      = o_r + O_r x                                    (measured receive)
// (without a measured o_r: 2 (o_s + O_s x) for the overheads of eq. (1), as
// the paper writes 2o). The branches are taken from the current parameters
// (first: the paper's), theta is solved by weighted linear least squares
// (weights 1/measurement^2 with Weighting::relative, the relative error the
// fit quality reports; 1 with none), and this repeats until the branches
// stop changing (at most `joint_max_rounds`). g and G are solved only where
// eq. (7) did not measure them: where the stream is paced by the sender
// (o(s) of eq. (6) at least half of y(s) at most sizes, the case above);
// where the gap paces it, eq. (7) defines them (a link's rate, even when a
// token bucket lets one message through faster) and they are kept. A
// parameter the data do not constrain keeps the paper's value. Costs are not negative: a parameter that solves below zero is held
// at 0 and the rest solved again; the held ones are listed (never silent).
// Where that least-squares solution misses the goal, a few rounds of
// Lawson's reweighting move it toward the minimax solution (the rows missed
// most weigh most), so a step between a range's few sizes is missed evenly
// rather than all at one size; the best round is kept.
// The result replaces the paper's parameters only when it reproduces the
// measurements better, judged by misfit() of loggp_quality.hpp: the worse of
// the mean and the max relative error over all curves, each over the goal's.
// Where the paper's L is below 0 (no simulator can run it) a joint solution
// that meets the goal is taken even if the paper's fits closer. Where no
// solution with L >= 0 meets the goal, the overheads measured in a stream
// exceed what the round trip leaves for them (o and L overlap), and the
// solution with L free of sign is taken if it meets the goal (or beats a
// paper L < 0): the report then warns of L < 0, never silently.
//
// Pipelined transfers. Where a message's per-byte stages run at once (shm's
// ring copies a large message's pieces in and out together) the measured
// o_s(s) + o_r(s) exceed PRTT(1,0,s)/2 and no additive eq. (1) fits. The
// fit therefore also solves LogGOPSim's form,
//   PRTT(1,0,s) = 2 (L + o_s + o_r + x max(O_s, O_r, G)),
// once with each of O_s, O_r, G as the max (the solutions are judged with
// the real max), and takes the best of them (LogGPRange::overlapped) only
// where it is the richer model the data demand: it has one parameter more
// (which stage is the slowest), and its weighted residual sum of squares
// must drop below the additive form's by more than the measured noise
// explains, at the significance level model_choice_alpha
// (model_choice.hpp: a chi^2 test against the measured noise, or an F test
// against the residual noise where that is larger), with a smaller misfit()
// as well. On an additive transport pure noise picks it in at most that
// fraction of the ranges.
#ifndef NGX_FIT_LOGGP_JOINT_HPP
#define NGX_FIT_LOGGP_JOINT_HPP

#include <models/loggp/loggp.hpp>

namespace ngx::fit {

inline constexpr std::size_t joint_max_rounds = 12;

// JointFit (what happened) is declared in loggp.hpp, which reports it per range.
// `samples`: the sizes of one range (>= 3). On success `range` holds the
// better of the paper's and the joint parameters, with the joint fit's
// intervals when it is the joint one.
// `signed_when_missing`: LogGPOptions::signed_when_missing.
// `relative_noise`: LogGPOptions::relative_noise (NaN: not measured), the
// noise the choice of the form is tested against.
Result<JointFit> refine_range_jointly(std::span<const PrttSample> samples, double n, Weighting weights, double level,
                                      LogGPRange& range, bool signed_when_missing = true,
                                      double relative_noise = Measured::nan);

} // namespace ngx::fit

#endif
