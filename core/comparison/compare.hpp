// `ngx compare A.json B.json ...`: compares saved runs (see core's
// comparison.hpp): per size each run's median with the difference and ratio
// to the first run, and the fitted LogGP parameters where present.
#ifndef NGX_TOOLS_COMMANDS_COMPARE_HPP
#define NGX_TOOLS_COMMANDS_COMPARE_HPP

#include "command.hpp"

namespace ngx {
CommandInfo compare_command();
}

#endif
