#include <models/base/model_error.hpp>

#include <algorithm>
#include <cmath>

namespace ngx::fit {

void ModelErrorAccumulator::add(double measured, double predicted) noexcept
{
    const double diff = predicted - measured;
    sum_sq_ += diff * diff;
    ++n_;
    if (measured != 0.0) {
        const double rel = std::fabs(diff) / std::fabs(measured);
        max_rel_ = std::max(max_rel_, rel);
        sum_rel_ += rel;
        sum_sq_rel_ += rel * rel;
        ++n_rel_;
    }
}

ModelError ModelErrorAccumulator::result() const noexcept
{
    ModelError e;
    e.count = n_;
    if (n_ == 0)
        return e;
    e.rms = std::sqrt(sum_sq_ / static_cast<double>(n_));
    e.max_rel = max_rel_;
    e.sum_sq_rel = sum_sq_rel_;
    e.count_rel = n_rel_;
    e.mean_rel = n_rel_ > 0 ? sum_rel_ / static_cast<double>(n_rel_) : 0.0;
    return e;
}

ModelError model_error(std::span<const double> measured, std::span<const double> predicted) noexcept
{
    ModelErrorAccumulator acc;
    const std::size_t n = std::min(measured.size(), predicted.size());
    for (std::size_t i = 0; i < n; ++i)
        acc.add(measured[i], predicted[i]);
    return acc.result();
}

} // namespace ngx::fit
