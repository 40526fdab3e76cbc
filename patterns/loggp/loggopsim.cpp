// LogGOPSim export (see loggopsim.hpp). G and O are per byte; LogGOPSim takes
// integers, so they are rounded to whole nanoseconds per byte and the exact
// value is kept in the comment above each line.
#include "loggopsim.hpp"

#include <cmath>
#include <sstream>

namespace ngx {
namespace {

long long ns(double us)
{
    return std::isfinite(us) ? std::llround(us * 1000.0) : 0;
}

} // namespace

std::string loggopsim_parameters(const fit::LogGPParams& params)
{
    std::ostringstream out;
    out << "# LogGOPSim parameters in integer nanoseconds, one line per protocol range\n";
    for (size_t i = 0; i < params.ranges.size(); ++i) {
        const fit::LogGPRange& r = params.ranges[i];
        double per_byte_o = std::isfinite(r.o_slope) ? std::max(0.0, r.o_slope) : 0.0;
        out << "# " << r.from_bytes << ".." << r.to_bytes << " bytes: G = " << r.G.value * 1000
            << " ns/byte, O = " << per_byte_o * 1000 << " ns/byte\n";
        out << "-L " << ns(r.L.value) << " -o " << ns(r.o.value) << " -g " << ns(r.g.value) << " -G " << ns(r.G.value)
            << " -O " << ns(per_byte_o);
        if (i + 1 < params.ranges.size())
            out << " -S " << std::llround(params.ranges[i + 1].from_bytes);
        out << "\n";
    }
    return out.str();
}

} // namespace ngx
