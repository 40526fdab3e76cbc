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

constexpr uint64_t max_goal_ranks = 4096; // a schedule has up to P^2 operations (pairwise alltoall)

constexpr auto goal_row = opt::row::flag("goal", "write a GOAL schedule for LogGOPSim (the one format so far)");
constexpr auto op_row =
    opt::row::text("op", opt::no_default, "bcast, reduce, allreduce, allgather, alltoall, gather, scatter or barrier");
constexpr auto algorithm_row =
    opt::row::text("algorithm", opt::no_default, "the algorithm (ngx predict --op OP lists them)");
constexpr auto processes_row =
    opt::row::whole_number("processes,P", opt::no_default, 2, max_goal_ranks, "number of ranks");
constexpr auto size_row = opt::row::byte_count("size,s", opt::no_default, 1, max_message_bytes,
                                               "buffer (bcast, reduce, allreduce) or per-rank block, e.g. 1Mi "
                                               "(not barrier)");
constexpr auto gamma_row =
    opt::row::number("gamma", "0", 0, 1e6, "reduction cost, us per byte (a calc per reduced message)");
constexpr auto unit_row =
    opt::row::choice("unit", "ps", {"ns", "ps", "fs"}, "time unit of calc (as LogGOPSim's other parameters)");
constexpr auto segment_row =
    opt::row::byte_count("segment", "64Ki", 1, max_message_bytes, "segment of the pipelined bcast");
constexpr auto output_row = opt::row::output_file("output,o", "the GOAL file (default: stdout)");
constexpr auto help_row = opt::row::flag("help,h", "show this help");

opt::Table export_table()
{
    return opt::Table("ngx export", {goal_row, op_row, algorithm_row, processes_row, size_row, gamma_row, unit_row,
                                     segment_row, output_row, help_row});
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
Result<fit::Collective> read_collective(opt::Reader& read)
{
    if (!read(goal_row))
        return Status::usage("say what to export: --goal (a GOAL schedule for LogGOPSim)");
    for (const opt::Row* needed : std::initializer_list<const opt::Row*>{&op_row, &algorithm_row, &processes_row})
        if (!read.given(*needed))
            return Status::usage("--" + std::string(needed->long_name()) + " is required");
    const std::string op_name = read(op_row), algorithm_name = read(algorithm_row);
    const std::optional<fit::CollectiveOp> op = fit::op_from_name(op_name);
    if (!op)
        return Status::usage("--op " + op_name +
                             ": not a collective (bcast, reduce, allreduce, allgather, alltoall, gather, scatter, "
                             "barrier)");
    const std::optional<fit::Algorithm> algorithm = fit::algorithm_from_name(algorithm_name);
    const std::vector<fit::Algorithm> known = fit::algorithms_of(*op);
    if (!algorithm || std::find(known.begin(), known.end(), *algorithm) == known.end())
        return Status::usage("--algorithm " + algorithm_name + ": " + op_name + " has " + fit::algorithm_list(*op));
    fit::Collective c;
    c.op = *op;
    c.algorithm = *algorithm;
    c.ranks = (long long)read(processes_row);
    if (!read.given(size_row) && c.op != fit::CollectiveOp::barrier)
        return Status::usage("--size is required");
    c.bytes = double(read.optional(size_row).value_or(1));
    c.gamma = read(gamma_row);
    c.segment_bytes = double(read(segment_row));
    read(unit_row);
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
    const opt::Table table = export_table();
    Result<OptionValues> values = parse_arguments(arguments, table, "");
    if (!values)
        return fail(values.status().message());
    opt::Reader read(table, *values);
    if (read(help_row)) {
        std::cout << options_help("Usage: ngx export --goal --op OP --algorithm ALG -P N -s SIZE [-o FILE.goal]",
                                  table);
        return 0;
    }
    Result<fit::Collective> c = read_collective(read);
    if (!c)
        return fail(c.status().message());
    const std::string text = goal_text(fit::collective_schedule(*c), per_us(read(unit_row)));
    std::cerr << "ngx export: " << goal_limits() << "\n";
    const std::optional<std::string> output = read.optional(output_row);
    if (!output) {
        std::cout << text;
        return 0;
    }
    if (Status written = write_atomically(*output, text); !written) {
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

std::string goal_limits()
{
    return "note: GOAL carries no topology: LogGOPSim prices every message as if its path were its own, so "
           "messages that share a link (an oversubscribed uplink; ngx's contention term, --coll-contention and ngx "
           "predict --contention) are not slowed there";
}

CommandInfo export_command()
{
    return {"export", "write a collective's schedule for LogGOPSim (GOAL)", run_export};
}

} // namespace ngx
