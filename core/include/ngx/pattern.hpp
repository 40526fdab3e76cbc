// Patterns: what is measured (ping-pong, ping-ping, LogGP, ...). Patterns are
// built in-tree and use this C++ interface (modules, which third parties may
// build, use the C ABI instead).
//
// A pattern gets a connected Transport, the Bootstrap, the Timer and the run
// settings, and reports one SizeRecord per message size to the sink as each
// size finishes. Both sides of a pair run the same pattern with the same
// settings; Bootstrap::is_driver() tells which side times and reports.
//
//     class PingPong final : public Pattern {
//         Status run(PatternContext& ctx) override { ... ctx.sink.size_done(record); ... }
//     };
//     PatternInfo{"pingpong", "half round trip per size", ..., [] { return std::make_unique<PingPong>(); }};
#ifndef NGX_PATTERN_HPP
#define NGX_PATTERN_HPP

#include <ngx/bootstrap.hpp>
#include <ngx/progress.hpp>
#include <ngx/record.hpp>
#include <ngx/status.hpp>
#include <ngx/timer.hpp>
#include <ngx/transport.hpp>

#include <boost/program_options.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ngx {

namespace po = boost::program_options;

// The settings common to every pattern, from the command line.
struct RunSettings {
    std::vector<uint64_t> sizes;
    uint64_t count = 1000; // kept samples per size
    uint64_t warmup = 100; // discarded samples before them
    uint64_t timeout_ns = 10'000'000'000;
    bool keep_raw = false;
    std::vector<double> percentiles; // extra ones, beyond the median and p99
    bool verify = false;             // --verify: fill and check every payload, outside the timed region
    // Modules without NGX_CAP_RELIABLE: a series gives up once its lost repetitions exceed --retries (absolute,
    // when given) or make lost / (lost + repetitions needed) exceed --max-loss (budget_exceeded(), prtt.cpp).
    uint64_t retries = no_retry_cap;
    double max_loss = 0.5;
    static constexpr uint64_t no_retry_cap = UINT64_MAX;
    Progress* progress = nullptr; // where the run is, for the watchdog (set by the session; may be null)
};

// Repetitions of the current size that lost a message (modules without
// NGX_CAP_RELIABLE) and were retried, as the driving side counts them;
// `attempted` includes them. Reset per size by the sweep.
struct LossTally {
    uint64_t lost = 0;
    uint64_t attempted = 0;
};

// Where a pattern's results go; only the driving side's results are kept.
class ResultSink {
public:
    virtual ~ResultSink() = default;
    virtual void size_done(SizeRecord record) = 0;
    virtual void set_model(Json model) = 0;
    virtual void count_messages(uint64_t messages) = 0;
};

struct PatternContext {
    Transport& transport;
    Bootstrap& bootstrap;
    const Timer& timer;
    const RunSettings& settings;
    ResultSink& sink;
    const volatile int* cancel;
    LossTally losses{};

    bool interrupted() const { return cancel != nullptr && *cancel != 0; }
};

class Pattern {
public:
    virtual ~Pattern() = default;
    // Reads and checks the pattern's own options; a bad value is a usage error.
    virtual Status configure(const po::variables_map& values) = 0;
    // The options as they will be used, for the output files.
    virtual Json options_json() const = 0;
    virtual Status run(PatternContext& context) = 0;
};

struct PatternInfo {
    std::string name;
    std::string description;
    std::string metric;        // what a sample is: "half round trip", "PRTT(n, d, s)"
    std::string default_sizes; // used when -s is not given
    std::function<po::options_description()> options;
    std::function<std::unique_ptr<Pattern>()> create;
    uint64_t default_count = 1000; // used when -c is not given
    uint64_t default_warmup = 100; // used when --warmup is not given
};

using PatternCatalog = std::vector<PatternInfo>;

const PatternInfo* find_pattern(const PatternCatalog& catalog, const std::string& name);

} // namespace ngx

#endif
