// Paper 003 section 3.2, eqs. (1)-(7) (see protocols.hpp).
#include <ngx/fit/protocols.hpp>

#include <cmath>
#include <limits>

namespace ngx::fit {

std::string protocol_name(Protocol protocol)
{
    switch (protocol) {
    case Protocol::t:
        return "T";
    case Protocol::ta:
        return "TA";
    case Protocol::rta:
        return "RTA";
    case Protocol::rat:
        return "RAT";
    }
    return "?";
}

ProtocolTimes protocol_times(Protocol protocol, const ProtocolParams& p, uint64_t bytes)
{
    // (k-1)G: the bytes after the first, pipelined. Eqs. (1)-(3) are written
    // for short messages; for k bytes they carry the same LogGP term.
    double stream = bytes > 1 ? double(bytes - 1) * p.G : 0.0;
    switch (protocol) {
    case Protocol::t:
        return {p.o_s,                                   // eq. (1): T_s = o_s
                p.o_s + p.L + p.o_r + stream};           // eq. (2): T_s-r = o_s + L + o_r
    case Protocol::ta: {
        double both = 2 * p.o_s + 2 * p.L + 2 * p.o_r + stream; // eq. (3), T_s = T_s-r
        return {both, both};
    }
    case Protocol::rta:
        return {2 * p.o_s + 3 * p.L + 2 * p.o_r + stream,  // eq. (5)
                2 * p.o_s + 2 * p.L + p.o_r + stream};     // eq. (4)
    case Protocol::rat:
        return {4 * p.o_s + 3 * p.L + 2 * p.o_r + stream,  // eq. (6)
                4 * p.o_s + 4 * p.L + 3 * p.o_r + stream}; // eq. (7)
    }
    return {};
}

Protocol nearest_protocol(const ProtocolParams& p, uint64_t bytes, double end_to_end_us)
{
    Protocol best = Protocol::t;
    double best_distance = std::numeric_limits<double>::infinity();
    for (Protocol protocol : all_protocols) {
        double distance = std::fabs(protocol_times(protocol, p, bytes).end_to_end - end_to_end_us);
        if (distance < best_distance) {
            best_distance = distance;
            best = protocol;
        }
    }
    return best;
}

} // namespace ngx::fit
