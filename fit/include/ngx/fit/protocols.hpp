// The protocol decomposition of paper 003 section 3.2 (Figure 1, eqs. 1-7):
// the cost of an MPI send built from LogGP messages under the four typical
// protocols. T: the message alone; TA: message and acknowledgement; RTA:
// request, the data pulled by the receiver, acknowledgement; RAT: request,
// acknowledgement, the data pushed by the sender. For each, T_s is when the
// sender may continue and T_s-r the end-to-end delivery time of k bytes.
//
//     ProtocolParams p{.o_s = 2.5, .o_r = 1.5, .L = 5, .G = 0.001};
//     ProtocolTimes t = protocol_times(Protocol::rta, p, 4096);
//     Protocol best = nearest_protocol(p, 4096, measured_end_to_end_us);
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

// The protocol whose T_s-r is closest to a measured end-to-end time.
Protocol nearest_protocol(const ProtocolParams& p, uint64_t bytes, double end_to_end_us);

} // namespace ngx::fit

#endif
