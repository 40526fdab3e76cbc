// The overhead pattern's catalog entry: send overhead o_s and receive
// overhead o_r per size (paper 003, Figure 2 and section 3.1).
#ifndef NGX_PATTERNS_OVERHEAD_HPP
#define NGX_PATTERNS_OVERHEAD_HPP

#include <ngx/pattern.hpp>

namespace ngx::patterns {
PatternInfo overhead_pattern();
}

#endif
