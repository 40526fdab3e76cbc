// The report of `ngx trace analyze`: a replay (trace_replay.hpp) as JSON
// (schema/ngx-trace-analysis.schema.json), CSV (one row per total, rank
// and call site) or a text table, with the what-if replay beside it when
// parameters were changed (--set).
//
//     Json j = analysis_json(analysis);
//     std::cout << analysis_table(analysis);
#ifndef NGX_TRACE_REPORT_HPP
#define NGX_TRACE_REPORT_HPP

#include "trace_reader.hpp"
#include "trace_replay.hpp"

#include <ngx/record.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ngx::trace {

struct WhatIf {
    std::vector<std::pair<std::string, double>> set; // NAME=VALUE as given
    fit::LogGPSParams params;
    ReplayReport report;
};

struct Analysis {
    std::string trace; // the directory
    std::string params_file;
    fit::LogGPSParams params;
    ReplayReport report;
    std::optional<WhatIf> what_if;
    Json cpu; // the ranks' CPU use and whether the CPUs set the program's time (cpu_share.hpp); null if not traced
};

// The ranks' CPU use as the tracer recorded it in their headers (from
// MPI_Init to MPI_Finalize), with its verdict; null when no rank has it.
Json traced_cpu_verdict(const std::vector<RankReader>& ranks);

Json analysis_json(const Analysis& a);
std::string analysis_csv(const Analysis& a);
std::string analysis_table(const Analysis& a);

} // namespace ngx::trace

#endif
