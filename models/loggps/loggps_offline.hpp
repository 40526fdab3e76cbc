// The loggps pattern's offline hooks (see offline.cpp): `ngx fit` of a saved
// loggps run and the loggps model kind (`ngx predict` with its LogGPS model).
#ifndef NGX_PATTERNS_LOGGPS_OFFLINE_HPP
#define NGX_PATTERNS_LOGGPS_OFFLINE_HPP

#include <ngx/pattern.hpp>

namespace ngx::patterns {

int loggps_fit_offline(const CommandArguments& arguments);
ModelKind loggps_model_kind();

} // namespace ngx::patterns

#endif
