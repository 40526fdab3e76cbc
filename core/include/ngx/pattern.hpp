// Patterns: what is measured (ping-pong, ping-ping, LogGP, ...). Each pattern
// is a plugin, ngx_pattern_<name>.so, built from its own folder against this
// C++ interface and exported with NGX_PATTERN_EXPORT (ngx/pattern_plugin.hpp);
// the loader checks its ABI before use. Modules, which third parties build
// for other compilers, use the C ABI of ngx/module.h instead.
//
// A pattern gets a connected Transport, the Bootstrap, the Timer and the run
// settings, and reports one SizeRecord per message size to the sink as each
// size finishes. Both sides of a pair run the same pattern with the same
// settings; Bootstrap::is_driver() tells which side times and reports.
// Everything about a pattern is its own: its options (declared as specs and
// read with ngx/options.hpp), its table columns (SizeRecord::extra), its
// model JSON, the raw files it writes, what `ngx fit` does with its saved
// runs and the model kinds it feeds (ngx/model_kind.hpp), which `ngx predict`
// finds by the file. Its hooks return data (tables: ngx/table.hpp) and the
// core prints it. The core knows no pattern and no model by name.
//
//     class PingPong final : public Pattern {
//         Status configure(const OptionValues&) override { return Status::ok(); }
//         Status run(PatternContext& ctx) override { ... ctx.sink.size_done(record); ... }
//     };
//     PatternInfo info{.name = "pingpong", ..., .create = [] { return std::make_unique<PingPong>(); }};
#ifndef NGX_PATTERN_HPP
#define NGX_PATTERN_HPP

#include <ngx/bootstrap.hpp>
#include <ngx/model_kind.hpp>
#include <ngx/options.hpp>
#include <ngx/progress.hpp>
#include <ngx/rank_layout.hpp>
#include <ngx/record.hpp>
#include <ngx/reporter.hpp>
#include <ngx/status.hpp>
#include <ngx/table.hpp>
#include <ngx/timer.hpp>
#include <ngx/transport.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ngx {

// The settings common to every pattern, from the command line.
struct RunSettings {
    std::vector<uint64_t> sizes;
    uint64_t count = 1000; // kept samples per size
    uint64_t warmup = 100; // discarded samples before them
    uint64_t timeout_ns = 10'000'000'000;
    bool keep_raw = false;
    std::vector<double> percentiles; // extra ones, beyond the median and p99
    bool verify = false;             // --verify: fill and check every payload, outside the timed region
    // Modules without NGX_CAP_RELIABLE: a size gives up once its lost repetitions exceed --retries (absolute,
    // when given) or make lost / (lost + repetitions needed) exceed --max-loss (budget_exceeded(), prtt.cpp).
    uint64_t retries = no_retry_cap;
    double max_loss = 0.5;
    static constexpr uint64_t no_retry_cap = UINT64_MAX;
    Progress* progress = nullptr; // where the run is, for the watchdog (set by the session; may be null)
    // Interleaved measurement (ngx/measure/passes.hpp): each size's repetitions split into this many passes
    // over all sizes (0: the pattern loop chooses), and the sizes whose 95% interval of the median is wider
    // than max_rel_ci of the median are measured again in a few extra passes.
    uint64_t passes = 0;
    double max_rel_ci = 0.05;
    // --max-rel-ci off (1e6%): no size is measured again, not even one whose interval is undefined.
    static constexpr double max_rel_ci_off = 1e4;
    // --adaptive: max_rel_ci is a stopping rule instead, -c a cap: each size is measured in short passes until
    // its interval is within max_rel_ci, or -c samples, or max_size_ns of measuring (passes.hpp).
    bool adaptive = false;
    uint64_t max_size_ns = 10'000'000'000;
    // --host-of: the host of each rank, names separated by commas or @FILE
    // (rank_hosts.hpp, hosts_of_run); empty: each rank's own host name.
    std::string host_of;
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
    // Interleaved measurement: pass `done` of `planned` regular ones is over
    // (extra passes count on beyond `planned`), for progress output.
    virtual void pass_done(uint64_t /*done*/, uint64_t /*planned*/) {}
    // How the run was measured (passes, sizes measured again): the run's "measurement".
    virtual void set_measurement(Json /*measurement*/) {}
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
    // Reads and checks the pattern's own options (every declared one, defaults
    // filled in); a bad value is a usage error.
    virtual Status configure(const OptionValues& values) = 0;
    // The options as they will be used, for the output files.
    virtual Json options_json() const = 0;
    virtual Status run(PatternContext& context) = 0;
    // Optional: local work after run() (a fit of what the driver measured),
    // called on every rank once the ranks have met after the run, so that no
    // peer waits for it under the deadline; the watchdog gives it no
    // deadline either (mark_local_work). Every exchange with the peer
    // belongs in run().
    virtual Status conclude(PatternContext& /*context*/) { return Status::ok(); }
};

// How the ranks of a run take part in a pattern. `pairs`: rank i measures
// against rank i + P/2 (P even; ping-pong, LogGP, ...). `group`: all P >= 2
// ranks form one group for a collective operation (a broadcast from rank 0);
// rank 0 drives and reports, and there is no pairwise peer.
enum class RankGrouping { pairs, group };

// A subcommand's arguments (after `ngx fit`).
using CommandArguments = std::vector<std::string>;

// `ngx fit FILE... [options]` for a pattern's fit hook: the files named and
// the values of the options it declares (PatternInfo::fit_options), parsed
// by the core with their defaults filled in and read with ngx/options.hpp.
struct FitRequest {
    std::vector<std::string> files;
    OptionValues values;

    // The file of a fit that reads one; a usage error for more.
    Result<std::string> one_file() const
    {
        if (files.size() != 1)
            return Status::usage("one file expected, got " + std::to_string(files.size()));
        return files.front();
    }
};

// What a fit returns; the core prints and writes it (fit_command.cpp), and
// turns an error into `ngx fit: ...` and its exit code.
struct FitOutput {
    // A re-fitted run: reported as a live run is, its table on stdout, and
    // -o FILE (.json, .csv, .txt) and --format as for a run.
    std::optional<Document> run{};
    // Else the fitted document: -o FILE writes it (JSON), --format json
    // prints it instead of the table.
    Json document{};
    // The fit's own tables, printed before the run's: as text, or with
    // --format csv each as "# title" and its CSV (--format json: the document).
    std::vector<Table> tables{};
    // Printed on stderr as `ngx fit: warning: ...`.
    std::vector<std::string> warnings{};
    // The parameters for another tool (loggp's --export): printed alone, nothing written.
    std::optional<std::string> exported{};
};

// A plugin is built against one layout of these types: any change of
// PatternInfo, RunSettings, Pattern, PatternContext or a type they expose,
// wherever a member goes, bumps NGX_PATTERN_ABI_VERSION
// (ngx/pattern_plugin.hpp), and the catalog rejects a plugin built for
// another version or whose sizeof(PatternInfo) differs from the core's
// (`ngx --list-patterns` says why). Member order keeps no old plugin working.
struct PatternInfo {
    std::string name;
    std::string description;
    std::string metric;                   // what a sample is: "half round trip", "PRTT(n, d, s)"
    std::string default_sizes;            // used when -s is not given
    std::vector<opt::OptionSpec> options; // named "<name>-..." or, for files it writes, freely
    std::function<std::unique_ptr<Pattern>()> create;
    uint64_t default_count = 1000; // used when -c is not given
    uint64_t default_warmup = 100; // used when --warmup is not given

    // Optional. Reporters of its own (raw files), from its option values;
    // the rank that reports adds them next to the core's. They print nothing
    // on stdout: tables go through run_tables.
    std::function<std::vector<std::unique_ptr<Reporter>>(const OptionValues&)> reporters{};
    // Optional: the tables of a finished run (from its model), which the
    // core's table on stdout prints after the run's own; data, not text.
    RunTables run_tables{};
    // Optional: `ngx fit FILE ...` for a saved run of this pattern (a JSON
    // whose "pattern" is this one) or a raw file it claims (fit_reads). The
    // core parses the arguments against fit_options, its own (the files, -o,
    // --format, --percentiles, --help) and refuses others (exit 2); the hook
    // returns data (FitOutput) and prints nothing. fit_usage heads --help.
    std::function<Result<FitOutput>(const FitRequest&)> fit{};
    std::function<bool(const std::string& first_line)> fit_reads{};
    std::vector<opt::OptionSpec> fit_options{};
    std::string fit_usage{};

    // Optional: how the ranks take part (the MPI bootstrap pairs them or forms one group), and
    // the NGX_CAP_* bits every module of the run must have, checked with the
    // command line before any process starts (a module lacking one: exit 2).
    RankGrouping ranks = RankGrouping::pairs;
    uint32_t module_capabilities = 0;
    // Optional: the pattern option that chooses pair counts k from a
    // list (nodecomm: "nodecomm-pairs"). `--pairs 1,2,4` then starts 2 x 4
    // ranks and gives this option "1,2,4"; without one a list is a usage error.
    std::string pair_counts_option{};
    // Optional: the pattern option holding its strides (strided:
    // "strided-strides"), which the core's `--strides LIST` sets.
    std::string strides_option{};
    // Optional: the smallest message it can measure, checked with the
    // command line before anything runs (loggp: 1, its equations are in s - 1),
    // and why, for the error.
    uint64_t min_message_bytes = 0;
    std::string min_message_reason{};
    // Optional: the rank layouts it walks itself (ngx/rank_layout.hpp,
    // ngx/peer_links.hpp). Non-empty: connect() only sets the module up (a
    // view whose peer is the rank itself, module ABI 1.5) and the pattern
    // opens its links through PeerLinks; the module must then have per-peer
    // links (NGX_CAP_PEER_LINKS), or the run is refused naming module and
    // layout. Such a pattern sets `ranks` to RankGrouping::group, so that
    // under MPI any P >= 2 runs, odd P included.
    std::vector<LayoutKind> layouts{};
    // Optional: the model kinds its runs save, which `ngx predict
    // --params RUN.json` predicts with (ngx/model_kind.hpp); the first is the
    // one a saved run of this pattern holds unless its model names another.
    std::vector<ModelKind> models{};
};

} // namespace ngx

#endif
