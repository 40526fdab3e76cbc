// `ngx fit FILE` re-fits saved PRTT medians offline, and `ngx predict`
// answers "what would this cost" from saved LogGP parameters.
#ifndef NGX_TOOLS_FIT_COMMAND_HPP
#define NGX_TOOLS_FIT_COMMAND_HPP

#include "command.hpp"

namespace ngx {
CommandInfo fit_command();
CommandInfo predict_command();
} // namespace ngx

#endif
