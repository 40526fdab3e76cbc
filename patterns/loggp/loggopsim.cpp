// LogGOPSim export (see loggopsim.hpp).
#include "loggopsim.hpp"

#include <ngx/sizes.hpp>

#include <climits>
#include <cmath>
#include <sstream>

namespace ngx {
namespace {

struct Exported {
    const char* flag;
    const char* name;
    double us; // the value in microseconds (per byte for G and O)
};

std::string range_name(const fit::LogGPRange& r)
{
    return format_bytes(uint64_t(r.from_bytes)) + " .. " + format_bytes(uint64_t(r.to_bytes));
}

// One parameter in integer picoseconds, or why it cannot be exported.
Result<long long> picoseconds(const Exported& p, const fit::LogGPRange& r)
{
    std::string where = "--export loggopsim: range " + range_name(r) + ": " + p.name;
    if (!std::isfinite(p.us))
        return Status::usage(where + " is not known; the model cannot be exported");
    double ps = std::round(p.us * 1e6);
    if (ps < 0) {
        std::ostringstream value;
        value << p.us;
        return Status::usage(where + " = " + value.str() +
                             " us is negative; LogGOPSim cannot simulate it (refit with more sizes or "
                             "--loggp-detector none)");
    }
    if (ps > double(INT_MAX))
        return Status::usage(where + " exceeds 2^31-1 ps, LogGOPSim's largest parameter");
    return (long long)ps;
}

} // namespace

Result<std::string> loggopsim_parameters(const fit::LogGPParams& params)
{
    std::ostringstream out;
    out << "# LogGOPSim parameters in integer picoseconds (read LogGOPSim's times in ps), one line per protocol "
           "range;\n# o, O = mean of the send and receive overhead lines' intercepts and slopes; S = the range's "
           "largest size\n";
    for (const fit::LogGPRange& r : params.ranges) {
        double o = (r.o_at(1) + (std::isfinite(r.o_r_at(1)) ? r.o_r_at(1) : r.o_at(1))) / 2;
        double o_slope_s = r.o_at(2) - r.o_at(1);
        double o_slope_r = std::isfinite(r.o_r_at(1)) ? r.o_r_at(2) - r.o_r_at(1) : o_slope_s;
        double O = (o_slope_s + o_slope_r) / 2;
        // A slightly negative fitted slope is noise around a flat overhead:
        // when it moves o by less than 5% over the range, export 0 and say so.
        double drift = std::fabs(O) * (r.to_bytes - 1);
        if (O < 0 && std::isfinite(drift) && drift <= 0.05 * std::fabs(o)) {
            out << "# " << range_name(r) << ": fitted O = " << O << " us/byte changes o by " << 100 * drift / o
                << "% over the range, within noise: exported as 0\n";
            O = 0;
        }
        Exported values[] = {
            {"-L", "L", r.L.value}, {"-o", "o", o}, {"-g", "g", r.g.value}, {"-G", "G", r.G.value}, {"-O", "O", O}};
        std::ostringstream line;
        for (const Exported& value : values) {
            Result<long long> ps = picoseconds(value, r);
            if (!ps)
                return ps.status();
            line << value.flag << " " << *ps << " ";
        }
        out << "# " << range_name(r) << "\n" << line.str() << "-S " << uint64_t(r.to_bytes) << "\n";
    }
    return out.str();
}

} // namespace ngx
