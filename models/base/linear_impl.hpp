// Internal: fit_linear with the confidence intervals optional, for
// searches that solve many candidate models and only compare residuals.
#ifndef NGX_FIT_SRC_LINEAR_IMPL_HPP
#define NGX_FIT_SRC_LINEAR_IMPL_HPP

#include <models/base/linear_model.hpp>

namespace ngx::fit::detail {

Result<LinearFit> fit_linear_impl(std::span<const double> design, std::size_t p, std::span<const double> y,
                                  std::span<const double> w, double level, bool with_intervals);

} // namespace ngx::fit::detail

#endif
