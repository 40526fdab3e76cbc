// Comparing runs: the same pattern over several modules (or saved files),
// per size each run's median next to the first run's, with the difference
// and the ratio (what the middleware adds), and where runs carry fitted
// LogGP ranges (model.ranges) the difference per parameter. One piece of
// logic for both `ngx -m tcp,mpi ...` (the live Document) and
// `ngx compare A.json B.json` (saved files).
//
//     std::vector<ComparedRun> runs = {{"tcp", to_json(tcp_run, false)}, {"mpi", to_json(mpi_run, false)}};
//     Json comparison = compare_runs(runs);      // goes into Document::comparison
//     std::cout << comparison_table(comparison);
#ifndef NGX_COMPARISON_HPP
#define NGX_COMPARISON_HPP

#include <ngx/record.hpp>

#include "comparison_table.hpp" // comparison_table, for the callers of compare_runs

#include <string>
#include <vector>

namespace ngx {

// One run as JSON, in the shape to_json(RunRecord) writes (module, pattern,
// metric, results[{size_bytes, median_us}], optional model.ranges).
struct ComparedRun {
    std::string label;
    Json run;
};

// The comparison object; the first run is the baseline. Sizes are the
// baseline's; a size another run lacks gets null values.
Json compare_runs(const std::vector<ComparedRun>& runs);

// A run's fitted protocol ranges (model.ranges), nullptr when it has none.
const Json* ranges_of(const Json& run);

// The runs of one document, labelled by module name ("mpi#2" for a repeat).
std::vector<ComparedRun> compared_runs(const Document& document);

} // namespace ngx

#endif
