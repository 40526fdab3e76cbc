// The command line of `ngx` (Boost.Program_options), parsed in two passes:
// the first finds -m and -x, the second knows the chosen modules' and
// pattern's own option groups and checks everything strictly. Every bad
// value is a usage error (exit 2) whose message names the option and value.
//
//     Result<Config> config = parse_command_line(args, registry, patterns);
#ifndef NGX_CLI_HPP
#define NGX_CLI_HPP

#include "pattern_catalog.hpp"
#include "plan.hpp"
#include "server_policy.hpp"

#include <ngx/command_line.hpp>
#include <ngx/loader.hpp>
#include <ngx/pattern.hpp>
#include <ngx/reporter.hpp>
#include <ngx/timer.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ngx {

enum class Action { run, help, version, list_modules, list_patterns, completion };
enum class BootstrapChoice { automatic, local, tcp, mpi };

struct Config {
    Action action = Action::run;
    std::string help_text;
    std::vector<ModuleChoice> modules;
    const PatternInfo* pattern = nullptr;
    OptionValues pattern_options; // the pattern's declared options, defaults filled in
    RunSettings settings;
    std::vector<int> cpus;    // rank r runs on cpus[r], when given
    int pairs = 1;            // --pairs K: the local launch starts 2K processes (rank i pairs with K + i)
    bool pairs_given = false; // under a launcher its rank count must then be 2K
    std::string pair_list;    // --pairs LIST (with a comma): K = max(LIST), LIST goes to the pattern
    std::string strides;      // --strides LIST, for the pattern's strides option
    // Pattern options whose value a core option gave, and that core option
    // ({"strided-strides", "strides"}): errors then name what the user typed.
    std::vector<std::pair<std::string, std::string>> handed_options;
    std::vector<OutputSpec> outputs;
    std::string raw_prtt_path;                 // --raw-prtt: loggp's per-size medians as CSV
    std::optional<OutputFormat> stdout_format; // --format without -o: print that instead of the table
    TimerChoice timer = TimerChoice::automatic;
    BootstrapChoice bootstrap = BootstrapChoice::automatic;
    std::string listen;  // [ADDR:]PORT
    std::string connect; // HOST:PORT, or a list of them
    // --connect's servers; two or more make a run of more than two hosts,
    // with `pairs` ranks on each host (--ranks-per-host R)
    std::vector<std::string> servers;
    bool many_hosts() const { return servers.size() >= 2; }
    uint64_t accept_timeout_ns = 300'000'000'000;
    bool accept_timeout_given = false;
    bool timeout_given = false;                // --timeout given: a server's own then wins over its client's
    ServerPolicy policy;                       // --allow, --serve, --max-*: what a --listen server lets a client do
    std::string secret_file;                   // --secret-file, on either side of --listen / --connect
    std::vector<std::string> arguments;        // as given, to hand to a --listen server
    bool plot = false;                         // --plot: draw each -o FILE.json as FILE.png (ngx plot) afterwards
    std::optional<size_t> buffer_offset;       // --buffer-offset: buffers this many bytes past a page boundary
    uint64_t launches = 0;                     // --launches K (0: one launch, this process)
    std::vector<std::string> launch_arguments; // what each of those launches runs (launches.hpp)
};

// The local modules `ngx` measures when no -m is given (the main job), and
// the option defaults it gives them where the user gave none. tcp's receiver
// polls, as an MPI library's progress engine does: asleep in recv(), it makes
// the loopback sender pay its wake-up inside send(), so a send spaced by d
// costs more than one back to back (o > g), which no LogGP o can describe.
inline const std::vector<std::string> default_modules = {"shm", "tcp"};
inline const std::vector<std::pair<std::string, std::string>> default_module_options = {{"tcp-progress", "poll"}};
// Its pattern's: every fitted parameter >= 0 (a model LogGOPSim can run; a
// range no such model meets says where it misses).
inline const std::vector<std::pair<std::string, std::string>> default_pattern_options = {{"loggp-negative", "no"}};
inline constexpr const char* default_pattern = "loggp";

Result<Config> parse_command_line(const std::vector<std::string>& arguments, const ModuleRegistry& registry,
                                  const PatternCatalog& patterns);

} // namespace ngx

#endif
