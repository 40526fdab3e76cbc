// The `ngx` program: command line -> registry -> bootstrap -> pattern ->
// module/timer -> statistics -> reporters, and the exit code.
//
//     int main(int argc, char** argv) {
//         return ngx::run_ngx(ngx::arguments_of(argc, argv), ngx::builtin_commands(),
//                            ngx::Environment::current());
//     }
#ifndef NGX_APP_HPP
#define NGX_APP_HPP

#include "command.hpp"

#include <string>
#include <vector>

namespace ngx {

// What the program learns from its surroundings, read once in main().
struct Environment {
    std::string executable;   // /proc/self/exe
    std::string module_path;  // NGX_MODULE_PATH
    std::string pattern_path; // NGX_PATTERN_PATH
    bool stdout_is_terminal = false;
    bool stderr_is_terminal = false;
    bool under_mpi_launcher = false; // mpirun or srun started us

    static Environment current();
};

std::vector<std::string> arguments_of(int argc, char** argv);

// Runs a subcommand when the first argument names one, a measurement otherwise.
// Patterns are loaded here, from the pattern search path.
int run_ngx(const std::vector<std::string>& arguments, const CommandCatalog& commands, const Environment& env);

} // namespace ngx

#endif
