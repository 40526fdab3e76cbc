// The ping-ping pattern's catalog entry: PRTT(n, d, s) of paper 001.
#ifndef NGX_PATTERNS_PINGPING_HPP
#define NGX_PATTERNS_PINGPING_HPP

#include <ngx/pattern.hpp>

namespace ngx::patterns {
PatternInfo pingping_pattern();
}

#endif
