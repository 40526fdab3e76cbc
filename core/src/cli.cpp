// Two-pass command-line parsing (see cli.hpp).
#include "cli.hpp"

#include "cli_options.hpp"

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

using core_option::max_local_pairs;
using opt::split_list;

Status bad_value(const std::string& option, const std::string& value, const std::string& why)
{
    return Status::usage(opt::bad_value(option, value, why));
}

// Whether the user gave the row's option (not Boost filling in its default).
bool user_gave(const po::variables_map& values, const opt::Row& row)
{
    const std::string name(row.long_name());
    return values.count(name) > 0 && !values[name].defaulted();
}

// The value of a row (given, else its default; nullopt when neither),
// parsed and range-checked by the row; a bad value is a usage error.
template <typename T>
Result<std::optional<T>> value_of(opt::Reader& read, const opt::Option<T>& row)
{
    std::optional<T> value = read.optional(row);
    if (!read.ok())
        return Status::usage(read.error());
    return value;
}

// The server options: only with --listen (a client's proposal carrying one is refused).
Status read_server_options(const po::variables_map& values, opt::Reader& read, Config& config)
{
    using namespace core_option;
    NGX_ASSIGN_OR_RETURN(std::optional<std::string> secret, value_of(read, secret_file));
    if (secret) {
        config.secret_file = *secret;
        if (config.secret_file.empty())
            return Status::usage("--secret-file: empty file name");
        if (config.listen.empty() && config.connect.empty())
            return Status::usage(
                "--secret-file is for --listen and --connect (a local run has no stranger to keep out)");
    }
    config.timeout_given = user_gave(values, core_option::timeout);
    config.accept_timeout_given = user_gave(values, core_option::accept_timeout);
    const opt::Table server = server_table();
    for (const opt::Row& row : server.rows()) // --secret-file is for both sides
        if (config.listen.empty() && row.long_name() != core_option::secret_file.long_name() && user_gave(values, row))
            return Status::usage("--" + std::string(row.long_name()) + " is an option of the server (--listen)");
    ServerPolicy& policy = config.policy;
    NGX_ASSIGN_OR_RETURN(std::optional<std::string> networks, value_of(read, allow));
    if (networks) {
        Result<std::vector<Cidr>> allowed = parse_cidrs(*networks);
        if (!allowed)
            return allowed.status();
        policy.allow = std::move(*allowed);
    }
    NGX_ASSIGN_OR_RETURN(std::optional<std::string> clients, value_of(read, serve));
    if (*clients == "forever") {
        policy.serve = 0;
    } else {
        opt::Parsed<uint64_t> count = opt::whole_number("serve", *clients, 1, 1'000'000'000);
        if (!count)
            return bad_value("serve", *clients, "expected a number of clients (1 or more) or 'forever'");
        policy.serve = *count;
    }
    const uint64_t pairs = read(max_pairs), size = read(max_size), count = read(max_count_row);
    const double timeout = read(max_timeout);
    if (!read.ok())
        return Status::usage(read.error());
    policy.limits = {pairs, uint64_t(timeout * 1e9), size, count};
    return Status::ok();
}

// The command line without --secret-file, as a --connect client sends it to
// the server (and the JSON records it): the file's name stays on this host.
std::vector<std::string> forwarded_arguments(const po::parsed_options& parsed)
{
    std::vector<std::string> arguments;
    for (const po::option& option : parsed.options)
        if (option.string_key != core_option::secret_file.long_name())
            arguments.insert(arguments.end(), option.original_tokens.begin(), option.original_tokens.end());
    return arguments;
}

// What each launch of --launches runs: the command line without --launches
// and what the parent decides per launch (-o, --format, --plot, --cpus).
std::vector<std::string> launch_arguments(const po::parsed_options& parsed)
{
    const std::initializer_list<const opt::Row*> per_launch = {
        &core_option::launches, &output_option::file, &output_option::format, &core_option::plot, &core_option::cpus};
    std::vector<std::string> arguments;
    for (const po::option& option : parsed.options)
        if (std::none_of(per_launch.begin(), per_launch.end(),
                         [&](const opt::Row* row) { return option.string_key == row->long_name(); }))
            arguments.insert(arguments.end(), option.original_tokens.begin(), option.original_tokens.end());
    return arguments;
}

// --launches K: 2..1000, a local run only, results to JSON files (the summary's format).
Status read_launches(opt::Reader& read, Config& config)
{
    NGX_ASSIGN_OR_RETURN(std::optional<uint64_t> launches, value_of(read, core_option::launches));
    if (!launches)
        return Status::ok();
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

// First pass: which modules and which pattern, ignoring everything else.
Result<OptionValues> first_pass(const std::vector<std::string>& arguments)
{
    const std::vector<opt::OptionSpec> specs = selection_table().specs();
    po::options_description selection = option_group("", specs);
    po::variables_map values;
    try {
        auto parsed = po::command_line_parser(arguments).options(selection).allow_unregistered().run();
        po::store(parsed, values);
    } catch (const po::error& error) {
        return Status::usage(error.what());
    }
    return values_of(values, specs);
}

// -m LIST, or the main job's modules when absent.
Result<std::vector<ModuleChoice>> load_modules(const std::optional<std::string>& list, const ModuleRegistry& registry)
{
    std::vector<std::string> names = default_modules;
    if (list)
        names = split_list(*list);
    if (names.empty())
        return Status::usage("-m/--module: no module named (see ngx --list-modules)");
    std::vector<ModuleChoice> modules;
    for (const std::string& name : names) {
        if (name.empty())
            return Status::usage("-m/--module: empty module name in '" + *list + "'");
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

Status read_sizes(opt::Reader& read, const PatternInfo& pattern, RunSettings& settings)
{
    StepRule rule;
    if (read.given(core_option::grade) && read.given(core_option::step))
        return Status::usage("--grade and --step exclude each other: give one");
    NGX_ASSIGN_OR_RETURN(std::optional<double> grade, value_of(read, core_option::grade));
    NGX_ASSIGN_OR_RETURN(std::optional<uint64_t> step, value_of(read, core_option::step));
    if (grade)
        rule = StepRule::geometric(*grade);
    if (step)
        rule = StepRule::linear(*step);
    std::string text = read.optional(core_option::sizes).value_or(pattern.default_sizes);
    Result<std::vector<uint64_t>> sizes = parse_sizes(text, rule);
    if (!sizes)
        return Status::usage("-s/--sizes: " + sizes.status().message());
    settings.sizes = std::move(*sizes);
    return Status::ok();
}

// --max-loss PCT[%] (relative, always) and --retries N (absolute, when given).
Status read_loss_budget(opt::Reader& read, RunSettings& settings)
{
    NGX_ASSIGN_OR_RETURN(std::optional<double> max_loss, value_of(read, core_option::max_loss));
    settings.max_loss = *max_loss / 100;
    NGX_ASSIGN_OR_RETURN(std::optional<uint64_t> retries, value_of(read, core_option::retries));
    if (retries)
        settings.retries = *retries;
    return Status::ok();
}

// --adaptive (not with --max-rel-ci off: it would stop at once, nor with
// --passes: it chooses its own) and --max-size-time S (> 0).
Status read_adaptive(const po::variables_map& values, opt::Reader& read, bool ci_off, RunSettings& settings)
{
    settings.adaptive = read(core_option::adaptive);
    if (!settings.adaptive) {
        if (user_gave(values, core_option::max_size_time))
            return Status::usage("--max-size-time is the time cap of --adaptive; give --adaptive as well");
        return Status::ok();
    }
    if (ci_off)
        return Status::usage("--adaptive stops a size when its interval is within --max-rel-ci; "
                             "--max-rel-ci off leaves it no rule (give a percentage)");
    if (read.given(core_option::passes))
        return Status::usage("--adaptive measures in short passes of its own; leave out --passes");
    NGX_ASSIGN_OR_RETURN(std::optional<double> seconds, value_of(read, core_option::max_size_time));
    settings.max_size_ns = uint64_t(*seconds * 1e9);
    return Status::ok();
}

// --passes N (1..-c; absent: automatic) and --max-rel-ci PCT (> 0, or off).
Status read_passes(const po::variables_map& values, opt::Reader& read, RunSettings& settings)
{
    // "off": no size is ever wide enough to be measured again (the largest value accepted).
    const std::string max_rel_ci_text = read.text_of(core_option::max_rel_ci);
    const bool off = max_rel_ci_text == "off";
    std::optional<double> max_rel_ci = RunSettings::max_rel_ci_off * 100;
    if (!off) {
        NGX_ASSIGN_OR_RETURN(max_rel_ci, value_of(read, core_option::max_rel_ci));
    }
    if (!(*max_rel_ci > 0))
        return bad_value("max-rel-ci", max_rel_ci_text,
                         "expected a percentage above 0 (the widest interval of the median to accept)");
    settings.max_rel_ci = *max_rel_ci / 100;
    NGX_TRY(read_adaptive(values, read, off, settings));
    NGX_ASSIGN_OR_RETURN(std::optional<uint64_t> passes, value_of(read, core_option::passes));
    if (!passes)
        return Status::ok();
    if (*passes > settings.count)
        return bad_value("passes", read.text_of(core_option::passes),
                         "more passes than samples per size (-c " + std::to_string(settings.count) +
                             "): each pass keeps at least one");
    settings.passes = *passes;
    return Status::ok();
}

Status read_settings(const po::variables_map& values, opt::Reader& read, const PatternInfo& pattern,
                     RunSettings& settings)
{
    NGX_TRY(read_sizes(read, pattern, settings));
    NGX_ASSIGN_OR_RETURN(std::optional<uint64_t> count, value_of(read, core_option::count));
    NGX_ASSIGN_OR_RETURN(std::optional<uint64_t> warmup, value_of(read, core_option::warmup));
    NGX_ASSIGN_OR_RETURN(std::optional<double> timeout, value_of(read, core_option::timeout));
    settings.count = count.value_or(pattern.default_count);
    settings.warmup = warmup.value_or(pattern.default_warmup);
    settings.timeout_ns = uint64_t(*timeout * 1e9);
    NGX_TRY(read_loss_budget(read, settings));
    NGX_TRY(read_passes(values, read, settings));
    settings.keep_raw = read(core_option::raw);
    settings.verify = read(core_option::verify);
    if (std::optional<std::string> hosts = read.optional(core_option::host_of)) {
        settings.host_of = *hosts;
        if (settings.host_of.empty() || settings.host_of == "@")
            return Status::usage("--host-of: give host names separated by commas, or @FILE");
    }
    return Status::ok();
}

Result<std::vector<int>> read_cpus(opt::Reader& read)
{
    std::vector<int> cpus;
    if (!read.given(core_option::cpus))
        return cpus;
    std::string text = read(core_option::cpus);
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    sched_getaffinity(0, sizeof allowed, &allowed);
    for (const std::string& item : split_list(text)) {
        opt::Parsed<uint64_t> cpu = opt::whole_number("cpus", item, 0, CPU_SETSIZE - 1);
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
Status read_buffer_offset(opt::Reader& read, Config& config)
{
    NGX_ASSIGN_OR_RETURN(std::optional<uint64_t> offset, value_of(read, core_option::buffer_offset()));
    if (offset)
        config.buffer_offset = size_t(*offset);
    return Status::ok();
}

// The main job's own defaults (default_module_options, default_pattern_options)
// for the options the user left at the module's or the pattern's default, or
// gave none of (an option of `specs` without a default).
void apply_main_job_defaults(const po::variables_map& values, const std::vector<opt::OptionSpec>& specs,
                             const std::vector<std::pair<std::string, std::string>>& defaults, OptionValues& options)
{
    for (const auto& default_option : defaults) {
        // Named references, not a structured binding: clang 14 cannot capture one in a lambda.
        const std::string& name = default_option.first;
        const std::string& value = default_option.second;
        if (values.count(name) && !values[name].defaulted())
            continue;
        const bool declared = std::any_of(specs.begin(), specs.end(), [&](const opt::OptionSpec& spec) {
            return spec.name.substr(0, spec.name.find(',')) == name;
        });
        auto given = std::find_if(options.begin(), options.end(), [&](const auto& item) { return item.first == name; });
        if (given != options.end())
            given->second = value;
        else if (declared)
            options.emplace_back(name, value);
    }
}

Status read_plot(opt::Reader& read, Config& config)
{
    config.plot = read(core_option::plot);
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
        opt::Parsed<uint64_t> pairs = opt::whole_number("pairs", text, 1, max_local_pairs);
        if (!pairs)
            return Status::usage(pairs.error);
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
Status read_servers(opt::Reader& read, Config& config)
{
    if (!config.connect.empty())
        config.servers = split_list(config.connect);
    for (const std::string& server : config.servers)
        if (server.empty())
            return bad_value("connect", config.connect, "an empty HOST:PORT in the list");
    bool per_host = read.given(core_option::ranks_per_host);
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
        NGX_ASSIGN_OR_RETURN(std::optional<uint64_t> ranks, value_of(read, core_option::ranks_per_host));
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

Status read_launch(opt::Reader& read, Config& config)
{
    using namespace core_option;
    NGX_ASSIGN_OR_RETURN(std::optional<std::string> how, value_of(read, bootstrap));
    config.bootstrap = *how == "local" ? BootstrapChoice::local
                       : *how == "tcp" ? BootstrapChoice::tcp
                       : *how == "mpi" ? BootstrapChoice::mpi
                                       : BootstrapChoice::automatic;
    config.listen = read.optional(listen).value_or("");
    config.connect = read.optional(connect).value_or("");
    if (!config.listen.empty() && !config.connect.empty())
        return Status::usage("--listen and --connect exclude each other: one side listens, the other connects");
    if (config.bootstrap == BootstrapChoice::tcp && config.listen.empty() && config.connect.empty())
        return Status::usage("--bootstrap tcp needs --listen [ADDR:]PORT or --connect HOST:PORT");
    if (std::optional<std::string> list = read.optional(pairs))
        NGX_TRY(read_pairs(*list, config));
    NGX_TRY(read_servers(read, config));
    config.strides = read.optional(strides).value_or("");
    NGX_ASSIGN_OR_RETURN(std::optional<double> accept, value_of(read, accept_timeout));
    config.accept_timeout_ns = uint64_t(*accept * 1e9);
    NGX_ASSIGN_OR_RETURN(std::optional<std::string> clock, value_of(read, timer));
    config.timer = *clock == "tsc" ? TimerChoice::tsc : *clock == "clock" ? TimerChoice::clock : TimerChoice::automatic;
    return Status::ok();
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

Result<Config> parse_command_line(const std::vector<std::string>& arguments, const ModuleRegistry& registry,
                                  const PatternCatalog& patterns)
{
    Config config;
    config.arguments = arguments;
    Result<OptionValues> first = first_pass(arguments);
    if (!first)
        return first.status();
    opt::Reader selected(selection_table(), *first);
    const std::optional<std::string> module_list = selected.optional(core_option::module);
    const std::string pattern_name = selected.optional(core_option::pattern).value_or(default_pattern);
    config.pattern = patterns.find(pattern_name);
    if (config.pattern == nullptr) {
        std::string known;
        for (const std::string& name : patterns.names())
            known += (known.empty() ? "" : ", ") + name;
        return Status::usage("-x/--pattern: unknown pattern '" + pattern_name +
                             "' (known: " + (known.empty() ? "none; see ngx --list-patterns" : known) + ")");
    }
    bool server = selected.given(core_option::listen); // a --listen server learns its modules from the client
    if (!server) {
        Result<std::vector<ModuleChoice>> modules = load_modules(module_list, registry);
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
    const opt::Table hidden_table("ngx", {core_option::completion}); // not in --help
    po::options_description hidden = option_group("", hidden_table.specs());
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
    const opt::Table table = core_table();
    opt::Reader read(table, values_of(values, table.specs()));
    if (read(core_option::help)) {
        config.action = Action::help;
        config.help_text = help_text(all);
        return config;
    }
    opt::Reader read_hidden(hidden_table, values_of(values, hidden_table.specs()));
    if (read_hidden.given(core_option::completion)) {
        read_hidden(core_option::completion); // bash, the one shell so far
        if (!read_hidden.ok())
            return Status::usage(read_hidden.error());
        config.action = Action::completion;
        return config;
    }
    if (read(core_option::version))
        config.action = Action::version;
    else if (read(core_option::list_modules))
        config.action = Action::list_modules;
    else if (read(core_option::list_patterns))
        config.action = Action::list_patterns;
    if (config.action != Action::run)
        return config;

    NGX_TRY(read_settings(values, read, *config.pattern, config.settings));
    Result<std::vector<int>> cpus = read_cpus(read);
    if (!cpus)
        return cpus.status();
    config.cpus = std::move(*cpus);
    NGX_TRY(read_outputs(values, config));
    NGX_TRY(read_plot(read, config));
    NGX_TRY(read_buffer_offset(read, config));
    NGX_TRY(read_launch(read, config));
    NGX_TRY(check_many_hosts(config, patterns));
    NGX_TRY(read_launches(read, config));
    NGX_TRY(read_server_options(values, read, config));
    for (ModuleChoice& choice : config.modules) {
        choice.options = values_of(values, module_specs(choice.module->descriptor()));
        if (!module_list)
            apply_main_job_defaults(values, module_specs(choice.module->descriptor()), default_module_options,
                                    choice.options);
    }
    Result<std::vector<ModuleChoice>> runs = plan_module_runs(config.modules);
    if (!runs)
        return runs.status();
    config.modules = std::move(*runs);
    NGX_TRY(check_sizes_fit_modules(config.modules, config.settings.sizes));
    NGX_TRY(check_sizes_fit_pattern(config.settings.sizes, *config.pattern));
    NGX_TRY(check_modules_fit_pattern(config.modules, *config.pattern));
    config.pattern_options = values_of(values, config.pattern->options);
    if (!module_list)
        apply_main_job_defaults(values, config.pattern->options, default_pattern_options, config.pattern_options);
    if (!server) // a --listen server runs the client's pattern: its own --pairs only checks K
        NGX_TRY(hand_pattern_lists(values, config));
    return config;
}

} // namespace ngx
