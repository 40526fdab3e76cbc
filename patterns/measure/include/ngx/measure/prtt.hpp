// The parametrized round trip time PRTT(n, d, s) of Hoefler et al. 2007 (Listing 1),
// the measurement every timing pattern is built on: the driver sends n
// messages of s bytes with d microseconds of busy-waiting between sends, the
// responder answers the n-th with one message, and the driver times the
// whole exchange. Ping-pong is PRTT(1, 0, s); Ino et al. 2001's round trip with an
// imbalance w is PRTT(1, 0, s) with w of computation before the receive.
//
//     PrttSpec spec{.size = 64, .messages = 16, .delay_us = 0};
//     Result<std::vector<double>> prtt_us = measure_prtt(ctx, buffer, spec);   // on the driver
//     Status s = answer_prtt(ctx, buffer, spec);                               // on the responder
#ifndef NGX_MEASURE_PRTT_HPP
#define NGX_MEASURE_PRTT_HPP

#include <ngx/pattern.hpp>

#include <functional>
#include <vector>

namespace ngx::patterns {

struct PrttSpec {
    uint64_t size = 1;
    uint64_t messages = 1;   // n
    double delay_us = 0;     // d
    uint64_t samples = 1000; // kept repetitions
    uint64_t warmup = 100;   // discarded repetitions before them
    double compute_us = 0;   // busy work after the last send, before the receive (Ino et al. 2001, Fig. 3: w)
    // Repetitions per timed sample (only PRTT(n, 0, s) with w = 0): the
    // timer is read once per batch and a sample is the batch's mean; warmup
    // and samples count batches (pingpong --pingpong-timing batch, loggp's
    // series below 100 timer steps).
    uint64_t batch = 1;
    // If set (driver, d > 0, n > 1): the mean time one wait(d) really took,
    // microseconds, over the kept repetitions: d plus the loop's overshoot
    // and its timer reads, for an o of eq. (6) that holds no loop cost.
    double* delay_spent_us = nullptr;
};

// Driver side: one PRTT(n, d, s) per kept repetition, in microseconds.
Result<std::vector<double>> measure_prtt(PatternContext& ctx, Buffer& buffer, const PrttSpec& spec);

// Responder side: receives n messages and answers each repetition once.
Status answer_prtt(PatternContext& ctx, Buffer& buffer, const PrttSpec& spec);

// Messages both sides send for one PRTT series (warm-up included).
inline uint64_t prtt_message_count(const PrttSpec& spec)
{
    return (spec.warmup + spec.samples) * spec.batch * (spec.messages + 1);
}

// Repetitions (round trips) of a series, warm-up included: batches times their size.
inline uint64_t prtt_repetitions(const PrttSpec& spec)
{
    return (spec.warmup + spec.samples) * spec.batch;
}

// Runs the driver or the responder side, whichever this process is; on the
// driver returns the samples, on the responder an empty vector.
Result<std::vector<double>> run_prtt(PatternContext& ctx, Buffer& buffer, const PrttSpec& spec);

// The responder side of a series with its own repetition (e.g. loggp's timed
// o_r receive), taking part in the resync after a loss like answer_prtt():
// `once(rep)` runs repetition `rep` and returns ok or the Status of its failed
// module call (Transport::failure, which names the call). After a resync
// `rep` restarts at the driver's count. The driver runs run_prtt().
using AnswerOnce = std::function<Status(uint64_t rep)>;
Status answer_series(PatternContext& ctx, const PrttSpec& spec, const AnswerOnce& once);

// What one read of `timer` adds to an interval it ends, in microseconds: the
// median over short batches of back-to-back reads, measured where it is
// used (the core's calibration is a mean over one long run, and a single
// interrupt there moves it by tens of ns).
double timer_read_cost_us(const Timer& timer);

// "size 4 KiB, repetition 17: " for error messages.
std::string where(uint64_t size, uint64_t repetition);

} // namespace ngx::patterns

#endif
