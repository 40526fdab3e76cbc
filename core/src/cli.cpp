// Two-pass command-line parsing (see cli.hpp).
#include "cli.hpp"

#include "option_group.hpp"
#include "plan.hpp"

#include <ngx/command_line.hpp>
#include <ngx/options.hpp>
#include <ngx/sizes.hpp>

#include <sched.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

namespace ngx {
namespace {

constexpr uint64_t max_count = 10'000'000;
constexpr double max_timeout_s = 86400;
constexpr uint64_t max_local_pairs = 512;
constexpr uint64_t max_retries = 1'000'000; // per size: each costs a loss timeout and a bootstrap round trip

using opt::split_list;

Status bad_value(const std::string& option, const std::string& value, const std::string& why)
{
    return Status::usage(opt::bad_value(option, value, why));
}

template <typename T>
Result<T> usage_or(opt::Parsed<T> parsed)
{
    if (!parsed)
        return Status::usage(parsed.error);
    return *parsed;
}

Result<uint64_t> parse_count(const std::string& option, const std::string& text, uint64_t min, uint64_t max)
{
    return usage_or(opt::whole_number(option, text, min, max));
}

Result<double> parse_number(const std::string& option, const std::string& text, double min, double max)
{
    return usage_or(opt::number(option, text, min, max));
}

po::options_description general_options()
{
    po::options_description general("General options");
    // clang-format off
    general.add_options()
        ("help,h", "show this help; with -m and -x also their options")
        ("version", "print the version")
        ("list-modules", "list the modules found, and the files rejected with the reason")
        ("list-patterns", "list the patterns")
        ("module,m", po::value<std::string>(), "module(s) to measure, comma-separated (default: shm,tcp, tcp polled)")
        ("pattern,x", po::value<std::string>(), "pattern to run (default: loggp)")
        ("sizes,s", po::value<std::string>(), "message sizes: 1-64Ki, 1,8,64,4K, 0-1M (K=1000, Ki=1024, M, Mi, G, Gi)")
        ("grade", po::value<std::string>(), "geometric factor between sizes of a range (default 2)")
        ("step", po::value<std::string>(), "linear step between sizes of a range, bytes (instead of --grade)")
        ("count,c", po::value<std::string>(), "samples kept per size (default: the pattern's, 1000 for pingpong)")
        ("warmup", po::value<std::string>(), "samples discarded per size before those (default: the pattern's)")
        ("timeout", po::value<std::string>()->default_value("10"), "deadline of every blocking step, seconds")
        ("max-loss", po::value<std::string>()->default_value("50"),
         "lossy modules (udp): the share of a size's repetitions, percent, that may lose a message and be "
         "retried; beyond, the run fails (e.g. 50 or 50%)")
        ("retries", po::value<std::string>(),
         "lossy modules (udp): an absolute cap on the repetitions per size that may lose a message (default: none)")
        ("passes", po::value<std::string>(),
         "split each size's repetitions into N passes over all sizes, measured round-robin (default: 4, fewer "
         "when -c leaves a pass under 25 repetitions)")
        ("max-rel-ci", po::value<std::string>()->default_value("5"),
         "measure a size again (a few extra passes) while its 95% interval of the median is wider than this "
         "percentage of the median (e.g. 5 or 5%; off: never); with --adaptive, the stopping rule")
        ("adaptive",
         "stop measuring each size once its 95% interval of the median is within --max-rel-ci of the median "
         "(-c becomes a cap; see also --max-size-time)")
        ("max-size-time", po::value<std::string>()->default_value("10"),
         "with --adaptive: seconds of measuring after which a size stops even if its interval is still wide")
        ("launches", po::value<std::string>(),
         "repeat the whole measurement K times (K >= 2) as separate local launches, varying the CPU pair where "
         "more than 2 CPUs exist, and state 95% intervals between the launches (ngx launches)")
        ("verify", "fill every payload with a pattern and check it on receipt (outside the timed region)")
        ("cpus", po::value<std::string>(), "pin rank r to CPU r of this list, e.g. 0,1")
        ("host-of", po::value<std::string>(),
         "the host of each rank, for emulated nodes that share one host name: names separated by commas (rank i "
         "on the i-th) or @FILE (one name a line, # comments); default: each rank's own host name")
        ("pairs", po::value<std::string>(),
         "pairs of processes, K or a list (1,2,4,8: K is the largest, nodecomm measures k = each listed count): "
         "the local launch starts 2K (rank i with rank K+i); --connect starts K on each side (a --listen server "
         "given it checks it is the client's); under mpirun/srun the ranks must be 2K (default: 1 locally, all "
         "ranks under a launcher)")
        ("strides", po::value<std::string>(),
         "strides in elements for the patterns that send strided data, e.g. 1,16,64 (-x strided: "
         "--strided-strides, -x bcast: --bcast-strides)")
        ("raw", "keep every sample in the JSON output")
        ("buffer-offset", po::value<std::string>(),
         "start every message buffer this many bytes past a page boundary, 0 to the page size - 1 (default: "
         "where the module's alloc puts it); the page offset moves copy-bound transfers (docs/usage.md, Buffers)")
        ("plot", "draw each -o FILE.json as FILE.png afterwards (as ngx plot does)")
        ("timer", po::value<std::string>()->default_value("auto"), "auto, tsc or clock")
        ("listen", po::value<std::string>(), "wait for a peer on [ADDR:]PORT (TCP rendezvous)")
        ("connect", po::value<std::string>(),
         "run against a peer started with --listen at HOST:PORT; a list HOST:PORT,HOST:PORT,... joins this host "
         "and every server in one run of layout patterns (ranks 0..R-1 here, then each server's in list order)")
        ("ranks-per-host", po::value<std::string>(),
         "with --connect of two or more servers: R ranks on every host, (servers + 1) x R in all (default: 1; "
         "two hosts take --pairs K)")
        ("accept-timeout", po::value<std::string>()->default_value("300"), "seconds --listen waits for a peer")
        ("bootstrap", po::value<std::string>()->default_value("auto"), "auto, local, tcp or mpi");
    // clang-format on
    return general;
}

// What a --listen server lets its clients do (server_policy.hpp); defaults from ServerLimits.
po::options_description server_options()
{
    po::options_description server("Server options (--listen; --secret-file on both sides)");
    // clang-format off
    server.add_options()
        ("allow", po::value<std::string>(),
         "accept clients only from these networks, CIDR[,CIDR], e.g. 10.1.0.0/16,::1 (default: any address)")
        ("secret-file", po::value<std::string>(),
         "a shared secret (a file of 16+ bytes, mode 600) both sides must hold: each proves it by a challenge, "
         "it never crosses the network")
        ("serve", po::value<std::string>()->default_value("1"),
         "serve N good clients one after another, or 'forever'; bad clients are dropped and do not count")
        ("max-pairs", po::value<std::string>()->default_value("16"), "the largest --pairs a client may ask for")
        ("max-timeout", po::value<std::string>()->default_value("60"),
         "the largest --timeout, seconds, a client may ask for")
        ("max-size", po::value<std::string>()->default_value("64Mi"),
         "the largest message size a client may ask for (K, Ki, M, Mi, G, Gi)")
        ("max-count", po::value<std::string>()->default_value("1000000"),
         "the largest -c / --warmup a client may ask for");
    // clang-format on
    return server;
}

// The server options: only with --listen (a client's proposal carrying one is refused).
Status read_server_options(const po::variables_map& values, Config& config)
{
    if (values.count("secret-file")) {
        config.secret_file = values["secret-file"].as<std::string>();
        if (config.secret_file.empty())
            return Status::usage("--secret-file: empty file name");
        if (config.listen.empty() && config.connect.empty())
            return Status::usage(
                "--secret-file is for --listen and --connect (a local run has no stranger to keep out)");
    }
    config.timeout_given = !values["timeout"].defaulted();
    config.accept_timeout_given = !values["accept-timeout"].defaulted();
    for (const char* name : {"allow", "serve", "max-pairs", "max-timeout", "max-size", "max-count"})
        if (config.listen.empty() && values.count(name) && !values[name].defaulted())
            return Status::usage(std::string("--") + name + " is an option of the server (--listen)");
    ServerPolicy& policy = config.policy;
    if (values.count("allow")) {
        Result<std::vector<Cidr>> allow = parse_cidrs(values["allow"].as<std::string>());
        if (!allow)
            return allow.status();
        policy.allow = std::move(*allow);
    }
    std::string serve = values["serve"].as<std::string>();
    if (serve == "forever") {
        policy.serve = 0;
    } else {
        Result<uint64_t> count = usage_or(opt::whole_number("serve", serve, 1, 1'000'000'000));
        if (!count)
            return bad_value("serve", serve, "expected a number of clients (1 or more) or 'forever'");
        policy.serve = *count;
    }
    Result<uint64_t> pairs = parse_count("max-pairs", values["max-pairs"].as<std::string>(), 1, max_local_pairs);
    Result<double> timeout = parse_number("max-timeout", values["max-timeout"].as<std::string>(), 0.001, max_timeout_s);
    Result<uint64_t> size =
        usage_or(opt::byte_count("max-size", values["max-size"].as<std::string>(), 0, max_message_bytes));
    Result<uint64_t> count = parse_count("max-count", values["max-count"].as<std::string>(), 1, max_count);
    for (const Status& status : {pairs.status(), timeout.status(), size.status(), count.status()})
        NGX_TRY(status);
    policy.limits = {*pairs, uint64_t(*timeout * 1e9), *size, *count};
    return Status::ok();
}

// The command line without --secret-file, as a --connect client sends it to
// the server (and the JSON records it): the file's name stays on this host.
std::vector<std::string> forwarded_arguments(const po::parsed_options& parsed)
{
    std::vector<std::string> arguments;
    for (const po::option& option : parsed.options)
        if (option.string_key != "secret-file")
            arguments.insert(arguments.end(), option.original_tokens.begin(), option.original_tokens.end());
    return arguments;
}

// What each launch of --launches runs: the command line without --launches
// and what the parent decides per launch (-o, --format, --plot, --cpus).
std::vector<std::string> launch_arguments(const po::parsed_options& parsed)
{
    std::vector<std::string> arguments;
    for (const po::option& option : parsed.options)
        if (option.string_key != "launches" && option.string_key != "output" && option.string_key != "format" &&
            option.string_key != "plot" && option.string_key != "cpus")
            arguments.insert(arguments.end(), option.original_tokens.begin(), option.original_tokens.end());
    return arguments;
}

// --launches K: 2..1000, a local run only, results to JSON files (the summary's format).
Status read_launches(const po::variables_map& values, Config& config)
{
    if (!values.count("launches"))
        return Status::ok();
    std::string text = values["launches"].as<std::string>();
    Result<uint64_t> launches = parse_count("launches", text, 2, 1000);
    if (!launches)
        return launches.status();
    if (!config.listen.empty() || !config.connect.empty() || config.bootstrap == BootstrapChoice::mpi)
        return Status::usage("--launches repeats a local run; over --listen/--connect or MPI, run the job K times "
                             "with -o and summarise the files with ngx launches A.json B.json ...");
    for (const OutputSpec& output : config.outputs)
        if (output.format != OutputFormat::json)
            return bad_value("output", output.path, "with --launches the results are a JSON summary: give FILE.json");
    if (config.outputs.size() > 1)
        return Status::usage("--launches writes one JSON summary: give -o FILE.json once");
    if (config.plot)
        return Status::usage("--plot draws one launch; with --launches plot a launch's document from the summary");
    if (config.stdout_format)
        return Status::usage(
            "--format without -o: with --launches the summary prints as a table (or give -o FILE.json)");
    config.launches = *launches;
    return Status::ok();
}

constexpr size_t help_columns = 80; // `ngx --help` fits an 80-column terminal

// A group title broken into lines of at most help_columns, indented after the first.
std::string wrapped_title(const std::string& text)
{
    std::istringstream words(text);
    std::string title, line, word;
    while (words >> word) {
        if (!line.empty() && line.size() + 1 + word.size() >= help_columns) { // Boost adds a colon
            title += line + "\n";
            line = "  ";
        }
        line += (line.empty() || line == "  " ? "" : " ") + word;
    }
    return title + line;
}

std::vector<opt::OptionSpec> module_specs(const ngx_module& descriptor)
{
    std::vector<opt::OptionSpec> specs;
    for (size_t i = 0; i < descriptor.option_count; ++i) {
        const ngx_option_spec& spec = descriptor.options[i];
        specs.push_back({spec.name, spec.default_value ? spec.default_value : "", spec.help ? spec.help : "",
                         opt::OptionKind::value, spec.default_value != nullptr});
    }
    return specs;
}

po::options_description module_options(const LoadedModule& module)
{
    const ngx_module& descriptor = module.descriptor();
    return option_group(wrapped_title("Module " + module.name() + ": " + descriptor.description),
                        module_specs(descriptor));
}

po::options_description pattern_options(const PatternInfo& pattern)
{
    return option_group(wrapped_title("Pattern " + pattern.name + ": " + pattern.description), pattern.options);
}

// First pass: which modules and which pattern, ignoring everything else.
Result<po::variables_map> first_pass(const std::vector<std::string>& arguments)
{
    po::options_description selection;
    selection.add_options()("module,m", po::value<std::string>())("pattern,x", po::value<std::string>())("help,h", "")(
        "listen", po::value<std::string>());
    po::variables_map values;
    try {
        auto parsed = po::command_line_parser(arguments).options(selection).allow_unregistered().run();
        po::store(parsed, values);
    } catch (const po::error& error) {
        return Status::usage(error.what());
    }
    return values;
}

Result<std::vector<ModuleChoice>> load_modules(const po::variables_map& first, const ModuleRegistry& registry)
{
    std::vector<std::string> names = default_modules;
    if (first.count("module"))
        names = split_list(first["module"].as<std::string>());
    if (names.empty())
        return Status::usage("-m/--module: no module named (see ngx --list-modules)");
    std::vector<ModuleChoice> modules;
    for (const std::string& name : names) {
        if (name.empty())
            return Status::usage("-m/--module: empty module name in '" + first["module"].as<std::string>() + "'");
        Result<LoadedModulePtr> module = registry.load(name);
        if (!module)
            return module.status();
        modules.push_back({*module, {}, ""});
    }
    return modules;
}

// "--sim-L, --sim-os": the long names of a group of options, or "none".
std::string option_list(const po::options_description& group)
{
    std::string list;
    for (const auto& option : group.options())
        list += (list.empty() ? "--" : ", --") + option->long_name();
    return list.empty() ? "none" : list;
}

// Edits (insertions, deletions, substitutions) that turn a into b.
size_t edit_distance(const std::string& a, const std::string& b)
{
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

// " (did you mean '--loggp-n'?)" for the long name of `group` nearest to
// `bare` when it is a likely typo (at most 2 edits, or a quarter of the
// name), else "".
std::string closest_option_hint(const std::string& bare, const po::options_description& group)
{
    std::string best;
    size_t best_distance = std::max<size_t>(2, bare.size() / 4) + 1;
    for (const auto& option : group.options()) {
        size_t distance = edit_distance(bare, option->long_name());
        if (distance < best_distance) {
            best_distance = distance;
            best = option->long_name();
        }
    }
    return best.empty() ? std::string() : " (did you mean '--" + best + "'?)";
}

// "--tcp-port" given with -m shm: say whose option it is. "--sim-O" given
// with -m sim: say that sim has no such option and list the ones it has.
Status explain_unknown_option(const std::string& option, const Config& config, const ModuleRegistry& registry,
                              const PatternCatalog& patterns, const po::options_description& selected)
{
    const size_t name_start = option.find_first_not_of('-'); // npos: dashes only ("----")
    const std::string bare = name_start == std::string::npos ? std::string() : option.substr(name_start);
    for (const ModuleChoice& choice : config.modules)
        if (bare.starts_with(choice.module->name() + "-")) {
            po::options_description own = module_options(*choice.module);
            return Status::usage("option '" + option + "' is unknown to module '" + choice.module->name() + "'" +
                                 closest_option_hint(bare, own) + " (its options: " + option_list(own) + ")");
        }
    if (config.pattern != nullptr && bare.starts_with(config.pattern->name + "-")) {
        po::options_description own = pattern_options(*config.pattern);
        return Status::usage("option '" + option + "' is unknown to pattern '" + config.pattern->name + "'" +
                             closest_option_hint(bare, own) + " (its options: " + option_list(own) + ")");
    }
    for (const std::string& name : registry.names())
        if (bare.starts_with(name + "-"))
            return Status::usage("option '" + option + "' belongs to module '" + name +
                                 "', which is not selected (add it with -m)");
    auto declares = [&](const PatternInfo& pattern) {
        for (const opt::OptionSpec& spec : pattern.options)
            if (spec.name == bare)
                return true;
        return bare.starts_with(pattern.name + "-");
    };
    std::vector<std::string> owners;
    for (const PatternInfo* pattern : patterns.patterns())
        if (declares(*pattern))
            owners.push_back(pattern->name);
    if (owners.size() == 1)
        return Status::usage("option '" + option + "' belongs to pattern '" + owners[0] +
                             "', which is not selected (-x " + owners[0] + ")");
    if (!owners.empty()) {
        std::string names;
        for (const std::string& name : owners)
            names += (names.empty() ? "'" : ", '") + name + "'";
        return Status::usage("option '" + option + "' belongs to patterns " + names + ", none of them selected (-x)");
    }
    return Status::usage("unknown option '" + option + "'" + closest_option_hint(bare, selected) + " (see ngx --help)");
}

Status read_sizes(const po::variables_map& values, const PatternInfo& pattern, RunSettings& settings)
{
    StepRule rule;
    if (values.count("grade") && values.count("step"))
        return Status::usage("--grade and --step exclude each other: give one");
    if (values.count("grade")) {
        Result<double> grade = parse_number("grade", values["grade"].as<std::string>(), 1.0001, 1024);
        if (!grade)
            return grade.status();
        rule = StepRule::geometric(*grade);
    }
    if (values.count("step")) {
        Result<uint64_t> step = parse_count("step", values["step"].as<std::string>(), 1, max_message_bytes);
        if (!step)
            return step.status();
        rule = StepRule::linear(*step);
    }
    std::string text = values.count("sizes") ? values["sizes"].as<std::string>() : pattern.default_sizes;
    Result<std::vector<uint64_t>> sizes = parse_sizes(text, rule);
    if (!sizes)
        return Status::usage("-s/--sizes: " + sizes.status().message());
    settings.sizes = std::move(*sizes);
    return Status::ok();
}

// --max-loss PCT[%] (relative, always) and --retries N (absolute, when given).
Status read_loss_budget(const po::variables_map& values, RunSettings& settings)
{
    Result<double> max_loss = usage_or(opt::percentage("max-loss", values["max-loss"].as<std::string>()));
    if (!max_loss)
        return max_loss.status();
    settings.max_loss = *max_loss / 100;
    if (!values.count("retries"))
        return Status::ok();
    Result<uint64_t> retries = parse_count("retries", values["retries"].as<std::string>(), 0, max_retries);
    if (!retries)
        return retries.status();
    settings.retries = *retries;
    return Status::ok();
}

// --adaptive (not with --max-rel-ci off: it would stop at once, nor with
// --passes: it chooses its own) and --max-size-time S (> 0).
Status read_adaptive(const po::variables_map& values, bool ci_off, RunSettings& settings)
{
    settings.adaptive = values.count("adaptive") > 0;
    if (!settings.adaptive) {
        if (!values["max-size-time"].defaulted())
            return Status::usage("--max-size-time is the time cap of --adaptive; give --adaptive as well");
        return Status::ok();
    }
    if (ci_off)
        return Status::usage("--adaptive stops a size when its interval is within --max-rel-ci; "
                             "--max-rel-ci off leaves it no rule (give a percentage)");
    if (values.count("passes"))
        return Status::usage("--adaptive measures in short passes of its own; leave out --passes");
    std::string text = values["max-size-time"].as<std::string>();
    Result<double> seconds = parse_number("max-size-time", text, 1e-3, 86400);
    if (!seconds)
        return seconds.status();
    settings.max_size_ns = uint64_t(*seconds * 1e9);
    return Status::ok();
}

// --passes N (1..-c; absent: automatic) and --max-rel-ci PCT (> 0, or off).
Status read_passes(const po::variables_map& values, RunSettings& settings)
{
    // "off": no size is ever wide enough to be measured again (the largest value accepted).
    const std::string max_rel_ci_text = values["max-rel-ci"].as<std::string>();
    Result<double> max_rel_ci =
        usage_or(opt::percentage("max-rel-ci", max_rel_ci_text == "off" ? "1e6" : max_rel_ci_text, 0, 1e6));
    if (!max_rel_ci)
        return max_rel_ci.status();
    if (!(*max_rel_ci > 0))
        return bad_value("max-rel-ci", values["max-rel-ci"].as<std::string>(),
                         "expected a percentage above 0 (the widest interval of the median to accept)");
    settings.max_rel_ci = *max_rel_ci / 100;
    NGX_TRY(read_adaptive(values, max_rel_ci_text == "off", settings));
    if (!values.count("passes"))
        return Status::ok();
    std::string text = values["passes"].as<std::string>();
    Result<uint64_t> passes = parse_count("passes", text, 1, max_count);
    if (!passes)
        return passes.status();
    if (*passes > settings.count)
        return bad_value("passes", text,
                         "more passes than samples per size (-c " + std::to_string(settings.count) +
                             "): each pass keeps at least one");
    settings.passes = *passes;
    return Status::ok();
}

Status read_settings(const po::variables_map& values, const PatternInfo& pattern, RunSettings& settings)
{
    NGX_TRY(read_sizes(values, pattern, settings));
    std::string count_text =
        values.count("count") ? values["count"].as<std::string>() : std::to_string(pattern.default_count);
    std::string warmup_text =
        values.count("warmup") ? values["warmup"].as<std::string>() : std::to_string(pattern.default_warmup);
    Result<uint64_t> count = parse_count("count", count_text, 1, max_count);
    if (!count)
        return count.status();
    Result<uint64_t> warmup = parse_count("warmup", warmup_text, 0, max_count);
    if (!warmup)
        return warmup.status();
    Result<double> timeout = parse_number("timeout", values["timeout"].as<std::string>(), 0.001, max_timeout_s);
    if (!timeout)
        return timeout.status();
    settings.count = *count;
    settings.warmup = *warmup;
    settings.timeout_ns = uint64_t(*timeout * 1e9);
    NGX_TRY(read_loss_budget(values, settings));
    NGX_TRY(read_passes(values, settings));
    settings.keep_raw = values.count("raw") > 0;
    settings.verify = values.count("verify") > 0;
    if (values.count("host-of")) {
        settings.host_of = values["host-of"].as<std::string>();
        if (settings.host_of.empty() || settings.host_of == "@")
            return Status::usage("--host-of: give host names separated by commas, or @FILE");
    }
    return Status::ok();
}

Result<std::vector<int>> read_cpus(const po::variables_map& values)
{
    std::vector<int> cpus;
    if (!values.count("cpus"))
        return cpus;
    std::string text = values["cpus"].as<std::string>();
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    sched_getaffinity(0, sizeof allowed, &allowed);
    for (const std::string& item : split_list(text)) {
        Result<uint64_t> cpu = parse_count("cpus", item, 0, CPU_SETSIZE - 1);
        if (!cpu)
            return bad_value("cpus", text, "expected CPU numbers such as 0,1");
        if (!CPU_ISSET(int(*cpu), &allowed))
            return bad_value("cpus", text, "CPU " + item + " is not available to this process");
        cpus.push_back(int(*cpu));
    }
    if (cpus.size() < 2)
        return bad_value("cpus", text, "give one CPU per side, e.g. 0,1");
    return cpus;
}

Status read_outputs(const po::variables_map& values, Config& config)
{
    OutputChoice choice;
    NGX_TRY(read_output_choice(values_of(values, output_option_specs()), choice));
    config.outputs = std::move(choice.files);
    config.stdout_format = choice.stdout_format;
    config.settings.percentiles = std::move(choice.percentiles);
    return Status::ok();
}

// --buffer-offset B: the buffers' page offset (TransportSettings::buffer_offset).
Status read_buffer_offset(const po::variables_map& values, Config& config)
{
    if (!values.count("buffer-offset"))
        return Status::ok();
    Result<uint64_t> offset =
        parse_count("buffer-offset", values["buffer-offset"].as<std::string>(), 0, uint64_t(page_size()) - 1);
    if (!offset)
        return offset.status();
    config.buffer_offset = size_t(*offset);
    return Status::ok();
}

// The main job's own defaults (default_module_options) for the options the user left at the module's.
void apply_main_job_defaults(const po::variables_map& values, OptionValues& options)
{
    for (const auto& [name, value] : default_module_options)
        for (auto& [option, text] : options)
            if (option == name && (!values.count(name) || values[name].defaulted()))
                text = value;
}

Status read_plot(const po::variables_map& values, Config& config)
{
    config.plot = values.count("plot") > 0;
    for (const OutputSpec& output : config.outputs)
        if (output.format == OutputFormat::json)
            return Status::ok();
    if (config.plot)
        return Status::usage("--plot draws the run from its JSON file: give -o FILE.json too");
    return Status::ok();
}

// --pairs K, or --pairs LIST (1,2,4,8): K = the largest count, LIST kept for the pattern.
Status read_pairs(const std::string& text, Config& config)
{
    std::vector<std::string> items = split_list(text);
    if (items.size() == 1) {
        Result<uint64_t> pairs = parse_count("pairs", text, 1, max_local_pairs);
        if (!pairs)
            return pairs.status();
        config.pairs = int(*pairs);
    } else {
        uint64_t largest = 0;
        for (const std::string& item : items) {
            opt::Parsed<uint64_t> k = opt::whole_number("pairs", item, 1, max_local_pairs);
            if (!k)
                return bad_value("pairs", text,
                                 "expected a pair count K (1.." + std::to_string(max_local_pairs) +
                                     ") or a list of them such as 1,2,4,8; '" + item + "' is not one");
            largest = std::max(largest, *k);
        }
        config.pairs = int(largest);
        config.pair_list = text;
    }
    config.pairs_given = true;
    return Status::ok();
}

// A core option whose value is one of the selected pattern's options
// (--pairs LIST: PatternInfo::pair_counts_option; --strides:
// strides_option). `what` names what both choose; giving both spellings is
// a usage error, and so is a pattern without such an option (`refusal`).
Status hand_to_pattern(const po::variables_map& values, Config& config, const std::string& core,
                       const std::string& text, const std::string& option, const std::string& what,
                       const std::string& refusal)
{
    if (option.empty())
        return bad_value(core, text, refusal);
    if (values.count(option) && !values[option].defaulted())
        return Status::usage("--" + core + " '" + text + "' and --" + option + " both choose " + what + ": give one");
    std::erase_if(config.pattern_options, [&](const auto& value) { return value.first == option; }); // its default
    config.pattern_options.emplace_back(option, text);
    config.handed_options.emplace_back(option, core);
    return Status::ok();
}

// --pairs LIST goes to the pattern's pair-count option; --strides LIST to its strides option.
Status hand_pattern_lists(const po::variables_map& values, Config& config)
{
    const PatternInfo& pattern = *config.pattern;
    if (!config.pair_list.empty())
        NGX_TRY(hand_to_pattern(
            values, config, "pairs", config.pair_list, pattern.pair_counts_option, "the pair counts",
            "pattern '" + pattern.name + "' takes one pair count (--pairs " + std::to_string(config.pairs) +
                "), not a list (a list is for patterns that sweep the pair count)"));
    if (!config.strides.empty())
        NGX_TRY(hand_to_pattern(values, config, "strides", config.strides, pattern.strides_option, "the strides",
                                "pattern '" + pattern.name + "' sends contiguous messages (strides are for -x " +
                                    "strided and -x bcast)"));
    return Status::ok();
}

// --connect A:P,B:P,...: the servers; with two or more, --ranks-per-host R
// takes the place of --pairs K (which pairs the ranks of two hosts).
Status read_servers(const po::variables_map& values, Config& config)
{
    if (!config.connect.empty())
        config.servers = split_list(config.connect);
    for (const std::string& server : config.servers)
        if (server.empty())
            return bad_value("connect", config.connect, "an empty HOST:PORT in the list");
    bool per_host = values.count("ranks-per-host") > 0;
    if (per_host && !config.many_hosts())
        return Status::usage("--ranks-per-host is for --connect with two or more servers (HOST:PORT,HOST:PORT,...); "
                             "two hosts take --pairs K");
    if (!config.many_hosts())
        return Status::ok();
    if (config.pairs_given)
        return Status::usage("--pairs pairs the ranks of two hosts; --connect with " +
                             std::to_string(config.servers.size()) + " servers joins " +
                             std::to_string(config.servers.size() + 1) + " hosts: give --ranks-per-host R");
    if (per_host) {
        Result<uint64_t> ranks =
            parse_count("ranks-per-host", values["ranks-per-host"].as<std::string>(), 1, max_local_pairs);
        if (!ranks)
            return ranks.status();
        config.pairs = int(*ranks);
    }
    return Status::ok();
}

// A run of more than two hosts has no pair connections (local_group.hpp):
// only patterns that place ranks by a layout run there.
Status check_many_hosts(const Config& config, const PatternCatalog& patterns)
{
    if (!config.many_hosts() || !config.pattern->layouts.empty())
        return Status::ok();
    std::string layout_patterns;
    for (const PatternInfo* pattern : patterns.patterns())
        if (!pattern->layouts.empty())
            layout_patterns += (layout_patterns.empty() ? "" : ", ") + pattern->name;
    return Status::usage("pattern '" + config.pattern->name +
                         "' pairs rank i with rank i + P/2 over one connection per pair, which joins two hosts; a "
                         "run of more than two hosts (--connect with " +
                         std::to_string(config.servers.size()) + " servers) takes a layout pattern (" +
                         (layout_patterns.empty() ? "none found" : layout_patterns) + ")");
}

Status read_launch(const po::variables_map& values, Config& config)
{
    std::string bootstrap = values["bootstrap"].as<std::string>();
    if (bootstrap == "auto")
        config.bootstrap = BootstrapChoice::automatic;
    else if (bootstrap == "local")
        config.bootstrap = BootstrapChoice::local;
    else if (bootstrap == "tcp")
        config.bootstrap = BootstrapChoice::tcp;
    else if (bootstrap == "mpi")
        config.bootstrap = BootstrapChoice::mpi;
    else
        return bad_value("bootstrap", bootstrap, "expected auto, local, tcp or mpi");
    if (values.count("listen"))
        config.listen = values["listen"].as<std::string>();
    if (values.count("connect"))
        config.connect = values["connect"].as<std::string>();
    if (!config.listen.empty() && !config.connect.empty())
        return Status::usage("--listen and --connect exclude each other: one side listens, the other connects");
    if (config.bootstrap == BootstrapChoice::tcp && config.listen.empty() && config.connect.empty())
        return Status::usage("--bootstrap tcp needs --listen [ADDR:]PORT or --connect HOST:PORT");
    if (values.count("pairs"))
        NGX_TRY(read_pairs(values["pairs"].as<std::string>(), config));
    NGX_TRY(read_servers(values, config));
    if (values.count("strides"))
        config.strides = values["strides"].as<std::string>();
    Result<double> accept =
        parse_number("accept-timeout", values["accept-timeout"].as<std::string>(), 0.001, max_timeout_s);
    if (!accept)
        return accept.status();
    config.accept_timeout_ns = uint64_t(*accept * 1e9);
    std::string timer = values["timer"].as<std::string>();
    if (timer == "auto")
        config.timer = TimerChoice::automatic;
    else if (timer == "tsc")
        config.timer = TimerChoice::tsc;
    else if (timer == "clock")
        config.timer = TimerChoice::clock;
    else
        return bad_value("timer", timer, "expected auto, tsc or clock");
    return Status::ok();
}

// "--a --b -c": every spelling of the options of a group.
std::string spellings(const po::options_description& group)
{
    std::string words;
    for (const auto& option : group.options()) {
        words += " --" + option->long_name();
        std::string shorter = option->canonical_display_name(po::command_line_style::allow_dash_for_short);
        if (shorter.size() == 2 && shorter[0] == '-')
            words += " " + shorter;
    }
    return words;
}

// `case $1 in NAME) echo "--NAME-a ...";; esac`, one branch per module or pattern.
std::string options_case(const std::vector<std::pair<std::string, std::string>>& branches)
{
    std::string text = "    case $1 in\n";
    for (const auto& [name, words] : branches)
        text += "        " + name + ") echo \"" + words + "\" ;;\n";
    return text + "    esac\n";
}

std::string help_text(const po::options_description& all)
{
    std::ostringstream text;
    text << "Usage: ngx [-m MODULE[,MODULE...]] [-x PATTERN] [options]\n"
            "       ngx --listen [ADDR:]PORT            (on one host)\n"
            "       ngx --connect HOST:PORT -m ... -x ... (on the other)\n"
            "       mpirun -np 2 ngx -m MODULE -x PATTERN\n"
            "       ngx compare A.json B.json | ngx plot FILE.json... -o OUT.png\n"
            "       ngx check BASELINE.json NEW.json | ngx check DIR   (regressions, trend)\n"
            "       ngx fit FILE.csv | ngx predict --params FILE.json ...  (each with --help)\n"
            "With no arguments: LogGP parameters (Hoefler et al. 2007) of every local module\n"
            "(shm, tcp), compared.\n"
            "Module and pattern options appear with -m NAME -x NAME --help.\n\n"
         << all;
    return text.str();
}

} // namespace

std::string bash_completion(const ModuleRegistry& registry, const PatternCatalog& patterns,
                            const std::vector<std::string>& commands)
{
    std::vector<std::pair<std::string, std::string>> module_branches, pattern_branches;
    std::string module_names, pattern_names, command_names;
    for (const LoadedModulePtr& module : registry.load_all().loaded) {
        module_names += " " + module->name();
        module_branches.emplace_back(module->name(), spellings(module_options(*module)));
    }
    for (const PatternInfo* pattern : patterns.patterns()) {
        pattern_names += " " + pattern->name;
        pattern_branches.emplace_back(pattern->name, spellings(pattern_options(*pattern)));
    }
    for (const std::string& command : commands)
        command_names += " " + command;
    po::options_description general = general_options();
    general.add(option_group("", output_option_specs()));
    general.add(server_options());
    std::ostringstream text;
    text << "# bash completion for ngx, generated by `ngx --completion bash` from its option tables.\n"
         << "_ngx_module_options() {\n"
         << options_case(module_branches) << "}\n_ngx_pattern_options() {\n"
         << options_case(pattern_branches) << "}\n"
         << "_ngx() {\n"
            "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} i m\n"
            "    local modules='"
         << module_names << "' patterns='" << pattern_names << "' commands='" << command_names
         << "'\n"
            "    local words='"
         << spellings(general)
         << "'\n"
            "    case $prev in\n"
            "        -m|--module) local head=''; [[ $cur == *,* ]] && head=${cur%,*},\n"
            "            COMPREPLY=($(compgen -P \"$head\" -W \"$modules\" -- \"${cur##*,}\")); return ;;\n"
            "        -x|--pattern) COMPREPLY=($(compgen -W \"$patterns\" -- \"$cur\")); return ;;\n"
            "        --timer) COMPREPLY=($(compgen -W 'auto tsc clock' -- \"$cur\")); return ;;\n"
            "        --bootstrap) COMPREPLY=($(compgen -W 'auto local tcp mpi' -- \"$cur\")); return ;;\n"
            "        --format) COMPREPLY=($(compgen -W 'table csv json' -- \"$cur\")); return ;;\n"
            "        -o|--output) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n"
            "    esac\n"
            "    if [[ $COMP_CWORD -gt 1 && \" $commands \" == *\" ${COMP_WORDS[1]} \"* ]]; then\n"
            "        COMPREPLY=($(compgen -f -- \"$cur\")); return\n"
            "    fi\n"
            "    if [[ $COMP_CWORD -eq 1 && $cur != -* ]]; then\n"
            "        COMPREPLY=($(compgen -W \"$commands\" -- \"$cur\")); return\n"
            "    fi\n"
            "    local chosen_modules='"
         << default_modules.front() << " " << default_modules.back() << "' chosen_pattern=" << default_pattern
         << "\n"
            "    for ((i = 1; i < COMP_CWORD - 1; i++)); do\n"
            "        case ${COMP_WORDS[i]} in\n"
            "            -m|--module) chosen_modules=${COMP_WORDS[i+1]//,/ } ;;\n"
            "            -x|--pattern) chosen_pattern=${COMP_WORDS[i+1]} ;;\n"
            "        esac\n"
            "    done\n"
            "    for m in $chosen_modules; do words+=\" $(_ngx_module_options \"$m\")\"; done\n"
            "    words+=\" $(_ngx_pattern_options \"$chosen_pattern\")\"\n"
            "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
            "}\n"
            "complete -F _ngx ngx ./ngx\n";
    return text.str();
}

Result<Config> parse_command_line(const std::vector<std::string>& arguments, const ModuleRegistry& registry,
                                  const PatternCatalog& patterns)
{
    Config config;
    config.arguments = arguments;
    Result<po::variables_map> first = first_pass(arguments);
    if (!first)
        return first.status();
    std::string pattern_name = first->count("pattern") ? (*first)["pattern"].as<std::string>() : default_pattern;
    config.pattern = patterns.find(pattern_name);
    if (config.pattern == nullptr) {
        std::string known;
        for (const std::string& name : patterns.names())
            known += (known.empty() ? "" : ", ") + name;
        return Status::usage("-x/--pattern: unknown pattern '" + pattern_name +
                             "' (known: " + (known.empty() ? "none; see ngx --list-patterns" : known) + ")");
    }
    bool server = first->count("listen") > 0; // a --listen server learns its modules from the client
    if (!server) {
        Result<std::vector<ModuleChoice>> modules = load_modules(*first, registry);
        if (!modules)
            return modules.status();
        config.modules = std::move(*modules);
    }

    po::variables_map values;
    po::options_description all;
    all.add(general_options());
    all.add(option_group("Output options", output_option_specs()));
    all.add(server_options());
    for (const ModuleChoice& choice : config.modules)
        all.add(module_options(*choice.module));
    all.add(pattern_options(*config.pattern));
    po::options_description hidden;
    hidden.add_options()("completion", po::value<std::string>(), "print the bash completion script");
    po::options_description parsing;
    parsing.add(all).add(hidden);
    try {
        po::parsed_options parsed = po::command_line_parser(arguments).options(parsing).run();
        for (const po::option& option : parsed.options)
            if (option.position_key >= 0)
                return Status::usage("unexpected argument '" + option.value.front() +
                                     "' (options start with -; subcommands: compare, check, fit, predict, plot, "
                                     "export, trace, launches)");
        po::store(parsed, values);
        po::notify(values);
        config.arguments = forwarded_arguments(parsed);
        config.launch_arguments = launch_arguments(parsed);
    } catch (const po::unknown_option& error) {
        return explain_unknown_option(error.get_option_name(), config, registry, patterns, all);
    } catch (const po::error& error) {
        return Status::usage(error.what());
    }
    if (values.count("help")) {
        config.action = Action::help;
        config.help_text = help_text(all);
        return config;
    }
    if (values.count("completion")) {
        if (values["completion"].as<std::string>() != "bash")
            return bad_value("completion", values["completion"].as<std::string>(), "expected bash");
        config.action = Action::completion;
        return config;
    }
    if (values.count("version"))
        config.action = Action::version;
    else if (values.count("list-modules"))
        config.action = Action::list_modules;
    else if (values.count("list-patterns"))
        config.action = Action::list_patterns;
    if (config.action != Action::run)
        return config;

    NGX_TRY(read_settings(values, *config.pattern, config.settings));
    Result<std::vector<int>> cpus = read_cpus(values);
    if (!cpus)
        return cpus.status();
    config.cpus = std::move(*cpus);
    NGX_TRY(read_outputs(values, config));
    NGX_TRY(read_plot(values, config));
    NGX_TRY(read_buffer_offset(values, config));
    NGX_TRY(read_launch(values, config));
    NGX_TRY(check_many_hosts(config, patterns));
    NGX_TRY(read_launches(values, config));
    NGX_TRY(read_server_options(values, config));
    for (ModuleChoice& choice : config.modules) {
        choice.options = values_of(values, module_specs(choice.module->descriptor()));
        if (!first->count("module"))
            apply_main_job_defaults(values, choice.options);
    }
    Result<std::vector<ModuleChoice>> runs = plan_module_runs(config.modules);
    if (!runs)
        return runs.status();
    config.modules = std::move(*runs);
    NGX_TRY(check_sizes_fit_modules(config.modules, config.settings.sizes));
    NGX_TRY(check_sizes_fit_pattern(config.settings.sizes, *config.pattern));
    NGX_TRY(check_modules_fit_pattern(config.modules, *config.pattern));
    config.pattern_options = values_of(values, config.pattern->options);
    if (!server) // a --listen server runs the client's pattern: its own --pairs only checks K
        NGX_TRY(hand_pattern_lists(values, config));
    return config;
}

} // namespace ngx
