// LogGP parameters in LogGOPSim's terms: integer nanoseconds, one line of
// command-line parameters per protocol range (-L -o -g -G -O, and -S for the
// size where the next range begins).
#ifndef NGX_TOOLS_LOGGOPSIM_HPP
#define NGX_TOOLS_LOGGOPSIM_HPP

#include <ngx/fit/loggp.hpp>

#include <string>

namespace ngx {
std::string loggopsim_parameters(const fit::LogGPParams& params);
}

#endif
