// The protocol decomposition of Al-Tawil and Moritz 1998 section 3.2 (Figure 1, eqs. 1-7):
// the cost of an MPI send built from LogGP messages under the four typical
// protocols. T: the message alone; TA: message and acknowledgement; RTA:
// request, the data pulled by the receiver, acknowledgement; RAT: request,
// acknowledgement, the data pushed by the sender. For each, T_s is when the
// sender may continue and T_s-r the end-to-end delivery time of k bytes.
//
//     ProtocolParams p{.o_s = 2.5, .o_r = 1.5, .L = 5, .G = 0.001};
//     ProtocolTimes t = protocol_times(Protocol::rta, p, 4096);
//     Protocol best = infer_protocol(p, 4096, {.sender = 36.7, .delayed_receive = 30.1, .end_to_end = 37.1});
#ifndef NGX_FIT_PROTOCOLS_HPP
#define NGX_FIT_PROTOCOLS_HPP

#include <array>
#include <cstdint>
#include <string>

namespace ngx::fit {

enum class Protocol { t, ta, rta, rat };
inline constexpr std::array<Protocol, 4> all_protocols = {Protocol::t, Protocol::ta, Protocol::rta, Protocol::rat};

std::string protocol_name(Protocol protocol); // "T", "TA", "RTA", "RAT"

struct ProtocolParams {
    double o_s = 0; // send overhead, us
    double o_r = 0; // receive overhead, us
    double L = 0;   // latency, us
    double G = 0;   // gap per byte, us/byte
};

struct ProtocolTimes {
    double sender = 0;     // T_s
    double end_to_end = 0; // T_s-r
};

ProtocolTimes protocol_times(Protocol protocol, const ProtocolParams& p, uint64_t bytes);

// What one send mode measured at one size (microseconds): the blocking send
// after a barrier (timer11), the receive delayed until the data could have
// arrived (timer12), and the end-to-end time (half a ping-pong).
struct MeasuredCosts {
    double sender = 0;
    double delayed_receive = 0;
    double end_to_end = 0;
};

// The protocol a send used, in two steps.
// 1. Did the data move before the receiver took part? Under T and TA the
//    message is pushed at once (Figure 1), so a receive delayed past its
//    arrival costs o_r plus copying k bytes (no slower than the network
//    moves them, (k-1)G); under RTA and RAT the data move only after the
//    receiver answered the request, which adds at least the answer's o_s
//    and two latencies. Half-way, the data waited for the receiver when
//        delayed_receive > o_r + (k-1) G + (o_s + 2L) / 2.
// 2. Pushed: T or TA, whichever T_s (eq. 1 or 3) is nearer the measured
//    sender time (TA's sender waits for the acknowledgement). Waited: RTA or
//    RAT, whichever T_s-r (eq. 4 or 7) is nearer the measured end-to-end.
Protocol infer_protocol(const ProtocolParams& p, uint64_t bytes, const MeasuredCosts& measured);

} // namespace ngx::fit

#endif
