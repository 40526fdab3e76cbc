// The log3p model kind, `ngx predict --params STRIDED.json ...`: log3P's predictions of Cameron et al. 2007
// (point to point (s, d), linear broadcast P (o_mw/2 + l_mw/2) + o_net, tree
// broadcast (o_mw + l_mw + o_net) ceil(log2 P); section 4.3.3) next to
// LogGP's and LogGPS's (from saved loggp / loggps runs, --loggp, --loggps),
// and with --compare-to BCAST.json[,...] against measured broadcasts.
//
//     ngx predict --params strided.json                 # the run's grid: measured vs log3P vs LogGP
//     ngx predict --params strided.json -s 16Ki --stride 64 -P 4 --loggp loggp.json
//     ngx predict --params strided.json --loggp loggp.json --compare-to bcast-p2.json,bcast-p4.json
#ifndef NGX_PATTERNS_STRIDED_PREDICT_HPP
#define NGX_PATTERNS_STRIDED_PREDICT_HPP

#include <ngx/pattern.hpp>

namespace ngx::patterns {

// The log3p model kind, which `ngx predict` finds in a saved strided run.
ModelKind log3p_model_kind();

} // namespace ngx::patterns

#endif
