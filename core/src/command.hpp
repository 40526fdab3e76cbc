// Subcommands of ngx that work on saved results rather than measuring:
// `ngx compare A.json B.json`, `ngx check A.json B.json`, `ngx fit FILE`,
// `ngx predict ...`. They live in core/commands and reach the program
// through this catalog. compare and check are generic; fit and predict hand
// the file to the pattern that made it (its PatternInfo::fit / predict
// hooks), so the core knows no model.
//
//     CommandInfo{"compare", "compare saved runs", [](const auto& args, const auto&) { return compare_main(args); }};
#ifndef NGX_COMMAND_HPP
#define NGX_COMMAND_HPP

#include "pattern_catalog.hpp"

#include <functional>
#include <string>
#include <vector>

namespace ngx {

struct CommandInfo {
    std::string name;
    std::string summary;
    // Receives the arguments after the command name; returns the exit code.
    std::function<int(const std::vector<std::string>& arguments, const PatternCatalog& patterns)> run;
};

using CommandCatalog = std::vector<CommandInfo>;

} // namespace ngx

#endif
