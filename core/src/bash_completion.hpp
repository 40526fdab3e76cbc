// The bash completion script (`ngx --completion bash`): the options of the
// command line, of every module and pattern found, and the subcommands.
//
//     std::cout << bash_completion(registry, patterns, {"compare", "check", "fit"});
#ifndef NGX_BASH_COMPLETION_HPP
#define NGX_BASH_COMPLETION_HPP

#include "pattern_catalog.hpp"

#include <ngx/loader.hpp>

#include <string>
#include <vector>

namespace ngx {

std::string bash_completion(const ModuleRegistry& registry, const PatternCatalog& patterns,
                            const std::vector<std::string>& commands);

} // namespace ngx

#endif
