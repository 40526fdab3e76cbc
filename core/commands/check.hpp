// `ngx check BASELINE.json NEW.json [--tolerance 5%] [--format junit]`: the
// regression check for CI and cron jobs (regression_check.hpp). Exit 0 when
// nothing got significantly worse beyond the tolerance, 1 on a regression,
// 2 on bad input (different patterns, modules or sizes, missing samples).
// `ngx check DIR` shows the history of the results in DIR (history.hpp)
// and exits 1 when its newest file regressed against the one before.
#ifndef NGX_TOOLS_COMMANDS_CHECK_HPP
#define NGX_TOOLS_COMMANDS_CHECK_HPP

#include "command.hpp"

namespace ngx {
CommandInfo check_command();
}

#endif
