// The loggp pattern's offline hooks: `ngx fit FILE` re-fits saved PRTT
// medians (its raw CSV or a saved loggp JSON run) exactly as the live
// pattern fits them, and `ngx predict --params FILE.json` answers "what
// would this cost" from a saved LogGP model, or exports it for LogGOPSim.
#ifndef NGX_PATTERNS_LOGGP_OFFLINE_HPP
#define NGX_PATTERNS_LOGGP_OFFLINE_HPP

#include <ngx/pattern.hpp>

#include <string>

namespace ngx::patterns {

int fit_offline(const CommandArguments& arguments);
int predict_offline(const CommandArguments& arguments);

// Whether `ngx fit` should hand a non-JSON file to loggp: its first line is the raw-PRTT CSV header.
bool reads_prtt_csv(const std::string& first_line);

} // namespace ngx::patterns

#endif
