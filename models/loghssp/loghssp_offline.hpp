// The overhead pattern's offline hooks, on saved runs (JSON of -x overhead):
//
//   ngx fit RUN.json [-o OUT.json]
//       the protocol decomposition of Al-Tawil and Moritz 1998 section 3.2: o_s, o_r, L, G
//       of the transport from the base run (the first, or --base VARIANT),
//       then per run (send mode) and size the protocol (T, TA, RTA, RAT)
//       as fit::infer_protocol() decides from the size's timer11, timer12
//       and half round trip; its tables: mode x size -> protocol, its predicted
//       T_s-r (eqs. 2, 3, 4, 7) and T_s (eqs. 1, 3, 5, 6), measured, error.
//   ngx fit --loghssp INTRA.json INTER.json [-o MODEL.json]
//       LoGH{sS}P (section 3.3): s_s, s_r, S from a run within a node (shm,
//       MPI over shared memory), o_s, o_r, L, G from one across the network;
//       its tables: both tiers' parameters, their ratio, and eqs. (8) and (9)
//       against the measured times.
//   ngx predict --params MODEL.json --op p2p --tier intra|inter -s SIZE
//
// Parameters from a run (its smallest size s0): o_s, o_r at s0;
// L = half_rtt(s0) - o_s - o_r (eq. 2 solved for L); G (or S) = the median
// of the slopes (half_rtt(b) - half_rtt(a)) / (b - a) between consecutive
// sizes a < b (robust to one protocol step or one stalled size; see
// gap_per_byte() in offline.cpp). Every value is the minimum
// of its samples (min_us, o_r_min_us, half_rtt_min_us): the uncontended cost,
// since on shared cores a median can hold a preemption.
#ifndef NGX_PATTERNS_OVERHEAD_OFFLINE_HPP
#define NGX_PATTERNS_OVERHEAD_OFFLINE_HPP

#include <models/loghssp/loghssp.hpp>
#include <ngx/pattern.hpp>

#include <string>
#include <vector>

namespace ngx::patterns {

// `ngx fit`: the decomposition or the LoGH{sS}P model (the document -o writes) and its tables.
Result<FitOutput> overhead_fit(const FitRequest& request);
std::vector<opt::OptionSpec> overhead_fit_options(); // --loghssp, --base
// The loghssp model kind: `ngx predict --params MODEL.json --op p2p --tier intra|inter -s SIZE`.
ModelKind loghssp_model_kind();

// One size of an overhead run: what the decomposition and LoGH{sS}P need.
struct OverheadPoint {
    uint64_t size = 0;
    double o_s = 0, o_r = 0, half_rtt = 0; // us: the minima of the timer11, o_r and half round trip samples
    double delayed = 0; // us: the minimum of timer12, the receive delayed past the arrival (= o_r when blocking)
};

struct OverheadRun {
    std::string label;                 // the run's variant ("mpi-mode=standard") or its module
    std::vector<OverheadPoint> points; // ascending size
};

// The point of a live record of the overhead measurement (the columns a saved result holds).
OverheadPoint overhead_point(const SizeRecord& record);
// LoGH{sS}P (Al-Tawil and Moritz 1998 eqs. 8-9) from a run within a node and one across nodes,
// each tier's parameters as above: exactly what `ngx fit --loghssp INTRA INTER` fits.
fit::Tiers fit_tiers(const OverheadRun& intra, const OverheadRun& inter);
// {"intra": {s_s_us, s_r_us, S_us_per_byte}, "inter": {o_s_us, o_r_us, L_us, G_us_per_byte}}.
Json tiers_json(const fit::Tiers& tiers);

// The tables a LoGH{sS}P model shares, whether `ngx fit --loghssp` or a run
// of -x loghssp made it: its tiers' parameters (one row per tier and
// parameter of tiers_json's), and the ratio of the tiers (a model's "ratio").
Table tier_parameters_table(const Json& model, std::vector<std::string> notes);
Table tier_ratio_table(const Json& ratio);

} // namespace ngx::patterns

#endif
