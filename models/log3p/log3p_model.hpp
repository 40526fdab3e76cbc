// The log3P model of Cameron et al. 2007 fitted to one strided run: the measured
// grid (sizes x strides), the model's parameters per size, its error on the
// grid, a leave-one-out check of held-out (s, d) points, and LogGP's
// prediction of the same transfers beside it (a line through the remote
// unit-stride half round trips: 2o + L + (s-1)G, blind to the stride).
//
//     std::vector<GridPoint> grid = ...;            // one per (size, stride)
//     Result<Json> model = grid_model(grid, 8, "double", "module");
//     // {"kind": "log3p", "strided": {...}, "models": {"log3p": {...}, "loggp": {...}}, ...}
#ifndef NGX_PATTERNS_STRIDED_GRID_MODEL_HPP
#define NGX_PATTERNS_STRIDED_GRID_MODEL_HPP

#include <models/log3p/log3p.hpp>
#include <ngx/record.hpp>
#include <ngx/status.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ngx::patterns {

// Medians of one (size, stride) point, microseconds.
struct GridPoint {
    uint64_t size = 0;   // s, data bytes
    uint64_t stride = 1; // d, elements
    double t_remote = 0; // T_0,1(s,d): remote half round trip
    double t_self = 0;   // T_0,0(s,d): send to self
    double t_mem = 0;    // T_mem(s,d): copy of the layout alone
    double pack = 0;     // gather into a contiguous buffer
    double unpack = 0;   // scatter from it
};

// log3P's parts at one grid point, from its size's unit-stride point u
// (Cameron et al. 2007, eq. (6)): T_0,0(s) = o_mw/2 + T_mem + o_mw/2,
// T_0,1(s) = o_mw/2 + o_net + o_mw/2, T_0,0(s,d) = o_mw + l_mw + T_mem
// (l_mw 0 at unit stride); the model's time is o_mw + l_mw + o_net.
struct Log3PParts {
    double o_mw = 0, o_net = 0, l_mw = 0;
    double time_us() const { return o_mw + l_mw + o_net; }
};
Log3PParts log3p_parts(const GridPoint& unit, const GridPoint& point);

// Fits log3P (needs stride 1 at every size); the JSON the run keeps as its model.
Result<Json> grid_model(const std::vector<GridPoint>& grid, size_t element, const std::string& type,
                        const std::string& self_method);

// Samples for fit::fit_log3p from the grid: unit stride as contiguous
// samples and every stride (unit stride included, whose l_mw is 0) as
// strided samples, strides in bytes as the fit takes them. `skip` (an index
// into grid, or grid.size()) leaves one strided point out.
void log3p_samples(const std::vector<GridPoint>& grid, size_t element, size_t skip,
                   std::vector<fit::Log3PSample>& contiguous, std::vector<fit::Log3PStridedSample>& strided);

// The log3P model JSON ("models.log3p") from fitted parameters, and back.
Json log3p_json(const fit::Log3PParams& params, size_t element);
Result<fit::Log3PParams> log3p_from_json(const Json& model);

} // namespace ngx::patterns

#endif
