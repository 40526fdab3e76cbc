// The loggp model's offline hooks: `ngx fit FILE` re-fits saved PRTT
// medians (its raw CSV or a saved loggp JSON run) exactly as the live
// pattern fits them, and the loggp model kind (ngx/model_kind.hpp) answers
// `ngx predict --params FILE.json`: "what would this cost" from a saved
// LogGP model (a message, a PRTT, a broadcast, a collective, or a window of
// the bw pattern: stream-bw, stream-bibw, message-rate), or its export for
// LogGOPSim. The loggp and bw patterns declare this kind.
#ifndef NGX_MODELS_LOGGP_OFFLINE_HPP
#define NGX_MODELS_LOGGP_OFFLINE_HPP

#include <ngx/model_kind.hpp>
#include <ngx/pattern.hpp>

#include <string>
#include <vector>

namespace ngx::patterns {

// `ngx fit FILE`: the re-fitted run, or with --export loggopsim its text.
Result<FitOutput> fit_offline(const FitRequest& request);
std::vector<opt::OptionSpec> loggp_fit_options(); // --export, --module and the fit's settings
ModelKind loggp_model_kind();

// Whether `ngx fit` should hand a non-JSON file to loggp: always (the raw-PRTT
// CSV is the only raw file of a fit hook; its reader says what is wrong).
bool reads_prtt_csv(const std::string& first_line);

} // namespace ngx::patterns

#endif
