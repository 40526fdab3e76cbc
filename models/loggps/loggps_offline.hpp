// The loggps pattern's offline hooks (see offline.cpp): `ngx fit` of a saved
// loggps run and the loggps model kind (`ngx predict` with its LogGPS model).
#ifndef NGX_PATTERNS_LOGGPS_OFFLINE_HPP
#define NGX_PATTERNS_LOGGPS_OFFLINE_HPP

#include <ngx/pattern.hpp>

namespace ngx::patterns {

Result<FitOutput> loggps_fit_offline(const FitRequest& request); // the re-fitted run
std::vector<opt::OptionSpec> loggps_fit_options();               // --module
ModelKind loggps_model_kind();

} // namespace ngx::patterns

#endif
