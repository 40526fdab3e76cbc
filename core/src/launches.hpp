// --launches K: the whole measurement K times, each a fresh ngx process
// (its own modules, buffers, timer calibration, placement), one after the
// other, each writing its results to a JSON file of a scratch directory;
// `ngx launches` then states the intervals between them. For a local run
// with more than two CPUs allowed and no --cpus, launch i runs on the i-th
// CPU pair of a list that moves both CPUs ((0,1), (1,2), ..., then pairs
// further apart), so placement varies as it would between jobs; what each
// launch ran on is in its file's context ("placement"). Each launch sees
// NGX_LAUNCH=i (0-based) in its environment: a module with seeded state
// (the sim's --sim-seed) varies it per launch with that.
//
//     Result<std::vector<std::string>> files = run_launches(config, executable, directory);
#ifndef NGX_LAUNCHES_HPP
#define NGX_LAUNCHES_HPP

#include "cli.hpp"

#include <ngx/status.hpp>

#include <string>
#include <vector>

namespace ngx {

// The CPU pair of each of `launches` launches; empty pairs (the default
// placement) with 2 CPUs or fewer.
std::vector<std::vector<int>> launch_cpu_pairs(const std::vector<int>& allowed, size_t launches);

// Runs config.launches launches of config.launch_arguments with
// `executable`, each writing directory/launch-I.json; stops at the first
// that fails (its exit code and number in the error). The files in order.
Result<std::vector<std::string>> run_launches(const Config& config, const std::string& executable,
                                              const std::string& directory);

} // namespace ngx

#endif
