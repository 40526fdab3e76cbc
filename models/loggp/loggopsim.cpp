// LogGOPSim export (see loggopsim.hpp).
#include <models/loggp/loggopsim.hpp>

#include <ngx/sizes.hpp>

#include <algorithm>
#include <climits>
#include <cmath>
#include <sstream>
#include <vector>

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

// The unit of an export: LogGOPSim's parameters are C ints without a unit,
// so the finest in which every value fits keeps the most digits of the
// per-byte costs (18 ps/B in whole ps is 3% off; in fs 0.003%).
struct Unit {
    const char* name; // "femtoseconds"
    const char* symbol;
    double per_us;
};
constexpr Unit femtosecond_unit{"femtoseconds", "fs", 1e9}, picosecond_unit{"picoseconds", "ps", 1e6};

// One parameter in integer units, or why it cannot be exported.
Result<long long> in_unit(const Exported& p, const fit::LogGPRange& r, const Unit& unit)
{
    std::string where = "--export loggopsim: range " + range_name(r) + ": " + p.name;
    if (!std::isfinite(p.us))
        return Status::usage(where + " is not known; the model cannot be exported");
    double v = std::round(p.us * unit.per_us);
    if (v < 0) {
        std::ostringstream value;
        value << p.us;
        return Status::usage(where + " = " + value.str() +
                             " us is negative; LogGOPSim cannot simulate it (refit with more sizes or "
                             "--loggp-detector none)");
    }
    if (v > double(INT_MAX))
        return Status::usage(where + " exceeds 2^31-1 " + unit.symbol + ", LogGOPSim's largest parameter");
    return (long long)v;
}

struct RangeExport {
    const fit::LogGPRange* range;
    std::string notes; // comment lines before the range's line
    std::vector<Exported> values;
};

// A range that is not LogGP because its L came out below 0 (its overheads
// overlap its latency, LogGPRange::negative_parameters). LogGOPSim's round
// trip, 2 (2o + L + (s-1) max(O, G)), reads o and L only as 2o + L:
// - where 2o + L >= 0, L goes out as 0 and o as o + L/2, the same round
//   trip, with the overlap taken off each side's CPU time;
// - where 2o + L < 0 the round trip's line starts below 0, which no
//   parameters of LogGOPSim give: o and L go out as 0 and the per-byte cost
//   max(O, G) is lowered so that the round trip at the range's largest size
//   S stays the model's. Below S the exported round trip is longer, by at
//   most -2 (2o + L) at the range's smallest size; the note gives that share
//   of the model's round trip there. A per-byte cost that would go below 0
//   is left as it is (in_unit then refuses L).
void carry_negative_latency(const fit::LogGPRange& r, double& L, double& o, double& O, double& G, std::ostream& notes)
{
    notes << "# " << range_name(r) << ": not LogGP, fitted L = " << L
          << " us < 0 (the overheads overlap the latency): ";
    const double intercept = 2 * o + L;
    if (intercept >= 0) {
        notes << "L exported as 0 and o as " << intercept / 2 << " us (fitted " << o << "), the round trip unchanged\n";
        o = intercept / 2;
        L = 0;
        return;
    }
    const double span = r.to_bytes - 1, per_byte = std::max(O, G) + intercept / std::max(span, 1.0);
    const double first = r.from_bytes - 1;
    const double model_at_first = 2 * (intercept + first * std::max(O, G));
    if (!(span > 0) || !(per_byte >= 0) || !(model_at_first > 0)) {
        notes << "2o + L = " << intercept << " us < 0 and no per-byte cost >= 0 keeps the round trip\n";
        return;
    }
    const double longer_at_first = -2 * intercept * (1 - first / span);
    notes << "2o + L = " << intercept << " us < 0, so L and o exported as 0 and max(O, G) as " << per_byte
          << " us/byte (fitted " << std::max(O, G) << "): the round trip at S unchanged, below S longer, and grows by "
          << 100 * longer_at_first / model_at_first << "% at most (at " << format_bytes(uint64_t(r.from_bytes))
          << ")\n";
    O = std::min(O, per_byte);
    G = std::min(G, per_byte);
    o = 0;
    L = 0;
}

// One range's values in LogGOPSim's terms (see loggopsim.hpp), in us.
RangeExport export_range(const fit::LogGPRange& r)
{
    RangeExport e{&r, "", {}};
    std::ostringstream notes;
    double o = (r.o_at(1) + r.recv_at_one()) / 2;
    double o_slope_s = r.send_slope(), o_slope_r = r.recv_slope();
    // An overlapped range's eq. (1) is LogGOPSim's round trip with O = max(O_s, O_r), exactly.
    double O = r.overlapped ? std::max(o_slope_s, o_slope_r) : (o_slope_s + o_slope_r) / 2;
    // A slightly negative fitted slope is noise around a flat overhead. It is
    // measured against the model's one-way time at S, not against o: on shm o
    // is a few ns, below one timer step, and any slope is a large share of it.
    // Within 5% of that time it goes out as 0, and the note says so; the
    // round trip LogGOPSim simulates does not move, since it pays
    // max(O, G) per byte and the exported G is never negative.
    const double drift = std::fabs(O) * (r.to_bytes - 1), one_way_at_S = r.L.value + r.transfer_at(r.to_bytes);
    if (O < 0 && std::isfinite(drift) && drift <= 0.05 * std::fabs(one_way_at_S)) {
        notes << "# " << range_name(r) << ": fitted O = " << O << " us/byte lowers each overhead by " << drift
              << " us over the range, " << 100 * drift / one_way_at_S
              << "% of the model's one-way time at S, within noise: exported as 0 (the round trip does not "
                 "change)\n";
        O = 0;
    }
    double G = r.G.value;
    if (!r.overlapped && (o_slope_s != 0 || o_slope_r != 0)) { // additive eq. (1): its per-byte sum as G
        G += o_slope_s + o_slope_r;
        notes << "# " << range_name(r) << ": additive, eq. (1) pays O_s + O_r + G per byte and LogGOPSim "
              << "max(O, G): G exported as that sum, " << G << " us/byte (fitted G " << r.G.value << ")\n";
    }
    if (G < 0) { // LogGOPSim has no negative cost: the range's model shrinks with the size (noise)
        const double one_way = r.L.value + r.o_at(1) + r.recv_at_one();
        notes << "# " << range_name(r) << ": the per-byte cost " << G << " us/byte is below 0, the model's round "
              << "trip shrinks by " << 100 * -G * (r.to_bytes - 1) / one_way
              << "% over the range (noise around a flat one): G exported as 0\n";
        G = 0;
    }
    // A measured exchange share f < 1 (models/loggp/exchange_share.hpp): LogGOPSim's O is
    // the send's CPU, f O, and G at least O, as ngx's collective models take
    // it (models/collectives/collectives.hpp, loggp_message_cost); its receive then pays
    // max(O, G) per byte as before.
    const double f = r.exchange_cpu_share;
    if (std::isfinite(f) && f < 1) {
        const double cpu = std::max(std::max(f, 0.0) * O, 0.0);
        G = std::max(G, O);
        notes << "# " << range_name(r) << ": a send's CPU takes " << f << " of O (exchange_cpu_share): O exported "
              << "as " << cpu << " us/byte (fitted " << O << "), G as " << G << " us/byte\n";
        O = cpu;
    }
    double L = r.L.value;
    if (L < 0)
        carry_negative_latency(r, L, o, O, G, notes);
    double g = r.g.value;
    if (g < 0) {
        // A negative gap is what a stream whose time per message grows faster
        // than its size leaves (eq. (7)'s line crossing 0): LogGOPSim has no
        // negative gap, and a round trip does not read it.
        notes << "# " << range_name(r) << ": not LogGP, fitted g = " << g << " us < 0: exported as 0 (a round trip "
              << "does not read g; a stream of this range then costs what o and G give it)\n";
        g = 0;
    }
    e.notes = notes.str();
    e.values = {{"-L", "L", L}, {"-o", "o", o}, {"-g", "g", g}, {"-G", "G", G}, {"-O", "O", O}};
    return e;
}

// Femtoseconds when every value fits in them, else picoseconds.
Unit finest_unit(const std::vector<RangeExport>& ranges)
{
    for (const RangeExport& e : ranges)
        for (const Exported& v : e.values)
            if (std::isfinite(v.us) && std::round(v.us * femtosecond_unit.per_us) > double(INT_MAX))
                return picosecond_unit;
    return femtosecond_unit;
}

} // namespace

Status loggopsim_exportable(const fit::LogGPRange& range)
{
    const RangeExport e = export_range(range);
    for (const Exported& value : e.values)
        NGX_TRY(in_unit(value, range, picosecond_unit).status());
    return Status::ok();
}

Result<std::string> loggopsim_parameters(const fit::LogGPParams& params)
{
    std::vector<RangeExport> ranges;
    for (const fit::LogGPRange& r : params.ranges)
        ranges.push_back(export_range(r));
    const Unit unit = finest_unit(ranges);
    std::ostringstream out;
    out << "# LogGOPSim parameters in integer " << unit.name << " (read LogGOPSim's times in " << unit.symbol
        << "), one line per protocol range;\n# o, O = mean of the send and receive overhead lines' intercepts and "
           "slopes (O their larger slope where the range is overlapped); S = the range's largest size\n";
    for (const RangeExport& e : ranges) {
        std::ostringstream line;
        for (const Exported& value : e.values) {
            NGX_ASSIGN_OR_RETURN(long long v, in_unit(value, *e.range, unit));
            line << value.flag << " " << v << " ";
        }
        out << e.notes << "# " << range_name(*e.range) << "\n"
            << line.str() << "-S " << uint64_t(e.range->to_bytes) << "\n";
    }
    return out.str();
}

} // namespace ngx
