// The `ngx` program (see app.hpp): parse, launch or join the peer, measure,
// report, and turn the outcome into an exit code.
#include "app.hpp"

#include "bash_completion.hpp"
#include "cli.hpp"
#include "error_output.hpp"
#include "interrupt.hpp"
#include "launches.hpp"
#include "listen_server.hpp"
#include "local_group.hpp"
#include "missing_features.hpp"
#include "mpi_bootstrap.hpp"
#include "progress_reporter.hpp"
#include "server_policy.hpp"
#include "session.hpp"
#include "setting_warnings.hpp"
#include "tcp_rendezvous.hpp"
#include "sysinfo.hpp"

#include "ngx_config.h"
#include <ngx/module_support.hpp>
#include <ngx/sizes.hpp>
#include "watchdog.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sys/wait.h>
#include <unistd.h>

namespace ngx {
namespace {

// How long a running forked peer gets, after the run failed, to report its
// own error (often the cause: the driver saw only that the peer left) and exit.
constexpr uint64_t failure_grace_ns = 500'000'000;

// Whether process `pid` is stopped (state T or t in /proc/PID/stat).
bool is_stopped(pid_t pid)
{
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(stat, line);
    size_t end_of_name = line.rfind(')');
    if (end_of_name == std::string::npos || end_of_name + 2 >= line.size())
        return false;
    char state = line[end_of_name + 2];
    return state == 'T' || state == 't';
}

struct Launch {
    std::unique_ptr<Bootstrap> bootstrap;
    std::vector<pid_t> children;                            // the forked ranks, in rank 0 of a local launch
    std::function<std::vector<std::string>()> servers_gone; // LocalGroup::servers_gone
};

// `per_host`: over --listen/--connect the ranks on each host (the client's first).
std::string side_of(const Bootstrap& boot, int per_host)
{
    if (boot.rank() == 0 && boot.name() != "mpi") // under MPI every rank names itself
        return "";
    if (boot.kind() == BootstrapKind::local)
        return "forked peer, rank " + std::to_string(boot.rank());
    if (boot.kind() == BootstrapKind::tcp)
        return (boot.rank() < per_host ? "client, rank " : "server, rank ") + std::to_string(boot.rank());
    return "rank " + std::to_string(boot.rank());
}

// The in-tree modules this build left out (unless another file of that name was found).
void print_not_built(const ModuleListing& listing)
{
    bool header = false;
    for (const MissingFeature& feature : modules_not_built()) {
        bool found = false;
        for (const LoadedModulePtr& module : listing.loaded)
            found = found || module->name() == feature.name;
        if (found)
            continue;
        if (!header)
            std::cout << "Not built:\n";
        header = true;
        std::cout << "  " << feature.name << ": " << feature.how << "\n";
    }
}

int list_modules(const ModuleRegistry& registry)
{
    ModuleListing listing = registry.load_all();
    std::cout << "Modules:\n";
    for (const LoadedModulePtr& module : listing.loaded)
        std::cout << "  " << module->name() << "  " << module->descriptor().description << "  (" << module->path()
                  << ")\n";
    if (listing.loaded.empty())
        std::cout << "  none\n";
    if (!listing.rejected.empty()) {
        std::cout << "Rejected:\n";
        for (const RejectedModule& rejected : listing.rejected)
            std::cout << "  " << rejected.path << ": " << rejected.reason << "\n";
    }
    print_not_built(listing);
    std::cout << "Searched: ";
    for (const std::string& directory : registry.search_path())
        std::cout << directory << " ";
    std::cout << "\n";
    return 0;
}

int list_patterns(const PatternCatalog& catalog)
{
    std::cout << "Patterns:\n";
    for (size_t i = 0; i < catalog.patterns().size(); ++i) {
        const PatternInfo& pattern = *catalog.patterns()[i];
        std::string models;
        for (const ModelKind& kind : pattern.models)
            models += (models.empty() ? "" : ", ") + kind.name;
        std::cout << "  " << pattern.name << "  " << pattern.description
                  << (models.empty() ? "" : "  [models: " + models + "]") << "  (" << catalog.paths()[i] << ")\n";
    }
    if (catalog.patterns().empty())
        std::cout << "  none\n";
    if (!catalog.rejected().empty()) {
        std::cout << "Rejected:\n";
        for (const RejectedPlugin& rejected : catalog.rejected())
            std::cout << "  " << rejected.path << ": " << rejected.reason << "\n";
    }
    std::cout << "Searched: ";
    for (const std::string& directory : catalog.search_path())
        std::cout << directory << " ";
    std::cout << "\n";
    return 0;
}

Bytes pack_arguments(const std::vector<std::string>& arguments)
{
    std::string joined;
    for (const std::string& argument : arguments)
        joined += argument + '\0';
    return to_bytes(joined);
}

Launch launch_of(LocalGroup group)
{
    Launch launch;
    launch.bootstrap = std::move(group.bootstrap);
    launch.children = std::move(group.children);
    launch.servers_gone = std::move(group.servers_gone);
    return launch;
}

// --connect: the server accepts this command line, then each side starts its K ranks.
Result<Launch> join_server(const Config& config)
{
    Result<std::string> secret = config.secret_file.empty() ? std::string() : read_secret_file(config.secret_file);
    if (!secret)
        return secret.status();
    Result<TcpRendezvous> client = tcp_connect(config.connect, config.settings.timeout_ns, *secret);
    if (!client)
        return client.status();
    NGX_TRY(client->propose(pack_arguments(config.arguments)));
    Result<LocalGroup> group = launch_tcp_group(std::move(*client), config.pairs, config.settings.timeout_ns);
    if (!group)
        return group.status();
    return launch_of(std::move(*group));
}

// --connect A:P,B:P,...: a run of more than two hosts. Every server is
// greeted first (version, secret), so that each learns every host's
// address with the command line; then each must accept, and each side
// starts its R ranks (local_group.hpp). Errors name the server.
Result<Launch> join_servers(const Config& config)
{
    Result<std::string> secret = config.secret_file.empty() ? std::string() : read_secret_file(config.secret_file);
    if (!secret)
        return secret.status();
    std::vector<TcpRendezvous> servers;
    std::vector<std::string> hosts{""}; // [0]: this host, as the first server sees it
    for (const std::string& server : config.servers) {
        Result<TcpRendezvous> joined = tcp_connect(server, config.settings.timeout_ns, *secret);
        if (!joined)
            return joined.status().with_context("the server at " + server);
        hosts.push_back(stream_address(joined->control().fd(), true));
        servers.push_back(std::move(*joined));
    }
    hosts[0] = stream_address(servers[0].control().fd(), false);
    for (size_t s = 0; s < servers.size(); ++s)
        NGX_TRY(servers[s]
                    .propose(pack_arguments(config.arguments), RunHosts{int(s + 1), hosts})
                    .with_context("the server at " + config.servers[s]));
    Result<LocalGroup> group =
        launch_star_client(std::move(servers), config.servers, hosts, config.pairs, config.settings.timeout_ns);
    if (!group)
        return group.status();
    return launch_of(std::move(*group));
}

// Launches or joins the peer: --listen, --connect, MPI or a forked local peer.
Result<Launch> start_bootstrap(const Config& config, const Environment& env)
{
    Launch launch;
    if (config.many_hosts())
        return join_servers(config);
    if (!config.connect.empty())
        return join_server(config);
    if (config.bootstrap == BootstrapChoice::mpi ||
        (config.bootstrap == BootstrapChoice::automatic && env.under_mpi_launcher)) {
#if NGX_HAVE_MPI
        Result<std::unique_ptr<Bootstrap>> boot = start_mpi_bootstrap(config.settings.timeout_ns, *config.pattern);
        if (!boot)
            return boot.status();
        launch.bootstrap = std::move(*boot);
        if (config.pairs_given && launch.bootstrap->nranks() != 2 * config.pairs) {
            std::string asked = config.pair_list.empty() ? std::to_string(config.pairs) : config.pair_list;
            return Status::usage("--pairs " + asked + " needs " + std::to_string(2 * config.pairs) +
                                 " ranks; the launcher started " + std::to_string(launch.bootstrap->nranks()) +
                                 " (mpirun -np " + std::to_string(2 * config.pairs) + ")");
        }
        return launch;
#else
        return Status::usage("this ngx was built without MPI: the MPI bootstrap is not available");
#endif
    }
    if (config.pairs > 1) {
        Result<LocalGroup> group = launch_local_group(config.pairs, config.settings.timeout_ns);
        if (!group)
            return group.status();
        return launch_of(std::move(*group));
    }
    Result<LocalLaunch> local = launch_local_peer(config.settings.timeout_ns);
    if (!local)
        return local.status();
    launch.bootstrap = std::move(local->bootstrap);
    if (local->child > 0)
        launch.children.push_back(local->child);
    return launch;
}

Status check_outputs(const Config& config)
{
    for (const OutputSpec& output : config.outputs)
        NGX_TRY(check_writable(output.path));
    for (const opt::OptionSpec& spec : config.pattern->options)
        if (spec.kind == opt::OptionKind::output_file)
            if (const std::string* path = opt::find(config.pattern_options, spec.name); path && !path->empty())
                NGX_TRY(check_writable(*path).with_context("--" + spec.name));
    return Status::ok();
}

// The driving side: check the outputs, then fork a peer or connect to a server.
Result<Launch> drive(const Config& config, const Environment& env)
{
    NGX_TRY(check_outputs(config));
    return start_bootstrap(config, env);
}

// Pins this process (rank r -> cpus[r]) and gathers every rank's placement on rank 0.
// The CPUs the ranks use: --cpus, or for a local launch distinct CPUs of this
// process's affinity, one per rank (spinning modules must never share one);
// with fewer CPUs than ranks none is pinned and rank 0 says so.
std::vector<int> chosen_cpus(const Config& config, const Bootstrap& boot)
{
    if (!config.cpus.empty() || boot.kind() != BootstrapKind::local)
        return config.cpus;
    std::vector<int> allowed = allowed_cpus();
    size_t ranks = size_t(boot.nranks());
    if (allowed.size() < ranks) {
        if (boot.rank() == 0 && ranks > 2)
            std::cerr << "ngx: note: " << ranks << " processes on " << allowed.size()
                      << " CPUs: oversubscribed, none pinned (timings of spinning modules suffer)\n";
        return {};
    }
    allowed.resize(ranks);
    return allowed;
}

Result<Json> place(const Config& config, Bootstrap& boot)
{
    std::vector<int> cpus = chosen_cpus(config, boot);
    // Over --listen / --connect each side's --cpus lists its own ranks.
    size_t index = size_t(boot.kind() == BootstrapKind::tcp ? boot.rank() % config.pairs : boot.rank());
    int requested = -1;
    if (index < cpus.size()) {
        requested = cpus[index];
        NGX_TRY(pin_to_cpu(requested));
    }
    Json mine = placement(boot.rank(), requested);
    mine["pinning"] = config.cpus.empty() ? (requested < 0 ? "none" : "automatic") : "--cpus";
    std::vector<Bytes> all;
    NGX_TRY(boot.gather(to_bytes(mine.dump()), all, "placement"));
    Json placements = Json::array();
    for (const Bytes& one : all)
        placements.push_back(Json::parse(to_string(one), nullptr, false));
    return placements;
}

std::vector<std::unique_ptr<Reporter>> make_reporters(const Config& config, const Environment& env, bool reporting)
{
    std::vector<std::unique_ptr<Reporter>> reporters;
    if (!reporting)
        return reporters;
    if (!config.stdout_format)
        reporters.push_back(std::make_unique<TableReporter>(std::cout, config.pattern->run_tables));
    if (env.stderr_is_terminal)
        reporters.push_back(std::make_unique<ProgressReporter>(config.settings.sizes.size()));
    for (const OutputSpec& output : config.outputs)
        reporters.push_back(make_file_reporter(output.path, output.format, config.settings.keep_raw));
    if (config.pattern->reporters)
        for (auto& reporter : config.pattern->reporters(config.pattern_options))
            reporters.push_back(std::move(reporter));
    return reporters;
}

Json run_context(const Config& config, const Timer& timer, const Bootstrap& boot, Json placements)
{
    const TimerInfo& info = timer.info();
    Json context = machine_context();
    context["ngx_version"] = NGX_VERSION;
    context["module_abi"] = NGX_MODULE_ABI_MAJOR;
    context["timer"] = {
        {"source", info.source},           {"ticks_per_us", info.ticks_per_us},   {"resolution_ns", info.resolution_ns},
        {"overhead_ns", info.overhead_ns}, {"invariant_tsc", info.invariant_tsc}, {"reason", info.reason}};
    context["bootstrap"] = {{"kind", boot.name()}, {"ranks", boot.nranks()}};
    context["placement"] = std::move(placements);
    // What the stated intervals cover: --launches K gives intervals between launches (ngx launches).
    context["interval_scope"] = "within one launch";
    context["command_line"] = config.arguments;
    context["module_versions"] = Json::object();
    for (const ModuleChoice& choice : config.modules)
        if (const char* version = choice.module->descriptor().version)
            context["module_versions"][choice.module->name()] = version;
#if NGX_HAVE_MPI
    context["mpi_library"] = mpi_library_version();
#endif
    return context;
}

// What setting_warnings.hpp found, on stderr (the output files carry it too).
void print_warnings(const Document& document)
{
    if (document.context.contains("warnings"))
        for (const Json& warning : document.context["warnings"])
            std::cerr << "ngx: warning: " << warning.get<std::string>() << "\n";
}

// Prints the whole document to stdout in the format --format asked for.
void print_document(const Config& config, const Document& document)
{
    if (config.stdout_format == OutputFormat::json)
        std::cout << to_json(document, config.settings.keep_raw).dump(2) << "\n";
    else if (config.stdout_format == OutputFormat::csv)
        std::cout << to_csv(document);
}

Status measure(const Config& config, Bootstrap& boot, const InterruptGuard& guard, const Environment& env)
{
    Result<Json> placements = place(config, boot);
    if (!placements)
        return placements.status();
    // After pinning: whether a TSC without the invariant flag may time this
    // thread depends on it staying on one CPU (timer.hpp).
    Result<Timer> timer = Timer::calibrate(config.timer);
    if (!timer)
        return timer.status();
    bool reporting = boot.rank() == 0;
    std::vector<std::unique_ptr<Reporter>> reporters = make_reporters(config, env, reporting);
    // With 2k ranks the driver of each pair shows its own table; a layout pattern reports on rank 0 only.
    if (!reporting && boot.is_driver() && config.pattern->layouts.empty())
        reporters.push_back(std::make_unique<TableReporter>(std::cout));
    Session session(config, boot, *timer, guard.flag(), std::move(reporters),
                    run_context(config, *timer, boot, *placements));
    Status status;
    { // a blocking call that never returns cannot hang the job: see watchdog.hpp
        Watchdog watchdog(session.progress(), config.settings.timeout_ns, guard.flag(), watchdog_side(boot),
                          [&](const std::string& report, bool cut) { end_stuck_job(session, boot, report, cut); });
        status = session.run_all();
    }
    Status written = session.close();
    if (reporting) {
        print_document(config, session.document());
        print_warnings(session.document());
    }
    return status.is_ok() ? written : status;
}

// The peers' outcome joins the driver's: a failed peer fails the run. After a
// failure a peer may be dead, stopped or stuck: a stopped one is killed at
// once, a running one gets half a second to report its own error and exit
// before it is killed, so the deadline is never spent twice. After Ctrl-C it
// gets SIGTERM (and SIGCONT, should it be stopped) and a moment to finish.
// `first` is the rank of the process that forked them: they are ranks first + 1, ...
Status finish_local_peers(const std::vector<pid_t>& children, int first, Status status, uint64_t timeout_ns)
{
    uint64_t grace_ns = timeout_ns;
    for (pid_t child : children) {
        if (status.kind() == ErrorKind::interrupted) {
            kill(child, SIGTERM);
            kill(child, SIGCONT);
            grace_ns = interrupt_grace_ns;
        } else if (!status.is_ok()) {
            if (is_stopped(child))
                kill(child, SIGKILL);
            grace_ns = failure_grace_ns;
        }
    }
    for (size_t i = 0; i < children.size(); ++i) {
        int code = reap_local_peer(children[i], grace_ns);
        if (status.is_ok() && code != 0)
            status = Status::runtime("the peer process (rank " + std::to_string(first + int(i) + 1) +
                                     ") failed with exit code " + std::to_string(code));
    }
    return status;
}

// --plot: each -o FILE.json drawn as FILE.png by the `ngx plot` command.
Status draw_figures(const Config& config, const CommandCatalog& commands, const PatternCatalog& patterns)
{
    for (const CommandInfo& command : commands)
        if (command.name == "plot")
            for (const OutputSpec& output : config.outputs)
                if (output.format == OutputFormat::json && command.run({output.path}, patterns) != 0)
                    return Status::runtime("--plot: drawing " + output.path + " failed (see above)");
    return Status::ok();
}

// Measures with the launched ranks, then ends the peers: the exit code of the run.
int measure_and_finish(const Config& config, Launch& launch, const InterruptGuard& guard, const Environment& env,
                       const CommandCatalog& commands, const PatternCatalog& patterns)
{
    Bootstrap& boot = *launch.bootstrap;
    Status status = measure(config, boot, guard, env);
    if (guard.raised() && status.is_ok())
        status = Status::interrupted();
    // A forked peer stays quiet about usage errors: its leader found the same ones.
    bool forked_peer = boot.kind() == BootstrapKind::local ? boot.rank() != 0
                       : boot.kind() == BootstrapKind::tcp ? boot.rank() % config.pairs != 0
                                                           : false;
    print_error(status, side_of(boot, config.pairs), forked_peer && status.kind() == ErrorKind::usage);
    if (!status && launch.servers_gone) // which host left a run of more than two hosts
        for (const std::string& server : launch.servers_gone())
            print_error(Status::runtime(server + " left the run (its connection closed)"), "", false);
    Status final_status = finish_local_peers(launch.children, boot.rank(), status, config.settings.timeout_ns);
    if (status.is_ok() && !final_status.is_ok())
        print_error(final_status, "", false);
    if (final_status.is_ok() && boot.rank() == 0 && config.plot) {
        final_status = draw_figures(config, commands, patterns);
        print_error(final_status, "", false);
    }
#if NGX_HAVE_MPI
    finish_mpi_bootstrap(boot, exit_code(final_status)); // MPI_Abort on failure: a peer in MPI cannot hang the job
#endif
    return exit_code(final_status);
}

// --launches K: K separate launches into a scratch directory, then the
// `ngx launches` command over their files (launches.hpp).
int run_launched(const Config& config, const PatternCatalog& patterns, const CommandCatalog& commands,
                 const Environment& env)
{
    if (env.under_mpi_launcher) {
        print_error(Status::usage("--launches repeats a local run; under mpirun/srun run the job K times with -o "
                                  "and summarise the files with ngx launches A.json B.json ..."),
                    "", false);
        return 2;
    }
    std::string scratch = (std::filesystem::temp_directory_path() / "ngx-launches-XXXXXX").string();
    if (mkdtemp(scratch.data()) == nullptr) {
        print_error(Status::runtime("--launches: cannot make a scratch directory in " +
                                    std::filesystem::temp_directory_path().string()),
                    "", false);
        return 1;
    }
    Result<std::vector<std::string>> files = run_launches(config, env.executable, scratch);
    int code = exit_code(files.status());
    if (files) {
        std::vector<std::string> arguments = *files;
        for (const OutputSpec& output : config.outputs)
            arguments.insert(arguments.end(), {"-o", output.path});
        for (const CommandInfo& command : commands)
            if (command.name == "launches")
                code = command.run(arguments, patterns);
    } else {
        print_error(files.status(), "", false);
    }
    std::error_code ignored;
    std::filesystem::remove_all(scratch, ignored);
    return code;
}

int run(const Config& parsed, const ModuleRegistry& registry, const PatternCatalog& patterns,
        const CommandCatalog& commands, const Environment& env)
{
    if (parsed.launches > 0)
        return run_launched(parsed, patterns, commands, env);
    InterruptGuard guard;
    if (!parsed.listen.empty())
        return run_server(parsed, registry, patterns, guard, [&](const Config& agreed, LocalGroup group) {
            Launch launch = launch_of(std::move(group));
            return measure_and_finish(agreed, launch, guard, env, commands, patterns);
        });
    Config config = parsed;
    Result<Launch> launch = drive(config, env);
    if (!launch) {
        print_error(launch.status(), "", false);
        return exit_code(launch.status());
    }
    return measure_and_finish(config, *launch, guard, env, commands, patterns);
}

} // namespace

Environment Environment::current()
{
    Environment env;
    std::error_code error;
    env.executable = std::filesystem::read_symlink("/proc/self/exe", error).string();
    if (const char* path = std::getenv("NGX_MODULE_PATH"))
        env.module_path = path;
    if (const char* path = std::getenv("NGX_PATTERN_PATH"))
        env.pattern_path = path;
    env.stdout_is_terminal = isatty(STDOUT_FILENO) != 0;
    env.stderr_is_terminal = isatty(STDERR_FILENO) != 0;
    for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_STEP_NUM_TASKS"})
        env.under_mpi_launcher = env.under_mpi_launcher || std::getenv(variable) != nullptr;
    return env;
}

std::vector<std::string> arguments_of(int argc, char** argv)
{
    return std::vector<std::string>(argv + 1, argv + argc);
}

int run_ngx(const std::vector<std::string>& arguments, const CommandCatalog& commands, const Environment& env)
{
    PatternCatalog patterns = PatternCatalog::load(
        pattern_search_path(env.pattern_path.empty() ? nullptr : env.pattern_path.c_str(), env.executable));
    if (!arguments.empty())
        for (const CommandInfo& command : commands)
            if (arguments.front() == command.name)
                return command.run(std::vector<std::string>(arguments.begin() + 1, arguments.end()), patterns);
    ModuleRegistry registry(
        module_search_path(env.module_path.empty() ? nullptr : env.module_path.c_str(), env.executable));
    Result<Config> config = parse_command_line(arguments, registry, patterns);
    if (!config) {
        std::cerr << "ngx: " << config.status().message() << "\n";
        return exit_code(config.status());
    }
    switch (config->action) {
    case Action::help:
        std::cout << config->help_text;
        return 0;
    case Action::version:
        std::cout << "ngx " << NGX_VERSION << " (module ABI " << NGX_MODULE_ABI_MAJOR << "." << NGX_MODULE_ABI_MINOR
                  << ")\n";
        return 0;
    case Action::list_modules:
        return list_modules(registry);
    case Action::list_patterns:
        return list_patterns(patterns);
    case Action::completion: {
        std::vector<std::string> names;
        for (const CommandInfo& command : commands)
            names.push_back(command.name);
        std::cout << bash_completion(registry, patterns, names);
        return 0;
    }
    case Action::run:
        break;
    }
    return run(*config, registry, patterns, commands, env);
}

} // namespace ngx
