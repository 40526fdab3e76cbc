// The loggps pattern's catalog entry: LogGPS parameters by paper 004.
#ifndef NGX_PATTERNS_LOGGPS_HPP
#define NGX_PATTERNS_LOGGPS_HPP

#include <ngx/pattern.hpp>

namespace ngx::patterns {
PatternInfo loggps_pattern();
}

#endif
