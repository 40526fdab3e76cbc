// `ngx plot` (see plot.hpp): finds the plot script and runs it with python3,
// handing over the arguments unchanged; the script parses them and draws.
// The saved runs it is given (FILE.json) first pass the checks every reader
// of saved runs makes (ngx/json_input.hpp), so a FIFO, an unknown
// schema_version or a size of -5 is refused here as by compare or fit.
#include "plot.hpp"

#include "install_dirs.hpp"
#include "ngx_config.h"

#include <ngx/json_input.hpp>
#include <ngx/status.hpp>

#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

extern char** environ;

namespace ngx {
namespace {

namespace fs = std::filesystem;

constexpr const char* script_name = "ngx_plot.py";
constexpr const char* matplotlib_hint = "Debian/Ubuntu: apt-get install python3-matplotlib; RHEL/Rocky: dnf install "
                                        "python3-matplotlib; without root: python3 -m pip install --user matplotlib";

// Beside the binary in the build tree (build/tools/plot/), else installed
// (below the binary's prefix, else the configured one: install_dirs.hpp).
Result<std::string> find_script()
{
    std::error_code error;
    fs::path exe = fs::read_symlink("/proc/self/exe", error);
    std::vector<fs::path> candidates;
    if (!error)
        candidates.push_back(exe.parent_path() / "tools" / "plot" / script_name);
    candidates.push_back(
        fs::path(installed_dir(error ? "" : exe.string(), NGX_PLOT_INSTALL_SUBDIR, NGX_PLOT_INSTALL_DIR)) /
        script_name);
    std::string searched;
    for (const fs::path& candidate : candidates) {
        if (fs::is_regular_file(candidate, error))
            return candidate.string();
        searched += (searched.empty() ? "" : ", ") + candidate.string();
    }
    return Status::runtime("the plot script " + std::string(script_name) + " is not installed (searched " + searched +
                           ")");
}

// Runs `python3 SCRIPT ARGS...` and returns its exit code.
Result<int> run_python(const std::string& script, const std::vector<std::string>& arguments)
{
    const char* python = std::getenv("NGX_PYTHON");
    std::string interpreter = python != nullptr && *python != '\0' ? python : NGX_PLOT_PYTHON;
    std::vector<std::string> words = {interpreter, script};
    words.insert(words.end(), arguments.begin(), arguments.end());
    std::vector<char*> argv;
    for (std::string& word : words)
        argv.push_back(word.data());
    argv.push_back(nullptr);
    pid_t child = -1;
    int spawned = posix_spawnp(&child, interpreter.c_str(), nullptr, nullptr, argv.data(), environ);
    if (spawned == ENOENT)
        return Status::runtime(interpreter + " is missing: ngx plot needs python3 with matplotlib (" + matplotlib_hint +
                               "; NGX_PYTHON names another interpreter)");
    if (spawned != 0)
        return Status::runtime("cannot start " + interpreter + ": " + std::strerror(spawned));
    int status = 0;
    while (waitpid(child, &status, 0) < 0)
        if (errno != EINTR)
            return Status::runtime(std::string("waiting for the plot script: ") + std::strerror(errno));
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return Status::runtime("the plot script was killed by signal " + std::to_string(WTERMSIG(status)));
}

// Every FILE.json argument (not the -o figure) read as compare reads it.
Status check_inputs(const std::vector<std::string>& arguments)
{
    for (size_t i = 0; i < arguments.size(); ++i) {
        const bool figure = i > 0 && (arguments[i - 1] == "-o" || arguments[i - 1] == "--output");
        if (!figure && arguments[i].size() > 5 && arguments[i].ends_with(".json"))
            NGX_TRY(read_json_input(arguments[i]).status());
    }
    return Status::ok();
}

int plot_main(const std::vector<std::string>& arguments)
{
    if (Status inputs = check_inputs(arguments); !inputs) {
        std::cerr << "ngx plot: " << inputs.message() << "\n";
        return exit_code(inputs);
    }
    Result<std::string> script = find_script();
    Result<int> code = script ? run_python(*script, arguments) : Result<int>(script.status());
    if (!code) {
        std::cerr << "ngx plot: " << code.status().message() << "\n";
        return exit_code(code.status());
    }
    return *code;
}

} // namespace

CommandInfo plot_command()
{
    return {"plot", "draw saved runs (ngx plot FILE.json... -o OUT.png)",
            [](const std::vector<std::string>& arguments, const PatternCatalog&) { return plot_main(arguments); }};
}

} // namespace ngx
