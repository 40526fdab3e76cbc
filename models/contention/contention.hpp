// Contention on one shared link: ranks on two switches joined by one uplink
// (a fat tree's oversubscribed level, two racks), and what a collective's
// messages lose when they cross it together.
//
// LogGP prices every message as if its path were its own. LoGPC (Moritz and
// Frank, "LoGPC: Modeling Network Contention in Message-Passing Programs",
// SIGMETRICS 1998 and IEEE TPDS 12(4), 2001) adds to it the delay messages
// suffer where they share a link. ngx prices that delay with the max-rate
// model (Gropp, Olson and Samfass, "Modeling MPI Communication Performance
// on SMP Nodes", EuroMPI 2016) fitted to the congestion pattern's flows
// across the uplink: c flows that share it move
//     c n bytes in  alpha + c n / min(R_N, c R_C)
// (rate(c) = min(R_N, c R_C): one flow gets R_C, together they get R_N).
//
// A schedule (collective_schedule.hpp) is cut into rounds: round j holds
// every rank's j-th send and j-th receive (a schedule whose j-th send is not
// its receiver's j-th receive has no rounds: an error). In round j, per
// direction d of the uplink (switch 0 -> 1 and 1 -> 0), c_d messages of B_d
// bytes in all cross it together, the largest of b_d bytes. LogGP already
// prices each message as if it crossed alone, its transfer at the link's
// rate for one flow, rate(1); sharing, the last of them is through only
// when the link has moved all B_d. LoGPC's contention delay of the round is
// that difference, for the busier direction (alpha, in both, cancels):
//     C_j = max over d of  max(0, B_d / rate(c_d) - b_d / rate(1))
// and the collective takes
//     T_C = T_LogGP + sum_j C_j.
// With no message across the uplink, or one per direction and round,
// T_C = T_LogGP. The term assumes the rounds run one after the other (as
// the pairwise, Bruck and ring schedules do) and a round's crossing flows
// share the uplink fairly.
//
//     std::vector<int> at = *parse_switches("0,0,1,1", 4);
//     Result<ContentionPrice> c = price_contention(schedule, at, link);
//     double t = evaluate_schedule(schedule, p2p, rules) + c->delay_us;
#ifndef NGX_FIT_CONTENTION_HPP
#define NGX_FIT_CONTENTION_HPP

#include <models/base/status.hpp>
#include <models/collectives/collective_schedule.hpp>
#include <models/maxrate/maxrate.hpp>

#include <string_view>
#include <vector>

namespace ngx::fit {

// "0,0,1,1": the switch (0 or 1) of each rank in rank order. invalid_input,
// naming what is wrong, unless it lists exactly `ranks` entries, each 0 or
// 1, with a rank on each switch (else no message crosses the uplink).
Result<std::vector<int>> parse_switches(std::string_view text, long long ranks);

// One round of a schedule across the uplink.
struct ContentionRound {
    int flows[2] = {0, 0};      // crossing messages c_d: switch 0 -> 1, 1 -> 0
    double bytes[2] = {0, 0};   // their bytes B_d
    double largest[2] = {0, 0}; // the largest of them, b_d
    double delay_us = 0;        // C_j
};

struct ContentionPrice {
    double delay_us = 0; // sum of the rounds' delays
    std::vector<ContentionRound> rounds;
};

// The delay of the overview. `link` is the max-rate fit across the uplink
// (R_N, R_C in bytes/us); invalid_input when the switch list does not match
// the schedule's ranks, the rates are not positive or the schedule has no
// rounds.
Result<ContentionPrice> price_contention(const Schedule& schedule, const std::vector<int>& switch_of,
                                         const MaxRateParams& link);

} // namespace ngx::fit

#endif
