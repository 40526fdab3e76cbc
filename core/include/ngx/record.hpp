// Plain records of what a run measured: the data every reporter formats.
//
// A Document is one invocation: the machine context and one RunRecord per
// (module, pattern) run, each with a SizeRecord per message size.
#ifndef NGX_RECORD_HPP
#define NGX_RECORD_HPP

#include <ngx/statistics.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ngx {

using Json = nlohmann::ordered_json;

// JSON has no NaN or infinity: such numbers are written as null.
inline Json json_number(double value)
{
    return std::isfinite(value) ? Json(value) : Json(nullptr);
}

// The version of the ngx core in use ("0.1.0").
const char* ngx_version();

struct SizeRecord {
    uint64_t size_bytes = 0;
    Summary summary;                                   // of the pattern's metric, microseconds
    std::vector<double> raw_us;                        // every kept sample, with --raw
    std::vector<std::pair<std::string, double>> extra; // pattern-specific columns
};

struct RunRecord {
    std::string module;
    std::string variant; // the module option values of this run when a list was given
    std::string pattern;
    std::string metric; // what the samples are, e.g. "half round trip"
    Json options = Json::object();
    std::vector<SizeRecord> sizes;
    Json model;                     // fitted parameters, when the pattern fits any
    Json measurement;               // passes and sizes measured again, when measured in passes
    std::string status = "running"; // then "complete", "interrupted" or "error"
    std::string error;
    double wall_seconds = 0;
    uint64_t messages = 0; // messages sent by both sides together
    Json cpu;              // every rank's CPU use and whether the CPUs set the run's time
};

struct Document {
    Json context = Json::object(); // host, cpu, timer, bootstrap, placement, command line
    std::vector<RunRecord> runs;
    Json comparison; // set when several runs are compared
};

} // namespace ngx

#endif
