// Al-Tawil and Moritz 1998 section 3.2, eqs. (1)-(7) (see protocols.hpp).
#include <models/loghssp/protocols.hpp>

#include <cmath>

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
        return {p.o_s,                         // eq. (1): T_s = o_s
                p.o_s + p.L + p.o_r + stream}; // eq. (2): T_s-r = o_s + L + o_r
    case Protocol::ta: {
        double both = 2 * p.o_s + 2 * p.L + 2 * p.o_r + stream; // eq. (3), T_s = T_s-r
        return {both, both};
    }
    case Protocol::rta:
        return {2 * p.o_s + 3 * p.L + 2 * p.o_r + stream, // eq. (5)
                2 * p.o_s + 2 * p.L + p.o_r + stream};    // eq. (4)
    case Protocol::rat:
        return {4 * p.o_s + 3 * p.L + 2 * p.o_r + stream,  // eq. (6)
                4 * p.o_s + 4 * p.L + 3 * p.o_r + stream}; // eq. (7)
    }
    return {};
}

namespace {

// Of two protocols, the one whose time (picked by `time`) is nearer `measured`.
template <typename Time>
Protocol nearer(Protocol a, Protocol b, double measured, const Time& time)
{
    return std::fabs(time(a) - measured) <= std::fabs(time(b) - measured) ? a : b;
}

} // namespace

Protocol infer_protocol(const ProtocolParams& p, uint64_t bytes, const MeasuredCosts& measured)
{
    double stream = bytes > 1 ? double(bytes - 1) * p.G : 0.0;
    // Data already there: o_r plus copying k bytes, no slower than the
    // network moves them. Data sent after the receiver's answer: also that
    // answer's o_s and two latencies. The threshold lies half-way.
    bool data_waited = measured.delayed_receive > p.o_r + stream + (p.o_s + 2 * p.L) / 2;
    if (data_waited)
        return nearer(Protocol::rta, Protocol::rat, measured.end_to_end,
                      [&](Protocol x) { return protocol_times(x, p, bytes).end_to_end; });
    return nearer(Protocol::t, Protocol::ta, measured.sender,
                  [&](Protocol x) { return protocol_times(x, p, bytes).sender; });
}

} // namespace ngx::fit
