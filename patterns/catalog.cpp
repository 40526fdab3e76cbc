// The catalog of built-in patterns (see catalog.hpp).
#include "catalog.hpp"

#include "loggp/loggp.hpp"
#include "loggps/loggps.hpp"
#include "loggps/loggps.hpp"
#include "overhead/overhead.hpp"
#include "pingping/pingping.hpp"
#include "pingpong/pingpong.hpp"

namespace ngx {

PatternCatalog builtin_patterns()
{
    return {patterns::pingpong_pattern(), patterns::pingping_pattern(), patterns::loggp_pattern(),
            patterns::loggps_pattern(), patterns::overhead_pattern()};
}

} // namespace ngx
