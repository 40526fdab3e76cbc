// `ngx export --goal` (see export_command.hpp).
#include "export_command.hpp"

#include <ngx/command_line.hpp>
#include <ngx/output_file.hpp>
#include <ngx/sizes.hpp>

#include <cmath>
#include <iostream>
#include <sstream>

namespace ngx {
namespace {

constexpr long long max_goal_ranks = 4096; // a schedule has up to P^2 operations (pairwise alltoall)

std::vector<opt::OptionSpec> export_specs()
{
    return {
        opt::flag("goal", "write a GOAL schedule for LogGOPSim (the one format so far)"),
        opt::optional_value("op", "bcast, reduce, allreduce, allgather, alltoall, gather, scatter or barrier"),
        opt::optional_value("algorithm", "the algorithm (ngx predict --op OP lists them)"),
        opt::optional_value("processes,P", "number of ranks, 2..4096"),
        opt::optional_value("size,s", "buffer (bcast, reduce, allreduce) or per-rank block, e.g. 1Mi (not barrier)"),
        {"gamma", "0", "reduction cost, us per byte (a calc per reduced message)"},
        {"unit", "ps", "time unit of calc: ns, ps or fs (as LogGOPSim's other parameters)"},
        {"segment", "64Ki", "segment of the pipelined bcast"},
        opt::optional_value("output,o", "the GOAL file (default: stdout)"),
        opt::flag("help,h", "show this help")};
}

int fail(const std::string& message)
{
    std::cerr << "ngx export: " << message << "\n";
    return exit_code(Status::usage(message));
}

double per_us(const std::string& unit)
{
    return unit == "ns" ? 1e3 : unit == "fs" ? 1e9 : 1e6;
}

// The collective the options describe, or why there is none.
Result<fit::Collective> read_collective(opt::OptionReader& read)
{
    if (!read.given("goal"))
        return Status::usage("say what to export: --goal (a GOAL schedule for LogGOPSim)");
    for (const char* needed : {"op", "algorithm", "processes"})
        if (!read.given(needed))
            return Status::usage(std::string("--") + needed + " is required");
    const std::optional<fit::CollectiveOp> op = fit::op_from_name(read.text("op"));
    if (!op)
        return Status::usage("--op " + read.text("op") +
                             ": not a collective (bcast, reduce, allreduce, allgather, alltoall, gather, scatter, "
                             "barrier)");
    const std::optional<fit::Algorithm> algorithm = fit::algorithm_from_name(read.text("algorithm"));
    const std::vector<fit::Algorithm> known = fit::algorithms_of(*op);
    if (!algorithm || std::find(known.begin(), known.end(), *algorithm) == known.end())
        return Status::usage("--algorithm " + read.text("algorithm") + ": " + read.text("op") + " has " +
                             fit::algorithm_list(*op));
    fit::Collective c;
    c.op = *op;
    c.algorithm = *algorithm;
    c.ranks = (long long)read.whole_number("processes", 2, max_goal_ranks);
    if (!read.given("size") && c.op != fit::CollectiveOp::barrier)
        return Status::usage("--size is required");
    c.bytes = read.given("size") ? double(read.byte_count("size", 1, max_message_bytes)) : 1;
    c.gamma = read.number("gamma", 0, 1e6);
    c.segment_bytes = double(read.byte_count("segment", 1, max_message_bytes));
    read.choice("unit", {"ns", "ps", "fs"});
    if (!read.ok())
        return Status::usage(read.error());
    if (std::string why = fit::check_collective(c); !why.empty())
        return Status::usage(why);
    return c;
}

long long whole_bytes(double bytes)
{
    return std::max(1LL, (long long)std::llround(bytes));
}

int run_export(const std::vector<std::string>& arguments, const PatternCatalog&)
{
    const std::vector<opt::OptionSpec> specs = export_specs();
    Result<OptionValues> values = parse_arguments(arguments, specs, "");
    if (!values)
        return fail(values.status().message());
    opt::OptionReader read(*values);
    if (read.given("help")) {
        std::cout << options_help("Usage: ngx export --goal --op OP --algorithm ALG -P N -s SIZE [-o FILE.goal]",
                                  specs);
        return 0;
    }
    Result<fit::Collective> c = read_collective(read);
    if (!c)
        return fail(c.status().message());
    const std::string text = goal_text(fit::collective_schedule(*c), per_us(read.text("unit")));
    if (!read.given("output")) {
        std::cout << text;
        return 0;
    }
    if (Status written = write_atomically(read.text("output"), text); !written) {
        std::cerr << "ngx export: " << written.message() << "\n";
        return exit_code(written);
    }
    return 0;
}

} // namespace

std::string goal_text(const fit::Schedule& schedule, double per_us)
{
    std::ostringstream out;
    out << "num_ranks " << schedule.ranks.size() << "\n";
    for (std::size_t rank = 0; rank < schedule.ranks.size(); ++rank) {
        out << "\nrank " << rank << " {\n";
        const std::vector<fit::ScheduleOp>& ops = schedule.ranks[rank];
        for (std::size_t i = 0; i < ops.size(); ++i) {
            const fit::ScheduleOp& op = ops[i];
            out << "l" << i << ": ";
            switch (op.kind) {
            case fit::ScheduleOp::Kind::send:
                out << "send " << whole_bytes(op.bytes) << "b to " << op.peer << " tag " << op.match << "\n";
                break;
            case fit::ScheduleOp::Kind::recv:
                out << "recv " << whole_bytes(op.bytes) << "b from " << op.peer << " tag " << i << "\n";
                break;
            case fit::ScheduleOp::Kind::calc:
                out << "calc " << std::llround(schedule.gamma * op.bytes * per_us) << "\n";
                break;
            }
            for (int before : op.after)
                out << "l" << i << " requires l" << before << "\n";
        }
        out << "}\n";
    }
    return out.str();
}

CommandInfo export_command()
{
    return {"export", "write a collective's schedule for LogGOPSim (GOAL)", run_export};
}

} // namespace ngx
