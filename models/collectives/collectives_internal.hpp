// Internal to the collective models: the closed forms (collective_forms.cpp)
// and the shape of the non-power-of-two steps shared with the schedules.
#ifndef NGX_FIT_SRC_COLLECTIVES_INTERNAL_HPP
#define NGX_FIT_SRC_COLLECTIVES_INTERNAL_HPP

#include <models/collectives/collectives.hpp>

namespace ngx::fit::detail {

// The largest power of two <= P (P >= 1).
long long power_of_two_below(long long P) noexcept;
// ceil(log2 P) for P >= 1.
int ceil_log2(long long P) noexcept;
// Segments of the pipelined broadcast: ceil(bytes / segment_bytes).
long long pipeline_segments(const Collective& c) noexcept;

// The closed form of a checked collective (NaN where a message cost is).
double closed_form(const Collective& c, const MessageCostFn& p2p);

} // namespace ngx::fit::detail

#endif
