// Separate launches of one measurement (see launches.hpp).
#include "launches.hpp"

#include "sysinfo.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <sys/wait.h>
#include <unistd.h>

namespace ngx {
namespace {

// Runs one launch with stdout on /dev/null (its table is not the result;
// its warnings and errors stay on stderr). Blocks until it exits: the
// launch bounds every blocking step of its own with --timeout and its watchdog.
Status run_one(const std::string& executable, const std::vector<std::string>& arguments, size_t index)
{
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(executable.c_str()));
    for (const std::string& argument : arguments)
        argv.push_back(const_cast<char*>(argument.c_str()));
    argv.push_back(nullptr);
    std::string launch = std::to_string(index);
    pid_t child = fork();
    if (child < 0)
        return Status::runtime(std::string("--launches: fork: ") + std::strerror(errno));
    if (child == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, STDOUT_FILENO);
        setenv("NGX_LAUNCH", launch.c_str(), 1);
        execv(executable.c_str(), argv.data());
        _exit(127);
    }
    int wstatus = 0;
    while (waitpid(child, &wstatus, 0) < 0)
        if (errno != EINTR)
            return Status::runtime(std::string("--launches: waitpid: ") + std::strerror(errno));
    if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0)
        return Status::ok();
    std::string how = WIFEXITED(wstatus) ? "exit code " + std::to_string(WEXITSTATUS(wstatus))
                                         : "signal " + std::to_string(WTERMSIG(wstatus));
    return Status::runtime("--launches: launch " + std::to_string(index + 1) + " failed (" + how + ", see above)");
}

std::string cpu_text(const std::vector<int>& cpus)
{
    return cpus.empty() ? "default" : std::to_string(cpus[0]) + "," + std::to_string(cpus[1]);
}

} // namespace

std::vector<std::vector<int>> launch_cpu_pairs(const std::vector<int>& allowed, size_t launches)
{
    std::vector<std::vector<int>> pairs(launches);
    size_t n = allowed.size();
    if (n <= 2)
        return pairs;
    std::vector<std::vector<int>> candidates; // distance 1 first, then 2, ...: (0,1), (1,2), ..., (0,2), ...
    for (size_t distance = 1; distance < n; ++distance)
        for (size_t first = 0; first + distance < n; ++first)
            candidates.push_back({allowed[first], allowed[first + distance]});
    for (size_t i = 0; i < launches; ++i)
        pairs[i] = candidates[i % candidates.size()];
    return pairs;
}

Result<std::vector<std::string>> run_launches(const Config& config, const std::string& executable,
                                              const std::string& directory)
{
    bool vary = config.cpus.empty() && config.pairs == 1;
    std::vector<std::vector<int>> pairs =
        vary ? launch_cpu_pairs(allowed_cpus(), config.launches) : std::vector<std::vector<int>>(config.launches);
    std::vector<std::string> files;
    for (size_t i = 0; i < config.launches; ++i) {
        std::string file = directory + "/launch-" + std::to_string(i + 1) + ".json";
        std::vector<std::string> arguments = config.launch_arguments;
        arguments.insert(arguments.end(), {"-o", file});
        std::vector<int> cpus = !config.cpus.empty() ? config.cpus : pairs[i];
        if (!cpus.empty()) {
            arguments.push_back("--cpus");
            std::string list;
            for (int cpu : cpus) {
                if (!list.empty())
                    list += ',';
                list += std::to_string(cpu);
            }
            arguments.push_back(list);
        }
        std::cerr << "ngx: launch " << i + 1 << " of " << config.launches << " (CPUs " << cpu_text(cpus) << ")\n";
        NGX_TRY(run_one(executable, arguments, i));
        files.push_back(file);
    }
    return files;
}

} // namespace ngx
