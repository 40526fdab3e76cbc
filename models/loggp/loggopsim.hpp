// LogGP parameters in LogGOPSim's terms, one line of command-line parameters
// per protocol range: -L -o -g -G -O -S. LogGOPSim takes C ints without a
// unit; ngx exports every time in picoseconds (so G and O of fast links keep
// three more digits than in ns; read LogGOPSim's times in ps). -o and -O are
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
// A negative parameter, or one beyond 2^31-1 ps, is an error, not exported.
#ifndef NGX_TOOLS_LOGGOPSIM_HPP
#define NGX_TOOLS_LOGGOPSIM_HPP

#include <models/loggp/loggp.hpp>
#include <ngx/status.hpp>

#include <string>

namespace ngx {
Result<std::string> loggopsim_parameters(const fit::LogGPParams& params);
}

#endif
