// Comparing all-pairs maps cell by cell: two or more runs of a pattern that
// saves a map (model.allpairs: latency_us and bandwidth_MBps, P x P, row =
// sender), the first run the baseline. For each later run and each cell,
// the ratio to the baseline; then what moved:
//
// - the map as a whole: the median of the cells' ratios (a whole network
//   that got slower moves every cell alike);
// - the cells that moved apart from the rest: |log ratio - median log ratio|
//   beyond `spread_factor` robust spreads (1.4826 MAD of the log ratios) and
//   beyond `least_change` (identical maps, as in virtual time, have no
//   spread: a change under 10% is never singled out);
// - the nodes that moved apart: the median log ratio of a host's cells to
//   and from other hosts (all of its cells when every rank is on one host)
//   against the other hosts', by the same rule.
//
// Cells are matched by rank: the maps must have the same P (a usage error
// otherwise); when the hosts of the ranks differ, the comparison says so.
//
//     NGX_TRY(check_maps(runs));                 // before compare_runs
//     Json maps = compare_maps(runs);            // null: the runs have no maps
//     std::cout << map_comparison_table(maps);   // comparison_table.hpp
#ifndef NGX_MAP_COMPARISON_HPP
#define NGX_MAP_COMPARISON_HPP

#include "comparison.hpp"

#include <ngx/status.hpp>

#include <string>
#include <vector>

namespace ngx {

struct MapChangeRule {
    double spread_factor = 3.0; // robust spreads a cell or node must move beyond the rest
    double least_change = 0.10; // and at least this much (relative)
};

// Usage error when some runs hold a map and others do not, or their sizes differ.
Status check_maps(const std::vector<ComparedRun>& runs);

// The comparison of the runs' maps (check_maps must pass); null when none has one.
Json compare_maps(const std::vector<ComparedRun>& runs, MapChangeRule rule = {});

} // namespace ngx

#endif
