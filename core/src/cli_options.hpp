// The main command line's options (ngx's own, not a module's or a
// pattern's), declared once as typed rows, and the tables and Boost groups
// made from them: cli.cpp parses with them, bash_completion.cpp lists them.
//
//     opt::Reader read(core_table(), values);
//     std::optional<std::string> list = read.optional(core_option::module);
#ifndef NGX_CLI_OPTIONS_HPP
#define NGX_CLI_OPTIONS_HPP

#include "option_group.hpp"

#include <ngx/command_line.hpp>
#include <ngx/loader.hpp>
#include <ngx/options.hpp>
#include <ngx/pattern.hpp>
#include <ngx/sizes.hpp>

#include <vector>

namespace ngx {

// The main command line's options as typed rows: Boost's descriptions
// (--help, parsing) are made from them and their values are parsed and
// range-checked by them.
namespace core_option {
using namespace opt::row;

inline constexpr uint64_t max_count = 10'000'000;
inline constexpr double max_timeout_s = 86400;
inline constexpr uint64_t max_local_pairs = 512;
inline constexpr uint64_t max_retries = 1'000'000; // per size: each costs a loss timeout and a bootstrap round trip

inline constexpr auto help = flag("help,h", "show this help; with -m and -x also their options");
inline constexpr auto version = flag("version", "print the version");
inline constexpr auto list_modules =
    flag("list-modules", "list the modules found, and the files rejected with the reason");
inline constexpr auto list_patterns = flag("list-patterns", "list the patterns");
inline constexpr auto module =
    text("module,m", opt::no_default, "module(s) to measure, comma-separated (default: shm,tcp, tcp polled)");
inline constexpr auto pattern = text("pattern,x", opt::no_default, "pattern to run (default: loggp)");
inline constexpr auto sizes =
    text("sizes,s", opt::no_default, "message sizes: 1-64Ki, 1,8,64,4K, 0-1M (K=1000, Ki=1024, M, Mi, G, Gi)");
inline constexpr auto grade =
    number("grade", opt::no_default, 1.0001, 1024, "geometric factor between sizes of a range (default 2)");
inline constexpr auto step = whole_number("step", opt::no_default, 1, max_message_bytes,
                                          "linear step between sizes of a range, bytes (instead of --grade)");
inline constexpr auto count = whole_number("count,c", opt::no_default, 1, max_count,
                                           "samples kept per size (default: the pattern's, 1000 for pingpong)");
inline constexpr auto warmup = whole_number("warmup", opt::no_default, 0, max_count,
                                            "samples discarded per size before those (default: the pattern's)");
inline constexpr auto timeout =
    number("timeout", "10", 0.001, max_timeout_s, "deadline of every blocking step, seconds");
inline constexpr auto max_loss =
    percentage("max-loss", "50", 0, 100,
               "lossy modules (udp): the share of a size's repetitions, percent, that may lose "
               "a message and be retried; beyond, the run fails (e.g. 50 or 50%)");
inline constexpr auto retries =
    whole_number("retries", opt::no_default, 0, max_retries,
                 "lossy modules (udp): an absolute cap on the repetitions per size that may "
                 "lose a message (default: none)");
inline constexpr auto passes =
    whole_number("passes", opt::no_default, 1, max_count,
                 "split each size's repetitions into N passes over all sizes, measured "
                 "round-robin (default: 4, fewer when -c leaves a pass under 25 repetitions)");
inline constexpr auto max_rel_ci = percentage("max-rel-ci", "5", 0, 1e6,
                                              "measure a size again (a few extra passes) while its 95% interval of the "
                                              "median is wider than this percentage of the median (e.g. 5 or 5%; off: "
                                              "never); with --adaptive, the stopping rule");
inline constexpr auto adaptive =
    flag("adaptive", "stop measuring each size once its 95% interval of the median is within "
                     "--max-rel-ci of the median (-c becomes a cap; see also --max-size-time)");
inline constexpr auto max_size_time =
    number("max-size-time", "10", 1e-3, 86400,
           "with --adaptive: seconds of measuring after which a size stops even if its "
           "interval is still wide");
inline constexpr auto launches =
    whole_number("launches", opt::no_default, 2, 1000,
                 "repeat the whole measurement K times as separate local launches, varying "
                 "the CPU pair where more than 2 CPUs exist, and state 95% intervals between "
                 "the launches (ngx launches)");
inline constexpr auto verify =
    flag("verify", "fill every payload with a pattern and check it on receipt (outside the timed region)");
inline constexpr auto cpus = text("cpus", opt::no_default, "pin rank r to CPU r of this list, e.g. 0,1");
inline constexpr auto host_of =
    text("host-of", opt::no_default,
         "the host of each rank, for emulated nodes that share one host name: names separated "
         "by commas (rank i on the i-th) or @FILE (one name a line, # comments); default: each "
         "rank's own host name");
inline constexpr auto pairs =
    text("pairs", opt::no_default,
         "pairs of processes, K or a list (1,2,4,8: K is the largest, nodecomm measures k = each "
         "listed count): the local launch starts 2K (rank i with rank K+i); --connect starts K on "
         "each side (a --listen server given it checks it is the client's); under mpirun/srun the "
         "ranks must be 2K (default: 1 locally, all ranks under a launcher)");
inline constexpr auto strides = text("strides", opt::no_default,
                                     "strides in elements for the patterns that send strided data, e.g. 1,16,64 (-x "
                                     "strided: --strided-strides, -x bcast: --bcast-strides)");
inline constexpr auto raw = flag("raw", "keep every sample in the JSON output");
inline constexpr auto plot = flag("plot", "draw each -o FILE.json as FILE.png afterwards (as ngx plot does)");
inline constexpr auto timer = choice("timer", "auto", {"auto", "tsc", "clock"}, "the clock of the measurements");
inline constexpr auto listen = text("listen", opt::no_default, "wait for a peer on [ADDR:]PORT (TCP rendezvous)");
inline constexpr auto connect =
    text("connect", opt::no_default,
         "run against a peer started with --listen at HOST:PORT; a list HOST:PORT,HOST:PORT,... "
         "joins this host and every server in one run of layout patterns (ranks 0..R-1 here, "
         "then each server's in list order)");
inline constexpr auto ranks_per_host = whole_number("ranks-per-host", opt::no_default, 1, max_local_pairs,
                                                    "with --connect of two or more servers: R ranks on every host, "
                                                    "(servers + 1) x R in all (default: 1; two hosts take --pairs K)");
inline constexpr auto accept_timeout =
    number("accept-timeout", "300", 0.001, max_timeout_s, "seconds --listen waits for a peer");
inline constexpr auto completion = choice("completion", opt::no_default, {"bash"}, "print the completion script");
inline constexpr auto bootstrap =
    choice("bootstrap", "auto", {"auto", "local", "tcp", "mpi"}, "how the ranks find each other");

// What a --listen server lets its clients do (server_policy.hpp); defaults from ServerLimits.
inline constexpr auto allow =
    text("allow", opt::no_default,
         "accept clients only from these networks, CIDR[,CIDR], e.g. 10.1.0.0/16,::1 (default: "
         "any address)");
inline constexpr auto secret_file =
    text("secret-file", opt::no_default,
         "a shared secret (a file of 16+ bytes, mode 600) both sides must hold: each proves "
         "it by a challenge, it never crosses the network");
inline constexpr auto serve =
    text("serve", "1",
         "serve N good clients one after another, or 'forever'; bad clients are dropped and do "
         "not count");
inline constexpr auto max_pairs =
    whole_number("max-pairs", "16", 1, max_local_pairs, "the largest --pairs a client may ask for");
inline constexpr auto max_timeout =
    number("max-timeout", "60", 0.001, max_timeout_s, "the largest --timeout, seconds, a client may ask for");
inline constexpr auto max_size = byte_count("max-size", "64Mi", 0, max_message_bytes,
                                            "the largest message size a client may ask for (K, Ki, M, Mi, G, Gi)");
inline constexpr auto max_count_row =
    whole_number("max-count", "1000000", 1, max_count, "the largest -c / --warmup a client may ask for");

// --buffer-offset: its range is the page size of this machine.
opt::Option<uint64_t> buffer_offset();
} // namespace core_option

// The general options (-m, -x, -s, ...), those of a --listen server, and
// all rows of the main command line: general, output and server options.
opt::Table general_table();
opt::Table server_table();
opt::Table core_table();
// The rows the first pass reads (-m, -x, --help, --listen).
opt::Table selection_table();

// The groups of `ngx --help`.
po::options_description general_options();
po::options_description server_options();
po::options_description module_options(const LoadedModule& module);
po::options_description pattern_options(const PatternInfo& pattern);

// A module's options (its C descriptor) as declarations.
std::vector<opt::OptionSpec> module_specs(const ngx_module& descriptor);

} // namespace ngx

#endif
