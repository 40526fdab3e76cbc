// `ngx trace`: traces of MPI programs (libngx-trace.so, tools/trace).
//
//     ngx trace -o DIR -- mpirun -np 4 ./app          run under the tracer (ngx-trace-run)
//     ngx trace analyze DIR --params loggps.json [--set S=65536] [-o a.json]
//     ngx trace export --goal DIR -o prog.goal
//
// analyze replays the trace under LogGPS (core/commands/trace); export
// writes it as a GOAL schedule for LogGOPSim. Bad input exits 2 with the reason.
#ifndef NGX_TOOLS_TRACE_COMMAND_HPP
#define NGX_TOOLS_TRACE_COMMAND_HPP

#include "command.hpp"

namespace ngx {

CommandInfo trace_command();

} // namespace ngx

#endif
