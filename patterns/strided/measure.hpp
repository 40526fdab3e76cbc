// The measurements of one (size, stride) point of the strided pattern:
// remote half round trips through the module (a derived datatype where the
// module has NGX_CAP_DATATYPES, otherwise gathered into a contiguous buffer
// and scattered on receipt), send to self, and the local copies.
//
//     StridedBuffers b = ...;   // two strided arrays and two contiguous ones
//     Result<std::vector<double>> t01 = remote_manual(ctx, b, layout, size);   // both ranks
//     double tmem = local_time(ctx, "T_mem", [&] { copy_layout(layout, b.a, b.b, size); });
#ifndef NGX_PATTERNS_STRIDED_MEASURE_HPP
#define NGX_PATTERNS_STRIDED_MEASURE_HPP

#include <ngx/measure/strided_layout.hpp>

#include <ngx/pattern.hpp>

#include <functional>
#include <vector>

namespace ngx::patterns {

struct StridedBuffers {
    Buffer a, b;            // strided arrays (send from a, receive into b)
    Buffer packed, packed2; // contiguous buffers of the largest size
};

// Remote half round trips, user-side packing: the driver packs, sends,
// receives, unpacks; the responder receives, unpacks, packs and answers.
// Unit stride sends the arrays themselves. Driver: samples; responder: none.
Result<std::vector<double>> remote_manual(PatternContext& ctx, StridedBuffers& b, const Layout& layout, size_t size);

// Send to self through the module: isend, recv, wait (send, recv without
// NGX_CAP_NONBLOCKING) addressed to this process; microseconds per message.
// `packed` false (NGX_CAP_DATATYPES): the module moves the strided arrays
// itself. `packed` true (NGX_CAP_SEND_TO_SELF only): as a user of a byte
// module would, pack, send the contiguous copy to self, unpack (unit
// stride: the arrays themselves), all inside the timed region.
Result<std::vector<double>> self_through_module(PatternContext& ctx, StridedBuffers& b, const Layout& layout,
                                                size_t size, bool packed);

// Cameron et al. 2007, section 3.2: each sample the average of n repetitions, the
// value the minimum of m samples (the steady best case, insensitive to the
// other loads of a shared machine). Here the `count` repetitions are cut
// into consecutive blocks of n = 5 (m = count / 5; fewer repetitions: one
// block each): short blocks, so that some escape a shared machine's bursts.
double min_of_means(const std::vector<double>& samples);

// min_of_means of `count` timed calls of `work` (after `warmup` untimed
// ones), shown to the watchdog as `step`.
double local_time(const PatternContext& ctx, const char* step, const std::function<void()>& work);

} // namespace ngx::patterns

#endif
