// The ping-pong pattern's catalog entry.
#ifndef NGX_PATTERNS_PINGPONG_HPP
#define NGX_PATTERNS_PINGPONG_HPP

#include <ngx/pattern.hpp>

namespace ngx::patterns {
PatternInfo pingpong_pattern();
}

#endif
