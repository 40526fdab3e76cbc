// LoGH{sS}P, the two-tier model of Al-Tawil and Moritz 1998 section 3.3 (eqs. 8-9): within
// a node (hypernode) messages go through shared memory with send and
// receive overheads s_s, s_r and gap per byte S, their latency ignored;
// between nodes through a network with o_s, o_r, L and G.
//
//     Tiers t{{.s_s = 0.4, .s_r = 0.3, .S = 0.0001}, {.o_s = 3, .o_r = 4, .L = 20, .G = 0.0008}};
//     double intra = intra_time(t.intra, 4096), inter = inter_time(t.inter, 4096);
#ifndef NGX_FIT_LOGHSSP_HPP
#define NGX_FIT_LOGHSSP_HPP

#include <cstdint>

namespace ngx::fit {

struct IntraTier {
    double s_s = 0; // send overhead, us
    double s_r = 0; // receive overhead, us
    double S = 0;   // gap per byte, us/byte
};

struct InterTier {
    double o_s = 0, o_r = 0, L = 0; // us
    double G = 0;                   // us/byte
};

struct Tiers {
    IntraTier intra;
    InterTier inter;
};

// Eq. (8): T_s-r = s_s + s_r + (k-1) S.
double intra_time(const IntraTier& tier, uint64_t bytes);
// Eq. (9): T_s-r = o_s + o_r + (k-1) G + L.
double inter_time(const InterTier& tier, uint64_t bytes);

} // namespace ngx::fit

#endif
