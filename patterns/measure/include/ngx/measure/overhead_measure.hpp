// The overhead measurement of Al-Tawil and Moritz 1998 (Figure 2, section
// 3.1): o_s and o_r per message size between the bootstrap's driver and
// its peer, one SizeRecord per size to ctx.sink on the driver. The
// overhead pattern runs it over its pair; the loghssp pattern runs it once
// within a node and once across nodes (overhead_measure.cpp says how).
//
//     constexpr OverheadRows rows = overhead_rows("overhead-call", "overhead-delay", "overhead-root");
//     opt::Reader read(opt::Table("overhead", rows.all()), values);   // info.options: the table's specs()
//     Result<OverheadSettings> settings = read_overhead_settings(read, rows);
//     NGX_TRY(measure_overhead(ctx, *settings));
#ifndef NGX_MEASURE_OVERHEAD_MEASURE_HPP
#define NGX_MEASURE_OVERHEAD_MEASURE_HPP

#include <ngx/measure/rooted_barrier.hpp>

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

// The options PREFIX-call and PREFIX-delay (and PREFIX-root when
// with_root), under the names the pattern gives them.
struct OverheadRows {
    opt::Option<std::string> call;
    opt::Option<std::string> delay; // auto or microseconds
    opt::Option<std::string> root;
    bool with_root = false;

    opt::Table table(std::string pattern) const
    {
        opt::Table rows(std::move(pattern), {call, delay});
        if (with_root)
            rows.add(root);
        return rows;
    }
};

constexpr OverheadRows overhead_rows(std::string_view call, std::string_view delay, std::string_view root = {})
{
    return {opt::row::choice(call, "blocking", {"blocking", "nonblocking"},
                             "blocking: send()/recv(); nonblocking: isend()/irecv() timed, wait() apart"),
            opt::row::text(delay, "auto",
                           "wait before the timed receive, microseconds; auto: the larger of 2 x the median arrival "
                           "of the message after the barrier + 5 and its p95 (up to 1000)"),
            opt::row::choice(root, "both", {"both", "driver", "responder"},
                             "barrier root: driver, responder, or both (alternating repetitions, Al-Tawil and Moritz "
                             "1998)"),
            !root.empty()};
}

// Reads the rows (read's table: rows.table()); a bad value is a usage error naming the option.
Result<OverheadSettings> read_overhead_settings(opt::Reader& read, const OverheadRows& rows);
// The settings as the output files record them.
Json overhead_settings_json(const OverheadSettings& settings);

// The whole size sweep (interleaved passes) of Figure 2 between the bootstrap's
// driver and its peer; a module without non-blocking calls refuses nonblocking.
Status measure_overhead(PatternContext& ctx, const OverheadSettings& settings);

} // namespace ngx::patterns

#endif
