// The delay before the timed receive of paper 003 Figure 2 ("wait delta"),
// calibrated from the barrier it follows. After a barrier P2 sends at once
// and P1 receives at once; P1 times from its own barrier exit to the end of
// the receive. That time holds the barrier's skew (how much later P2 left:
// a wake-up from poll() on another core takes tens of microseconds), P2's
// send, the transfer and the receive itself, so a delta well above its
// typical value leaves the timed receive no idle time:
//
//     delta = 2 x median(arrival after the barrier) + 5 us
//
// measured with each barrier root the run uses, taking the larger. Not the
// p90: the MPI bootstrap's collectives stall for milliseconds now and then
// (15 ms seen under mpirun on the tcp BTL), and a wait that long makes the
// receive after it slower (over sim with o_r = 4 us a 300 us wait added
// 0.7 us); o_r is a median, robust to the few repetitions whose skew
// exceeds delta. The p90 is recorded next to it.
#ifndef NGX_OVERHEAD_BARRIER_CALIBRATION_HPP
#define NGX_OVERHEAD_BARRIER_CALIBRATION_HPP

#include "rooted_barrier.hpp"

#include <ngx/pattern.hpp>

#include <functional>

namespace ngx::patterns {

// One timed call: the post (send/recv, or isend/irecv) and its completion, microseconds.
struct Timers {
    double post = 0;
    double complete = 0; // the untimed wait() after isend/irecv, timed apart
    double prepare = 0;  // after a receive: the module's prepare_recv (ABI 1.3), timed apart
};

struct CalibrationCalls {
    std::function<Status(Timers*)> send; // the responder's send, as the pattern does it
    std::function<Status(Timers*)> recv; // the driver's receive, as the pattern does it
};

struct BarrierCalibration {
    double delay_us = 0;          // delta to use (driver; 0 on the responder)
    double arrival_median_us = 0; // median arrival after the barrier (largest over the roots)
    double arrival_p90_us = 0;    // its p90
    uint64_t messages = 0;        // messages the calibration sent
};

Result<BarrierCalibration> calibrate_delay(PatternContext& ctx, RootChoice roots, const CalibrationCalls& calls);

} // namespace ngx::patterns

#endif
