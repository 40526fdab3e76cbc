// The readable table of a comparison object (the JSON that the engine's
// compare_runs makes, core/comparison/comparison.hpp): per size each run's median
// next to the baseline's with the difference and the ratio, then the fitted
// parameters per range, then the all-pairs maps cell by cell. The table reporter prints it under a live run's
// table, `ngx compare` under saved files; being output, it lives with the
// reporters in the plugin library, while the comparing stays in the engine.
//
//     std::cout << comparison_table(document.comparison);
#ifndef NGX_COMPARISON_TABLE_HPP
#define NGX_COMPARISON_TABLE_HPP

#include <ngx/record.hpp>

#include <string>

namespace ngx {

std::string comparison_table(const Json& comparison);

// The all-pairs part of a comparison ("allpairs", core/comparison/map_comparison.hpp):
// per later run, the map's median ratio and the cells and nodes that moved
// apart from the rest ("" for null).
std::string map_comparison_table(const Json& maps);

} // namespace ngx

#endif
