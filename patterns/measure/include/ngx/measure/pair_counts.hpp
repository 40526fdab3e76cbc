// k concurrent pairs between the two halves of a run (nodecomm, bw's
// message rate): with 2P ranks, pair i is rank i with rank P + i (the
// bootstrap's pairing), the counts k chosen by a pattern option ("K" for
// 1..K, or a list "1,2,4"), and every rank knowing which pair it is in.
//
//     NGX_ASSIGN_OR_RETURN(std::vector<uint64_t> ks, parse_pair_counts("bw-pairs", text));
//     NGX_TRY(resolve_pair_counts(ks, ctx.bootstrap, "--bw-pairs"));   // empty: every pair the ranks allow
//     bool active = pair_index(ctx.bootstrap) < k;
#ifndef NGX_MEASURE_PAIR_COUNTS_HPP
#define NGX_MEASURE_PAIR_COUNTS_HPP

#include <ngx/bootstrap.hpp>
#include <ngx/status.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ngx::patterns {

inline constexpr uint64_t max_pair_count = 4096;

// "K" is 1..K, "1,2,4" the listed counts, sorted and without repeats; a bad
// item is a usage error naming `option`.
Result<std::vector<uint64_t>> parse_pair_counts(const std::string& option, const std::string& text);

// Empty `pairs` become 1..P (every pair of the 2P ranks); a count above P is
// a usage error naming `option` and how to start enough ranks.
Status resolve_pair_counts(std::vector<uint64_t>& pairs, const Bootstrap& boot, const std::string& option);

// The pair this rank is in: rank i and rank P + i are pair i.
inline size_t pair_index(const Bootstrap& boot)
{
    return size_t(boot.rank() % (boot.nranks() / 2));
}

} // namespace ngx::patterns

#endif
