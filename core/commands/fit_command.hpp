// `ngx fit FILE` re-fits a saved run offline with the hook of the pattern
// that made it, and `ngx predict` answers "what would this cost" from the
// saved model of any kind the patterns bring (ngx/model_kind.hpp).
#ifndef NGX_TOOLS_FIT_COMMAND_HPP
#define NGX_TOOLS_FIT_COMMAND_HPP

#include "command.hpp"

namespace ngx {
CommandInfo fit_command();
CommandInfo predict_command();
} // namespace ngx

#endif
