// The catalog of subcommands (see commands.hpp). Each command lives in its
// own file of this folder and adds one line here.
#include "commands.hpp"

#include "check.hpp"
#include "compare.hpp"
#include "export_command.hpp"
#include "fit_command.hpp"
#include "launches_command.hpp"
#include "plot.hpp"
#include "trace_command.hpp"

namespace ngx {

CommandCatalog builtin_commands()
{
    return {compare_command(), check_command(),  fit_command(),   predict_command(),
            plot_command(),    export_command(), trace_command(), launches_command()};
}

} // namespace ngx
