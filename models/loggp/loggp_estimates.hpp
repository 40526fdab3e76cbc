// Internal to the LogGP fit (loggp.cpp; not installed): the parameters of
// one protocol range. Hoefler et al. 2007's estimates, each from its own
// equation (g and G of eq. (7), the overhead lines of eq. (6) and the
// measured o_r, L of eq. (1) with them), every cost line held >= 0; then
// the joint refinement (loggp_joint.hpp) and, where only a cost below 0
// meets the goal, the estimates as fitted.
#ifndef NGX_FIT_LOGGP_ESTIMATES_HPP
#define NGX_FIT_LOGGP_ESTIMATES_HPP

#include <models/loggp/loggp.hpp>
#include <models/loggp/loggp_ranges.hpp>

#include <span>

namespace ngx::fit::detail {

// Fits one protocol range; appends L(s) of its sizes to fit.L_per_size.
Status fit_range(std::span<const PrttSample> samples, const PerSize& ps, Range r, double n, const LogGPOptions& opt,
                 LogGPFit& fit);

} // namespace ngx::fit::detail

#endif
