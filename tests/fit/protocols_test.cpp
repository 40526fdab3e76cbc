#include <models/loghssp/protocols.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

using namespace ngx::fit;

namespace {

// Transports of very different shapes: overhead-bound, latency-bound,
// bandwidth-bound, and the Cray T3D of Al-Tawil and Moritz 1998, Table 3 (o_s 30, o_r 15, L 3.1,
// G 0.04 us/byte).
std::vector<ProtocolParams> transports()
{
    return {{.o_s = 2.5, .o_r = 1.5, .L = 5, .G = 0.001},
            {.o_s = 0.3, .o_r = 0.2, .L = 40, .G = 0.0001},
            {.o_s = 4, .o_r = 6, .L = 1, .G = 0.05},
            {.o_s = 30, .o_r = 15, .L = 3.1, .G = 0.04}};
}

const std::vector<uint64_t> sizes = {1, 64, 1024, 4096, 65536, 1 << 20};

double stream(const ProtocolParams& p, uint64_t k)
{
    return double(k - 1) * p.G; // (k-1)G
}

// Al-Tawil and Moritz 1998, eqs. (1)-(7) written out again, term by term.
ProtocolTimes equations(Protocol protocol, const ProtocolParams& p, uint64_t k)
{
    const double os = p.o_s, orr = p.o_r, L = p.L, kG = stream(p, k);
    switch (protocol) {
    case Protocol::t:
        return {os, os + L + orr + kG}; // (1), (2)
    case Protocol::ta:
        return {2 * os + 2 * L + 2 * orr + kG, 2 * os + 2 * L + 2 * orr + kG}; // (3)
    case Protocol::rta:
        return {2 * os + 3 * L + 2 * orr + kG, 2 * os + 2 * L + orr + kG}; // (5), (4)
    case Protocol::rat:
        return {4 * os + 3 * L + 2 * orr + kG, 4 * os + 4 * L + 3 * orr + kG}; // (6), (7)
    }
    return {};
}

// What the overhead pattern would measure for a send using `protocol`, from
// the equations: timer11 = T_s; the half round trip = T_s-r; the receive
// delayed until the data could be there (timer12): pushed data (T, TA) wait
// in the receiver, costing o_r and the copy of k bytes (at most the
// network's (k-1)G); under RTA and RAT the delayed receive finds only the
// request and the rest of T_s-r follows it: T_s-r less the request's o_s + L.
MeasuredCosts measured_from_equations(Protocol protocol, const ProtocolParams& p, uint64_t k)
{
    ProtocolTimes t = equations(protocol, p, k);
    bool pushed = protocol == Protocol::t || protocol == Protocol::ta;
    double delayed = pushed ? p.o_r + stream(p, k) : t.end_to_end - p.o_s - p.L;
    return {.sender = t.sender, .delayed_receive = delayed, .end_to_end = t.end_to_end};
}

// The (k-1)G part of T_s: none under T (eq. 1: the send returns before the data leave).
double stream_of_sender(Protocol protocol, const ProtocolParams& p, uint64_t k)
{
    return protocol == Protocol::t ? 0.0 : stream(p, k);
}

} // namespace

TEST(Protocols, TimesAreEquationsOneToSeven)
{
    for (const ProtocolParams& p : transports())
        for (uint64_t k : sizes)
            for (Protocol x : all_protocols) {
                ProtocolTimes got = protocol_times(x, p, k), want = equations(x, p, k);
                EXPECT_DOUBLE_EQ(got.sender, want.sender) << protocol_name(x) << " " << k << " B";
                EXPECT_DOUBLE_EQ(got.end_to_end, want.end_to_end) << protocol_name(x) << " " << k << " B";
            }
}

TEST(Protocols, OneByteHasNoStreamTerm)
{
    const ProtocolParams p{.o_s = 2, .o_r = 3, .L = 5, .G = 1};
    EXPECT_DOUBLE_EQ(protocol_times(Protocol::t, p, 1).end_to_end, 10.0);   // eq. (2), (k-1)G = 0
    EXPECT_DOUBLE_EQ(protocol_times(Protocol::t, p, 0).end_to_end, 10.0);   // an empty message neither
    EXPECT_DOUBLE_EQ(protocol_times(Protocol::rat, p, 1).sender, 29.0);     // eq. (6): 8 + 15 + 6
    EXPECT_DOUBLE_EQ(protocol_times(Protocol::rta, p, 3).end_to_end, 19.0); // eq. (4): 4 + 10 + 3 + 2G
}

TEST(Protocols, InfersEachProtocolFromItsEquations)
{
    for (const ProtocolParams& p : transports())
        for (uint64_t k : sizes)
            for (Protocol x : all_protocols)
                EXPECT_EQ(infer_protocol(p, k, measured_from_equations(x, p, k)), x)
                    << protocol_name(x) << " at " << k << " B, o_s " << p.o_s << " o_r " << p.o_r << " L " << p.L
                    << " G " << p.G;
}

// Measured costs are never the equations exactly: the sender's time and the
// end-to-end time 10% off in their protocol terms (the overheads and
// latencies; (k-1)G is the run's own G) must not change the verdict. Not
// applied to the delayed receive: the step it is judged by is o_s/2 under
// RTA (eq. 4 less the request's o_s + L exceeds o_r + (k-1)G + (o_s+2L)/2
// by o_s/2), which a latency-bound transport's 10% of L would hide.
TEST(Protocols, InfersThroughTenPercentErrorInTheProtocolTerms)
{
    for (const ProtocolParams& p : transports())
        for (uint64_t k : sizes)
            for (Protocol x : all_protocols)
                for (double f : {0.9, 1.1}) {
                    MeasuredCosts m = measured_from_equations(x, p, k);
                    m.sender = stream_of_sender(x, p, k) + f * (m.sender - stream_of_sender(x, p, k));
                    m.end_to_end = stream(p, k) + f * (m.end_to_end - stream(p, k));
                    EXPECT_EQ(infer_protocol(p, k, m), x) << protocol_name(x) << " at " << k << " B x " << f;
                }
}

TEST(Protocols, Names)
{
    EXPECT_EQ(protocol_name(Protocol::t), "T");
    EXPECT_EQ(protocol_name(Protocol::ta), "TA");
    EXPECT_EQ(protocol_name(Protocol::rta), "RTA");
    EXPECT_EQ(protocol_name(Protocol::rat), "RAT");
}
