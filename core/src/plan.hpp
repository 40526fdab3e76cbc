// The run plan: which runs one invocation makes. One run per chosen module,
// and one per value when a module option lists several (`--mpi-mode
// standard,synchronous` gives two runs, compared side by side; several
// lists give every combination). The command line produces the choices,
// the session consumes the runs.
//
//     Result<std::vector<ModuleChoice>> runs = plan_module_runs(config.modules);
#ifndef NGX_PLAN_HPP
#define NGX_PLAN_HPP

#include <ngx/loader.hpp>
#include <ngx/options.hpp>
#include <ngx/pattern.hpp>
#include <ngx/status.hpp>

#include <string>
#include <vector>

namespace ngx {

struct ModuleChoice {
    LoadedModulePtr module;
    OptionValues options; // every option of the module, defaults filled in
    std::string variant;  // "mpi-mode=synchronous" when an option listed several values
};

// The most runs one invocation may plan.
inline constexpr size_t max_runs = 64;

// Expands option value lists into runs; bad values are the module's to judge at init.
Result<std::vector<ModuleChoice>> plan_module_runs(const std::vector<ModuleChoice>& modules);

// Every planned module can carry every size.
Status check_sizes_fit_modules(const std::vector<ModuleChoice>& runs, const std::vector<uint64_t>& sizes);

// The sizes (sorted) start at the pattern's smallest (PatternInfo::min_message_bytes).
Status check_sizes_fit_pattern(const std::vector<uint64_t>& sizes, const PatternInfo& pattern);

// Every planned module has the capabilities the pattern declares it needs
// (PatternInfo::module_capabilities: a broadcast needs NGX_CAP_COLLECTIVES).
Status check_modules_fit_pattern(const std::vector<ModuleChoice>& runs, const PatternInfo& pattern);

} // namespace ngx

#endif
