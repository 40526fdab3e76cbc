// Subcommands of ngx that work on saved results rather than measuring:
// `ngx compare A.json B.json`, `ngx fit FILE.csv`, `ngx predict ...`. They
// live in tools/commands and reach the program through this catalog, the
// way patterns do, so the core does not depend on the fit library.
//
//     CommandInfo{"compare", "compare saved runs", [](const auto& args) { return compare_main(args); }};
#ifndef NGX_COMMAND_HPP
#define NGX_COMMAND_HPP

#include <functional>
#include <string>
#include <vector>

namespace ngx {

struct CommandInfo {
    std::string name;
    std::string summary;
    // Receives the arguments after the command name; returns the exit code.
    std::function<int(const std::vector<std::string>& arguments)> run;
};

using CommandCatalog = std::vector<CommandInfo>;

} // namespace ngx

#endif
