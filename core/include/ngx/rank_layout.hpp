// Rank layouts: which rank sends to which, round by round, for any number of
// ranks P >= 2 (odd P included: a rank without a partner idles that round).
// The core plans the rounds; a pattern declares which layouts it can run and
// walks the rounds, asking each one what this rank does in it.
//
//     Result<std::vector<Round>> rounds = plan_layout({.kind = LayoutKind::shift_rounds, .nranks = 5});
//     for (const Round& round : *rounds) {
//         RoundRole role = role_of(round, my_rank);  // send_to / recv_from, -1: none
//         ...
//     }
//
// Layouts:
//   fixed_pairs       one round: rank i with i + floor(P/2) for i < floor(P/2),
//                     both directions (today's pairing; odd P: the last rank idles)
//   shift_rounds      rounds r = 1..P-1: rank i sends to (i + r) mod P and
//                     receives from (i - r) mod P; every ordered pair once,
//                     every link busy at once (mpiGraph's scheme)
//   one_at_a_time     P(P-1) rounds of one ordered pair each: no concurrent
//                     traffic (the quiet baseline)
//   random_matchings  K rounds, each a random perfect matching (a bisection),
//                     both directions; odd P: one rank idles
//   one_to_many       rounds n = 1..P-1: the root sends to n ranks at once
//   many_to_one       rounds n = 1..P-1: n ranks send to the root at once
//   group             one round in which all ranks form one group (collectives)
#ifndef NGX_RANK_LAYOUT_HPP
#define NGX_RANK_LAYOUT_HPP

#include <ngx/status.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ngx {

enum class LayoutKind { fixed_pairs, shift_rounds, one_at_a_time, random_matchings, one_to_many, many_to_one, group };

// Every layout, in the order `ngx --help` lists them.
inline constexpr LayoutKind all_layouts[] = {
    LayoutKind::fixed_pairs, LayoutKind::shift_rounds, LayoutKind::one_at_a_time, LayoutKind::random_matchings,
    LayoutKind::one_to_many, LayoutKind::many_to_one,  LayoutKind::group,
};

// "fixed-pairs", "shift", "one-at-a-time", "random-matchings", "one-to-many", "many-to-one", "group".
std::string_view layout_name(LayoutKind kind);
// The inverse of layout_name(); an unknown name is a usage error listing the known ones.
Result<LayoutKind> parse_layout(std::string_view name);

struct LayoutRequest {
    LayoutKind kind = LayoutKind::fixed_pairs;
    int nranks = 2;
    int root = 0;        // one_to_many, many_to_one
    uint64_t rounds = 1; // random_matchings: K bisections
    uint64_t seed = 1;   // random_matchings: the same seed gives the same matchings
};

// One message direction of a round.
struct Transfer {
    int from = 0;
    int to = 0;
    bool operator==(const Transfer&) const = default;
};

struct Round {
    std::vector<Transfer> transfers; // concurrent in this round
    bool group = false;              // all ranks together (LayoutKind::group), no transfers
};

// The rounds of a layout. P < 2, a root outside 0..P-1 or K = 0 are usage errors.
Result<std::vector<Round>> plan_layout(const LayoutRequest& request);

// What one rank does in a round: the ranks it sends to and receives from
// (empty: it idles that way). Pairwise layouts give at most one of each;
// one_to_many gives the root several targets.
struct RoundRole {
    std::vector<int> send_to;
    std::vector<int> recv_from;
    bool idle() const { return send_to.empty() && recv_from.empty(); }
};
RoundRole role_of(const Round& round, int rank);

// The peers `rank` talks with over all rounds, ascending: the links a module
// must open for it (fixed pairs: one; shift rounds: all others).
std::vector<int> peers_of(const std::vector<Round>& rounds, int rank);

} // namespace ngx

#endif
