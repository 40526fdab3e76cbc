// `ngx plot FILE.json... [-o OUT.png|.svg|.pdf]`: draws saved runs with the
// plot script (tools/plot/ngx_plot.py, matplotlib). The script is found
// beside the binary in the build tree, else under <datadir>/ngx once
// installed. The interpreter is $NGX_PYTHON when set, else the python3 with
// matplotlib that the build found. `ngx ... --plot` calls the same
// command after writing its -o files.
#ifndef NGX_TOOLS_COMMANDS_PLOT_HPP
#define NGX_TOOLS_COMMANDS_PLOT_HPP

#include "command.hpp"

namespace ngx {
CommandInfo plot_command();
}

#endif
