// How well a fitted model reproduces the measurements it was fitted to.
// Every fit result in ngx::fit carries one of these (field `error`).
//
//     ModelError e = model_error(measured, predicted);
//     e.max_rel;   // max |pred - meas| / |meas|, e.g. 0.031 = 3.1 %
//     e.rms;       // sqrt(mean (pred - meas)^2), in the data's unit
//     e.sum_sq_rel; // sum ((pred - meas) / meas)^2: the weighted least-squares
//                   // objective with weights 1/meas^2 (model_choice.hpp tests it)
//
// Relative errors skip measurements equal to zero (they have no relative
// error); rms and count include every pair.
#ifndef NGX_FIT_MODEL_ERROR_HPP
#define NGX_FIT_MODEL_ERROR_HPP

#include <cstddef>
#include <span>

namespace ngx::fit {

struct ModelError {
    double max_rel = 0.0;      // largest relative error
    double mean_rel = 0.0;     // mean relative error
    double rms = 0.0;          // root mean square of the absolute error
    std::size_t count = 0;     // number of (measured, predicted) pairs
    double sum_sq_rel = 0.0;   // sum of squared relative errors (count_rel of them)
    std::size_t count_rel = 0; // pairs with a relative error (measured != 0)
};

// Accumulates pairs one at a time, for models whose predictions are not
// stored in one array.
class ModelErrorAccumulator {
public:
    void add(double measured, double predicted) noexcept;
    ModelError result() const noexcept;

private:
    double max_rel_ = 0.0;
    double sum_rel_ = 0.0;
    double sum_sq_rel_ = 0.0;
    double sum_sq_ = 0.0;
    std::size_t n_rel_ = 0;
    std::size_t n_ = 0;
};

// Pairs measured[i] with predicted[i] over the shorter of the two spans.
ModelError model_error(std::span<const double> measured, std::span<const double> predicted) noexcept;

} // namespace ngx::fit

#endif
