// The subcommands built into ngx (compare, fit, predict, plot), in help order.
#ifndef NGX_TOOLS_COMMANDS_HPP
#define NGX_TOOLS_COMMANDS_HPP

#include "command.hpp"

namespace ngx {
CommandCatalog builtin_commands();
}

#endif
