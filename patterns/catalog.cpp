// The catalog of built-in patterns (see catalog.hpp).
#include "catalog.hpp"

#include "pingping/pingping.hpp"
#include "pingpong/pingpong.hpp"

namespace ngx {

PatternCatalog builtin_patterns() { return {patterns::pingpong_pattern(), patterns::pingping_pattern()}; }

} // namespace ngx
