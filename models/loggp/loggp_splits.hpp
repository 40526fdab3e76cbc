// Internal to the LogGP fit (loggp.cpp; not installed): the protocol ranges
// as the fitted model judges them, with --split-misfits and the robust
// detector. A change the detector put where its two ranges miss the quality
// goal moves to the candidate split whose ranges fit best, and a range that
// still misses is split where its halves fit best, each only where the
// model choice test (model_choice.hpp) says the data demand it.
#ifndef NGX_FIT_LOGGP_SPLITS_HPP
#define NGX_FIT_LOGGP_SPLITS_HPP

#include <models/loggp/loggp.hpp>
#include <models/loggp/loggp_ranges.hpp>

#include <span>

namespace ngx::fit::detail {

// Each change with candidate splits judged by the model, again until none
// moves (at most three passes).
Detected choose_splits_by_model(std::span<const PrttSample> samples, const PerSize& ps, double n,
                                const LogGPOptions& opt, Detected d);

// Ranges whose fitted model misses the quality goal split where the data
// demand it (the halves again, at most max_ranges in all).
Detected split_misfits(std::span<const PrttSample> samples, const PerSize& ps, double n, const LogGPOptions& opt,
                       Detected in);

} // namespace ngx::fit::detail

#endif
