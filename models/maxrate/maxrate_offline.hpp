// The maxrate model kind: `ngx predict --params nc.json --op nodecomm -k K -s SIZE`: T(K, SIZE) under
// every model of a saved nodecomm run (its regime chosen by SIZE), and
// `--op best-k -s VOLUME`: the number of pairs k that moves VOLUME bytes from
// one node to the other fastest, each pair sending VOLUME / k, under the
// three-parameter max-rate model (Gropp et al. 2016, section 5: k* = R_N / R_C).
// `ngx fit nc.json [--nodecomm-regimes LIST] [-o refit.json]` fits the
// models again to a saved run's T(k, n), e.g. with other regimes.
#ifndef NGX_PATTERNS_NODECOMM_PREDICT_HPP
#define NGX_PATTERNS_NODECOMM_PREDICT_HPP

#include <ngx/pattern.hpp>

#include <vector>

namespace ngx::patterns {

// The maxrate model kind, which `ngx predict` finds in a saved nodecomm run.
ModelKind maxrate_model_kind();
// `ngx fit nc.json`: the document with its models fitted again, and their tables.
Result<FitOutput> fit_nodecomm(const FitRequest& request);
std::vector<opt::OptionSpec> nodecomm_fit_options(); // --nodecomm-regimes

} // namespace ngx::patterns

#endif
