// `ngx launches`: what stays put between launches. Given the result files of
// K separate launches of the same measurement (what `ngx --launches K` makes,
// or K runs by hand, e.g. K mpirun jobs), it reports per size the median of
// each launch and, per fitted parameter (model.ranges), the value of each
// launch, each with a 95% interval over the K launch values (Student t,
// K - 1 degrees of freedom): where the parameter's mean over launches lies,
// and where the next launch's value should fall (the prediction interval,
// wider by sqrt(1 + 1/K)). The intervals one launch states are within that
// launch only: what varies between launches (CPU placement, frequency,
// interrupts, memory placement) is fixed within one (Hoefler and Belli 2015,
// rule 5; Hunold and Carpen-Amarie 2016 repeat launches for that reason).
//
//     ngx launches a.json b.json c.json [-o between.json] [--json]
#ifndef NGX_LAUNCHES_COMMAND_HPP
#define NGX_LAUNCHES_COMMAND_HPP

#include "command.hpp"

#include <ngx/record.hpp>
#include <ngx/status.hpp>

#include <string>
#include <vector>

namespace ngx {

CommandInfo launches_command();

// The t interval of the mean of `values` and the prediction interval of one
// more value, both 95%; NaN bounds for fewer than 2 values.
struct LaunchSpread {
    double mean = 0;
    double sd = 0;
    double ci_low = 0, ci_high = 0;     // the mean over launches
    double next_low = 0, next_high = 0; // the next launch's value
    double spread = 0;                  // (max - min) / |mean|
};
LaunchSpread launch_spread(const std::vector<double>& values);

// The between-launch summary of K saved documents (each one launch).
Result<Json> summarize_launches(const std::vector<std::string>& paths);

} // namespace ngx

#endif
