// The loggp pattern's catalog entry: LogGP parameters by paper 001.
#ifndef NGX_PATTERNS_LOGGP_HPP
#define NGX_PATTERNS_LOGGP_HPP

#include <ngx/pattern.hpp>

namespace ngx::patterns {
PatternInfo loggp_pattern();
}

#endif
