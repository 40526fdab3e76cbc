// Warnings about a measurement's setting that is known to hurt its numbers
// (Hoefler and Belli, SC15: report the environment, and say when it is not
// the one the numbers need). From the run's context (sysinfo.hpp, the
// timer) and its results; pure, so each rule is tested alone:
//   - a CPU frequency governor other than "performance" (the clock moves);
//   - a load average of 1 or more before the run (other work competes);
//   - a rank not pinned: its affinity allows several CPUs;
//   - a timer overhead above 5% of the smallest measured median.
//
//     document.context["warnings"] = setting_warnings(document.context, smallest_median_us(document));
#ifndef NGX_SETTING_WARNINGS_HPP
#define NGX_SETTING_WARNINGS_HPP

#include <ngx/record.hpp>

namespace ngx {

// One sentence per warning (a JSON array of strings; empty when none).
Json setting_warnings(const Json& context, double smallest_median_us);

// The smallest positive median of any size of any run; NaN when none.
double smallest_median_us(const Document& document);

} // namespace ngx

#endif
