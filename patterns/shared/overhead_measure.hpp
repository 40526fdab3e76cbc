// The overhead measurement of Al-Tawil and Moritz 1998 (Figure 2, section
// 3.1): o_s and o_r per message size between the bootstrap's driver and
// its peer, one SizeRecord per size to ctx.sink on the driver. The
// overhead pattern runs it over its pair; the loghssp pattern runs it once
// within a node and once across nodes (overhead_measure.cpp says how).
//
//     Result<OverheadSettings> settings = read_overhead_settings(read, "overhead", true);
//     NGX_TRY(measure_overhead(ctx, *settings));
#ifndef NGX_PATTERNS_OVERHEAD_MEASURE_HPP
#define NGX_PATTERNS_OVERHEAD_MEASURE_HPP

#include "rooted_barrier.hpp"

#include <ngx/options.hpp>
#include <ngx/pattern.hpp>

#include <string>
#include <vector>

namespace ngx::patterns {

struct OverheadSettings {
    bool nonblocking = false; // isend()/irecv() timed, wait() apart
    double delay_us = -1;     // the wait before the timed receive; < 0: calibrated from the barrier
    RootChoice roots = RootChoice::both;
};

// The options PREFIX-call and PREFIX-delay (and PREFIX-root when `with_root`),
// as the pattern declares them with overhead_option_specs(); a bad value is
// a usage error naming the option.
Result<OverheadSettings> read_overhead_settings(const OptionValues& values, const std::string& prefix, bool with_root);
std::vector<opt::OptionSpec> overhead_option_specs(const std::string& prefix, bool with_root);
// The settings as the output files record them.
Json overhead_settings_json(const OverheadSettings& settings);

// The whole size sweep (interleaved passes) of Figure 2 between the bootstrap's
// driver and its peer; a module without non-blocking calls refuses nonblocking.
Status measure_overhead(PatternContext& ctx, const OverheadSettings& settings);

} // namespace ngx::patterns

#endif
