// The max-rate models of Gropp, Olson and Samfass (2016): k processes on
// one node each send n bytes to a partner on another node; the sustained
// rate is limited by the NIC-to-NIC link R_N or by the aggregate of the
// core-to-NIC paths.
//   three parameters:  T = s + k n / min(R_N, k R_C)
//   four parameters:   T = s + k n / min(R_N, R_Cb + (k-1) R_Ci)
// k* = R_N / R_C is the number of processes that saturates the network.
// Rates are in bytes per time unit of T (bytes/us = MB/s).
//
//     std::vector<NodeCommPoint> pts = ...;   // (k, n, T), one regime
//     Result<MaxRateFit> f3 = fit_maxrate(pts);                        // 3 parameters
//     Result<MaxRateFit> f4 = fit_maxrate(pts, MaxRateVariant::four_parameter);
//     f3->params.k_star();  f3->params.time(8, 65536);  f3->error.mean_rel;
//
// Gropp et al. 2016 fits each protocol regime (short / eager / rendezvous)
// separately; pass the points of one regime per call. R_N = +inf means no
// network limit was seen (Gropp et al. 2016 lists "RN = inf" for the short and eager
// regimes).
//
// Fitting (ngx's method; the paper does not say how it fits). Write
// a = 1/R_Cb, c = 1/R_N, rho = R_Ci / R_Cb and v_k = 1 + (k-1) rho. Then
//   T = s + n max(c k, a k / v_k),
// and a point is network-limited exactly when v_k >= a/c. For a fixed rho,
// every way of splitting the points into core- and network-limited by a
// threshold on v_k is a linear least-squares problem in (s, a, c); each is
// solved, candidates with a < 0 or c < 0 are dropped, and the one with the
// smallest residual of the true (max) model wins. The three-parameter model
// is rho = 1 (v_k = k). The four-parameter model profiles rho over
// (-1/(k_max-1), rho_max] with a grid and a golden-section refinement around
// the best grid point. Residuals are relative (weights 1/T^2) by default.
// Intervals of s, R_N and R_Cb come from the final linear solve (conditional
// on rho and the split; rate intervals are the inverted intervals of a, c).
// R_Ci = rho R_Cb depends on the profiled rho, so its interval comes by the
// delta method from the covariance of (s, a, c, rho) of the model linearised
// at the optimum (maxrate.cpp, increment_rate).
//
// Predictions for a single stream use k = 1: ping-pong rtt = 2 T(1, n);
// broadcasts (one process per node) serialise whole messages like the
// postal model: linear (P-1) T(1, n), binomial tree ceil(log2 P) T(1, n).
#ifndef NGX_FIT_MAXRATE_HPP
#define NGX_FIT_MAXRATE_HPP

#include <models/base/measured.hpp>
#include <models/base/model_error.hpp>
#include <models/postal/postal.hpp>
#include <models/base/status.hpp>

#include <cstddef>
#include <limits>
#include <span>

namespace ngx::fit {

struct MaxRateParams {
    static constexpr double inf = std::numeric_limits<double>::infinity();

    double s = 0;      // startup time
    double R_N = inf;  // NIC-to-NIC rate (inf: not limiting)
    double R_Cb = inf; // core-to-NIC rate of the first process (R_C in the 3-parameter model)
    double R_Ci = inf; // rate each further process adds (= R_Cb in the 3-parameter model)

    // min(R_N, R_Cb + (k-1) R_Ci); with R_Ci = R_Cb this is min(R_N, k R_C).
    double rate(double k) const noexcept;
    // T = s + k n / rate(k); NaN when k < 1 or the rate is not positive.
    double time(double k, double n) const noexcept;
    // Processes needed to reach R_N: R_N / R_C (3 parameters), in general
    // 1 + (R_N - R_Cb) / R_Ci; 1 if R_Cb >= R_N; inf if never reached.
    double k_star() const noexcept;

    double rtt(double n) const noexcept { return 2 * time(1, n); }
    double linear_bcast(double P, double n) const noexcept;
    double tree_bcast(double P, double n) const noexcept;
};

enum class MaxRateVariant { three_parameter, four_parameter };

struct MaxRateOptions {
    bool relative_weights = true;
    double level = 0.95;
    double rho_max = 4.0;       // four-parameter search: largest R_Ci / R_Cb
    std::size_t rho_grid = 200; // grid points before the golden-section refinement
};

struct MaxRateFit {
    MaxRateParams params;
    MaxRateVariant variant = MaxRateVariant::three_parameter;
    Measured s, R_N, R_Cb;           // R_Cb is R_C for the three-parameter model
    Measured R_Ci;                   // = R_Cb for the three-parameter model
    double rho = 1;                  // R_Ci / R_Cb
    double rss = 0;                  // (weighted) residual sum of squares of the chosen fit
    std::size_t network_limited = 0; // points on the R_N branch
    ModelError error;                // time(k, n) against every point
};

// Points: k >= 1, n >= 0, t > 0, all finite; at least 2 distinct k and 2
// distinct n (else degenerate), and more points than the model has
// parameters (else too_few_points).
Result<MaxRateFit> fit_maxrate(std::span<const NodeCommPoint> points,
                               MaxRateVariant variant = MaxRateVariant::three_parameter,
                               const MaxRateOptions& options = {});

} // namespace ngx::fit

#endif
