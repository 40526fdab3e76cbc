// LogGP parameters in LogGOPSim's terms, one line of command-line parameters
// per protocol range: -L -o -g -G -O -S. LogGOPSim takes C ints without a
// unit; ngx exports every time in integer femtoseconds where all fit in a C
// int, else picoseconds (so G and O of fast links keep their digits; the
// first line names the unit LogGOPSim's times are read in). -o and -O are
// the intercept and slope of the overhead line: LogGOPSim has one o for both
// sides, so o = (o_s + o_r) / 2. Its round trip is 2 (2o + L + (s-1) max(O,
// G)). An overlapped range (LogGPRange::overlapped) is that model with O =
// max(O_s, O_r), exported as is. An additive range (ngx's 2 (L + o_s(s) +
// o_r(s) + (s-1) G), Hoefler et al. 2007's eq. (1)) pays O_s + O_r + G per byte: O =
// (O_s + O_r) / 2 and G is exported as O_s + O_r + G, so that LogGOPSim's
// round trip is eq. (1)'s (its gap per byte is then that sum too; a comment
// line says so).
// A range with a measured exchange_cpu_share f < 1 (models/loggp/exchange_share.hpp)
// exports the send's CPU per byte, O - (1 - f) O_s, as O and max(G, O) as G,
// ngx's collective models' reading (a comment line says so).
// -S is the range's largest size: LogGOPSim sends size > S by rendezvous.
// A range that is not LogGP (LogGPRange::negative_parameters) goes out as
// near it as LogGOPSim's round trip allows, each change on a comment line:
// L < 0 as L = 0 with o + L/2 (2o + L, all the round trip reads of them,
// unchanged); where 2o + L < 0, o = L = 0 and max(O, G) lowered to keep the
// round trip at S (longer below S, by what the line says at most); g < 0 as
// 0 (a round trip does not read it). Any other negative parameter, or one
// beyond 2^31-1 units, is an error, not exported.
#ifndef NGX_TOOLS_LOGGOPSIM_HPP
#define NGX_TOOLS_LOGGOPSIM_HPP

#include <models/loggp/loggp.hpp>
#include <ngx/status.hpp>

#include <string>

namespace ngx {
Result<std::string> loggopsim_parameters(const fit::LogGPParams& params);
// Whether one range can be exported (picoseconds), or why not.
Status loggopsim_exportable(const fit::LogGPRange& range);
} // namespace ngx

#endif
