// `ngx trace` (see trace_command.hpp).
#include "trace_command.hpp"

#include "export_command.hpp"
#include "missing_features.hpp"

#include "trace/trace_goal.hpp"
#include "trace/trace_report.hpp"

#include <ngx/command_line.hpp>
#include <ngx/json_input.hpp>
#include <ngx/output_file.hpp>
#include <ngx/sizes.hpp>

#include <models/loggps/loggps_model.hpp>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <unistd.h>

namespace ngx {
namespace {

int fail(const Status& s)
{
    std::cerr << "ngx trace: " << s.message() << "\n";
    return exit_code(s);
}

int usage_error(const std::string& message)
{
    return fail(Status::usage(message));
}

// ---- parameters ------------------------------------------------------------

// The loggps model in a saved run (its "model"), in one run of several
// ("runs"), or a bare model object.
const Json* find_model(const Json& doc)
{
    auto is_loggps = [](const Json& m) { return m.is_object() && m.contains("kind") && m["kind"] == "loggps"; };
    if (is_loggps(doc))
        return &doc;
    if (doc.is_object() && doc.contains("model") && is_loggps(doc["model"]))
        return &doc["model"];
    if (doc.is_object() && doc.contains("runs") && doc["runs"].is_array())
        for (const Json& run : doc["runs"])
            if (run.is_object() && run.contains("model") && is_loggps(run["model"]))
                return &run["model"];
    return nullptr;
}

// The model of `path`; `eager_limit` (--eager-limit: the MPI library's own
// eager limit, e.g. Open MPI's btl_vader_eager_limit) stands for its S,
// which a fit leaves null when no rendezvous switch stood out of its noise.
Result<fit::LogGPSParams> read_params(const std::string& path, std::optional<uint64_t> eager_limit)
{
    NGX_ASSIGN_OR_RETURN(Json doc, read_json_input(path));
    const Json* found = find_model(doc);
    if (found == nullptr)
        return Status::usage(path + ": no LogGPS model (a run of `ngx -x loggps -o FILE.json` or `ngx fit` of one)");
    Json model = *found;
    if (eager_limit)
        model["S_bytes"] = *eager_limit;
    if (!model.contains("S_bytes") || !model["S_bytes"].is_number())
        return Status::usage(path + ": the model has no rendezvous threshold S (S_bytes is " +
                             (model.contains("S_bytes") ? model["S_bytes"].dump() : std::string("missing")) +
                             "); the replay needs it: give the MPI library's eager limit with --eager-limit BYTES "
                             "(Open MPI: ompi_info --param btl vader --level 9), or fit with sizes above it");
    Result<fit::LogGPSParams> p = patterns::loggps_params_from_model(model);
    if (!p)
        return Status::usage(path + ": " + p.status().message());
    return p;
}

// --set NAME=VALUE on a copy of the parameters (times in us, per-byte costs
// in us per byte, s and S in bytes or inf).
Status set_param(fit::LogGPSParams& p, const std::string& assignment, std::pair<std::string, double>& out)
{
    const size_t eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0)
        return Status::usage("--set '" + assignment + "': not NAME=VALUE");
    const std::string name = assignment.substr(0, eq), text = assignment.substr(eq + 1);
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || errno != 0 || std::isnan(v) || v < 0 ||
        (std::isinf(v) && name != "S" && name != "s"))
        return Status::usage("--set " + name + "='" + text + "': not a number >= 0" +
                             (name == "S" || name == "s" ? " (or inf)" : ""));
    double* const targets[][2] = {{&p.L, nullptr},   {&p.o_prime, nullptr}, {&p.O_s, &p.O_r},     {&p.O_s, nullptr},
                                  {&p.O_r, nullptr}, {&p.G_s, &p.G_l},      {&p.G_s, nullptr},    {&p.G_l, nullptr},
                                  {&p.s, nullptr},   {&p.S, nullptr},       {&p.o_prime, nullptr}};
    const char* names[] = {"L", "o", "O", "O_s", "O_r", "G", "G_s", "G_l", "s", "S", "o_prime"};
    for (size_t i = 0; i < std::size(names); ++i) {
        if (name != names[i])
            continue;
        *targets[i][0] = v;
        if (targets[i][1] != nullptr)
            *targets[i][1] = v;
        out = {name, v};
        return Status::ok();
    }
    return Status::usage("--set " + name + ": not a LogGPS parameter (L, o, O, O_s, O_r, G, G_s, G_l, s, S)");
}

// ---- analyze ---------------------------------------------------------------

constexpr auto trace_row = opt::row::text("trace", opt::no_default, "the trace directory");
constexpr auto params_row =
    opt::row::text("params", opt::no_default, "LogGPS parameters: a saved loggps run (ngx -x loggps -o FILE.json)");
constexpr auto eager_limit_row = opt::row::byte_count(
    "eager-limit", opt::no_default, 0, max_message_bytes,
    "the rendezvous threshold S in bytes (the MPI library's eager limit), in place of the model's S");
constexpr auto set_row = opt::row::repeatable(
    opt::row::text("set", opt::no_default,
                   "NAME=VALUE: re-predict with a parameter changed (repeatable; L, o, O, O_s, O_r, G, G_s, G_l in "
                   "us or us/B, s and S in bytes)"));
constexpr auto analysis_output_row =
    opt::row::output_file("output,o", "write the analysis to FILE (.json or .csv by its extension)");
constexpr auto format_row = opt::row::choice("format", "table", {"table", "json", "csv"}, "what to print");
constexpr auto help_row = opt::row::flag("help,h", "show this help");

opt::Table analyze_table()
{
    return opt::Table("ngx trace analyze",
                      {trace_row, params_row, eager_limit_row, set_row, analysis_output_row, format_row, help_row});
}

constexpr auto goal_row = opt::row::flag("goal", "write a GOAL schedule for LogGOPSim (the one format so far)");
constexpr auto unit_row =
    opt::row::choice("unit", "ps", {"ns", "ps", "fs"}, "time unit of calc (as the LogGOPSim parameters)");
constexpr auto goal_output_row = opt::row::output_file("output,o", "the GOAL file (default: stdout)");

opt::Table export_goal_table()
{
    return opt::Table("ngx trace export", {goal_row, trace_row, unit_row, goal_output_row, help_row});
}

Result<trace::Analysis> analyze(opt::Reader& read)
{
    trace::Analysis a;
    if (!read.given(trace_row))
        return Status::usage("no trace directory (ngx trace analyze DIR --params FILE)");
    if (!read.given(params_row))
        return Status::usage("--params FILE is required (LogGPS parameters: ngx -x loggps -o FILE.json)");
    a.trace = read(trace_row);
    a.params_file = read(params_row);
    NGX_ASSIGN_OR_RETURN(fit::LogGPSParams p, read_params(a.params_file, read.optional(eager_limit_row)));
    a.params = p;
    trace::WhatIf w;
    w.params = a.params;
    for (const std::string& value : read.all(set_row)) {
        std::pair<std::string, double> one;
        if (Status s = set_param(w.params, value, one); !s)
            return s;
        w.set.push_back(one);
    }
    NGX_ASSIGN_OR_RETURN(std::vector<trace::RankReader> ranks, trace::open_trace(a.trace));
    NGX_ASSIGN_OR_RETURN(trace::ReplayReport base, trace::replay_trace(ranks, a.params));
    a.report = std::move(base);
    a.cpu = trace::traced_cpu_verdict(ranks);
    if (!w.set.empty()) {
        Result<trace::ReplayReport> changed = trace::replay_trace(ranks, w.params);
        if (!changed)
            return Status::usage("with the changed parameters: " + changed.status().message());
        w.report = std::move(*changed);
        a.what_if = std::move(w);
    }
    return a;
}

std::string rendered(const trace::Analysis& a, const std::string& format)
{
    if (format == "json")
        return trace::analysis_json(a).dump(2) + "\n";
    if (format == "csv")
        return trace::analysis_csv(a);
    return trace::analysis_table(a);
}

int run_analyze(const std::vector<std::string>& arguments)
{
    const opt::Table table = analyze_table();
    Result<OptionValues> values = parse_arguments(arguments, table, "trace");
    if (!values)
        return usage_error(values.status().message());
    opt::Reader read(table, *values);
    if (read(help_row)) {
        std::cout << options_help("Usage: ngx trace analyze DIR --params LOGGPS.json [--set S=65536] [-o FILE]", table);
        return 0;
    }
    const std::string format = read(format_row);
    if (!read.ok())
        return usage_error(read.error());
    Result<trace::Analysis> a = analyze(read);
    if (!a)
        return fail(a.status());
    if (std::optional<std::string> output = read.optional(analysis_output_row)) {
        const std::string path = *output;
        const bool csv = path.size() > 4 && path.substr(path.size() - 4) == ".csv";
        if (Status written = write_atomically(path, rendered(*a, csv ? "csv" : "json")); !written)
            return fail(written);
    }
    std::cout << rendered(*a, format);
    return 0;
}

// ---- export ----------------------------------------------------------------

int run_export_goal(const std::vector<std::string>& arguments)
{
    const opt::Table table = export_goal_table();
    Result<OptionValues> values = parse_arguments(arguments, table, "trace");
    if (!values)
        return usage_error(values.status().message());
    opt::Reader read(table, *values);
    if (read(help_row)) {
        std::cout << options_help("Usage: ngx trace export --goal DIR [-o FILE.goal]", table);
        return 0;
    }
    const std::string unit = read(unit_row);
    const std::optional<std::string> trace_dir = read.optional(trace_row);
    const std::optional<std::string> output = read.optional(goal_output_row);
    if (!read.ok())
        return usage_error(read.error());
    if (!read(goal_row))
        return usage_error("say what to export: --goal (a GOAL schedule for LogGOPSim)");
    if (!trace_dir)
        return usage_error("no trace directory (ngx trace export --goal DIR)");
    Result<std::vector<trace::RankReader>> ranks = trace::open_trace(*trace_dir);
    if (!ranks)
        return fail(ranks.status());
    Result<trace::GoalExport> g = trace::trace_schedule(*ranks);
    if (!g)
        return fail(g.status());
    for (const auto& [what, n] : g->approximated)
        std::cerr << "ngx trace export: " << n << " x " << what << "\n";
    for (const auto& [what, n] : g->as_calc)
        std::cerr << "ngx trace export: " << n << " " << what
                  << " written as calc of their measured duration (no model)\n";
    std::cerr << "ngx trace export: " << goal_limits() << "\n";
    const double per_us = unit == "ns" ? 1e3 : unit == "fs" ? 1e9 : 1e6;
    const std::string text = goal_text(g->schedule, per_us);
    if (!output) {
        std::cout << text;
        return 0;
    }
    if (Status written = write_atomically(*output, text); !written)
        return fail(written);
    return 0;
}

// ---- running a program under the tracer -------------------------------------

// ngx-trace-run next to this program (build tree: tools/trace/), else on PATH.
int run_traced(const std::vector<std::string>& arguments)
{
    if (std::string missing = mpi_not_built(); !missing.empty())
        return fail(Status::runtime("the MPI tracer (libngx-trace.so) was " + missing));
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec).parent_path();
    std::string launcher = "ngx-trace-run";
    for (const fs::path& p : {self / "ngx-trace-run", self / "tools" / "trace" / "ngx-trace-run"})
        if (fs::exists(p, ec)) {
            launcher = p.string();
            break;
        }
    std::vector<std::string> args = {"bash", launcher};
    args.insert(args.end(), arguments.begin(), arguments.end());
    std::vector<char*> argv;
    for (std::string& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    if (launcher.find('/') == std::string::npos) {
        argv.erase(argv.begin());
        ::execvp(launcher.c_str(), argv.data());
    } else {
        ::execvp("bash", argv.data());
    }
    return fail(Status::runtime("cannot run " + launcher + ": " + std::strerror(errno)));
}

int run_trace(const std::vector<std::string>& arguments, const PatternCatalog&)
{
    const std::string what = arguments.empty() ? "" : arguments[0];
    const std::vector<std::string> rest(arguments.begin() + (arguments.empty() ? 0 : 1), arguments.end());
    if (what == "analyze")
        return run_analyze(rest);
    if (what == "export")
        return run_export_goal(rest);
    if (what == "-o" || what == "-b" || what == "--")
        return run_traced(arguments);
    if (what == "-h" || what == "--help") {
        std::cout << "Usage: ngx trace -o DIR -- mpirun -np P ./app    (run under libngx-trace.so)\n"
                     "       ngx trace analyze DIR --params LOGGPS.json [--set S=65536] [-o FILE]\n"
                     "       ngx trace export --goal DIR [-o FILE.goal]\n";
        return 0;
    }
    return usage_error(what.empty() ? "say what to do: analyze, export, or -o DIR -- mpirun ..."
                                    : "'" + what + "': not analyze, export or -o DIR -- COMMAND");
}

} // namespace

CommandInfo trace_command()
{
    return {"trace", "run an MPI program under the tracer, analyze its trace under LogGPS, export it as GOAL",
            run_trace};
}

} // namespace ngx
