// The catalog of subcommands (see commands.hpp). Each command lives in its
// own file of this folder and adds one line here.
#include "commands.hpp"

namespace ngx {

CommandCatalog builtin_commands() { return {}; }

} // namespace ngx
