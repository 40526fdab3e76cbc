// The patterns built into ngx, in the order `ngx --list-patterns` shows them.
#ifndef NGX_PATTERNS_CATALOG_HPP
#define NGX_PATTERNS_CATALOG_HPP

#include <ngx/pattern.hpp>

namespace ngx {
PatternCatalog builtin_patterns();
}

#endif
