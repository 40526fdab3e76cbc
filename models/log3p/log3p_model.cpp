// log3P fitted to a strided run (see models/log3p/log3p_model.hpp).
#include <models/log3p/log3p_model.hpp>

#include <models/base/least_squares.hpp>
#include <models/base/model_error.hpp>

#include <models/base/model_json.hpp>

#include <algorithm>
#include <map>

namespace ngx::patterns {
namespace {

Json error_json(const fit::ModelError& e)
{
    return {{"max_relative", json_number(e.max_rel)}, {"mean_relative", json_number(e.mean_rel)}, {"count", e.count}};
}

Json line_json(const std::optional<fit::LineFit>& line)
{
    if (!line)
        return nullptr;
    return {{"intercept_us", json_number(line->intercept.value)}, {"per_byte_us", json_number(line->slope.value)}};
}

std::vector<double> numbers(const Json& array)
{
    std::vector<double> values;
    for (const Json& v : array)
        values.push_back(v.is_number() ? v.get<double>() : std::nan(""));
    return values;
}

// l_mw(s) = a_d + b_d s per stride: the fitted function behind the table.
Json l_mw_lines(const fit::Log3PParams& p, size_t element)
{
    Json lines = Json::array();
    for (const fit::Log3PParams::StrideTable& t : p.strided) {
        if (t.sizes.size() < 2)
            continue;
        auto line = fit::fit_line(t.sizes, t.l_mw);
        if (line)
            lines.push_back({{"stride_elements", t.stride / double(element)},
                             {"intercept_us", json_number(line->intercept.value)},
                             {"per_byte_us", json_number(line->slope.value)}});
    }
    return lines;
}

Json points_json(const std::vector<GridPoint>& grid)
{
    Json points = Json::array();
    for (const GridPoint& g : grid)
        points.push_back({{"size", g.size},
                          {"stride", g.stride},
                          {"t01_us", json_number(g.t_remote)},
                          {"t00_us", json_number(g.t_self)},
                          {"tmem_us", json_number(g.t_mem)},
                          {"pack_us", json_number(g.pack)},
                          {"unpack_us", json_number(g.unpack)}});
    return points;
}

struct HeldOut {
    fit::ModelError paper;  // Cameron et al. 2007's form: o_net from contiguous transfers
    fit::ModelError packed; // the packed path's o_net, from the other remote strided points
};

// Every strided point (d > 1) inside the measured sizes, predicted by a fit
// that did not see it (neither its send to self, whose l_mw is interpolated
// from the neighbouring sizes, nor its remote time, which the packed path's
// calibration leaves out: it uses the other strides at that size, or
// interpolates from the other sizes).
HeldOut held_out_error(const std::vector<GridPoint>& grid, size_t element)
{
    uint64_t smallest = UINT64_MAX, largest = 0;
    for (const GridPoint& g : grid) {
        smallest = std::min(smallest, g.size);
        largest = std::max(largest, g.size);
    }
    fit::ModelErrorAccumulator paper, packed;
    for (size_t i = 0; i < grid.size(); ++i) {
        if (grid[i].stride == 1 || grid[i].size == smallest || grid[i].size == largest)
            continue;
        std::vector<fit::Log3PSample> c;
        std::vector<fit::Log3PStridedSample> st;
        log3p_samples(grid, element, i, c, st);
        auto f = fit::fit_log3p(c, st);
        if (!f)
            continue;
        const double s = double(grid[i].size), d = double(grid[i].stride * element);
        paper.add(grid[i].t_remote, f->params.time(s, d));
        fit::calibrate_packed_network(f->params, double(element), st);
        packed.add(grid[i].t_remote, f->params.time(s, d));
    }
    return {paper.result(), packed.result()};
}

// Predicted T_01(s,d) against the measured one at every strided point of the
// grid. Unit stride is left out: o_net is solved from T_01(s,1), so log3P
// reproduces it exactly and would only dilute the error.
fit::ModelError grid_error(const fit::Log3PParams& p, const std::vector<GridPoint>& grid, size_t element)
{
    fit::ModelErrorAccumulator acc;
    for (const GridPoint& g : grid)
        if (g.stride != 1)
            acc.add(g.t_remote, p.time(double(g.size), double(g.stride * element)));
    return acc.result();
}

// LogGP of the same transfers: 2o + L + (s-1)G, a line through the remote
// unit-stride half round trips; it predicts every stride alike.
Json loggp_json(const std::vector<GridPoint>& grid)
{
    std::vector<double> sizes, times;
    for (const GridPoint& g : grid)
        if (g.stride == 1) {
            sizes.push_back(double(g.size));
            times.push_back(g.t_remote);
        }
    auto line = fit::fit_line(sizes, times);
    if (!line)
        return nullptr;
    fit::ModelErrorAccumulator strided, unit; // the strided points, as log3P's error_on_grid
    for (const GridPoint& g : grid)
        (g.stride == 1 ? unit : strided).add(g.t_remote, line->predict(double(g.size)));
    return {{"description", "2o + L + (s-1)G through the remote unit-stride half round trips (blind to the stride)"},
            {"two_o_plus_L_us", json_number(line->intercept.value + line->slope.value)},
            {"G_us_per_byte", json_number(line->slope.value)},
            {"error_on_grid", error_json(strided.result())},
            {"error_unit_stride", error_json(unit.result())}};
}

} // namespace

void log3p_samples(const std::vector<GridPoint>& grid, size_t element, size_t skip,
                   std::vector<fit::Log3PSample>& contiguous, std::vector<fit::Log3PStridedSample>& strided)
{
    std::map<uint64_t, const GridPoint*> unit;
    for (const GridPoint& g : grid)
        if (g.stride == 1)
            unit[g.size] = &g;
    for (const auto& [size, g] :
         unit) // Cameron et al. 2007, section 4.1: T_00(s), T_01(s), T_mem(s) of contiguous data
        contiguous.push_back({double(size), g->t_self, g->t_remote, g->t_mem});
    for (size_t i = 0; i < grid.size(); ++i)
        if (i != skip)
            strided.push_back(
                {double(grid[i].size), double(grid[i].stride * element), grid[i].t_self, grid[i].t_remote});
}

Json log3p_json(const fit::Log3PParams& p, size_t element)
{
    Json strided = Json::array();
    for (const fit::Log3PParams::StrideTable& t : p.strided)
        strided.push_back({{"stride_elements", t.stride / double(element)},
                           {"stride_bytes", t.stride},
                           {"sizes", t.sizes},
                           {"l_mw_us", t.l_mw}});
    return {{"element_bytes", element}, {"sizes", p.sizes},    {"o_mw_us", p.o_mw},
            {"o_net_us", p.o_net},      {"t_mem_us", p.t_mem}, {"strided", strided}};
}

Result<fit::Log3PParams> log3p_from_json(const Json& model)
{
    const Json* m = &model;
    if (model.contains("models") && model["models"].contains("log3p"))
        m = &model["models"]["log3p"];
    if (!m->is_object() || !m->contains("sizes") || !m->contains("o_mw_us") || !m->contains("o_net_us"))
        return Status::usage("the file holds no log3P model (run -x strided)");
    fit::Log3PParams p;
    p.sizes = numbers((*m)["sizes"]);
    p.o_mw = numbers((*m)["o_mw_us"]);
    p.o_net = numbers((*m)["o_net_us"]);
    p.t_mem = numbers(m->value("t_mem_us", Json::array()));
    for (const Json& t : m->value("strided", Json::array()))
        p.strided.push_back({t.value("stride_bytes", 0.0), numbers(t["sizes"]), numbers(t["l_mw_us"])});
    if (p.sizes.empty() || p.o_mw.size() != p.sizes.size() || p.o_net.size() != p.sizes.size())
        return Status::usage("the log3P model's tables are empty or of different lengths");
    return p;
}

Log3PParts log3p_parts(const GridPoint& u, const GridPoint& p)
{
    Log3PParts parts;
    parts.o_mw = u.t_self - u.t_mem;                                    // T_0,0(s) = o_mw/2 + T_mem + o_mw/2
    parts.o_net = u.t_remote - parts.o_mw;                              // T_0,1(s) = o_mw/2 + o_net + o_mw/2
    parts.l_mw = p.stride == 1 ? 0.0 : p.t_self - parts.o_mw - u.t_mem; // T_0,0(s,d) = o_mw + l_mw + T_mem
    return parts;
}

Result<Json> grid_model(const std::vector<GridPoint>& grid, size_t element, const std::string& type,
                        const std::string& self_method)
{
    std::vector<fit::Log3PSample> c;
    std::vector<fit::Log3PStridedSample> st;
    log3p_samples(grid, element, grid.size(), c, st);
    auto f = fit::fit_log3p(c, st);
    if (!f)
        return Status::runtime("log3P fit: " + f.status().message());
    const HeldOut held = held_out_error(grid, element);
    Json log3p = log3p_json(f->params, element);
    log3p["lines"] = {{"o_mw", line_json(f->o_mw_line)},
                      {"o_net", line_json(f->o_net_line)},
                      {"l_mw", l_mw_lines(f->params, element)}};
    const fit::ModelError on_grid = grid_error(f->params, grid, element); // strided T_0,1(s,d), d > 1
    log3p["error_on_grid"] = error_json(on_grid);
    log3p["held_out"] = error_json(held.paper);
    // The packed path (models/log3p/log3p.hpp): an alternative reported beside the
    // model, not used by its predictions. On this machine it helped over
    // shared memory on a quiet run and hurt under load, where it carries the
    // noise of the remote strided times it is calibrated on.
    fit::Log3PParams packed = f->params;
    fit::calibrate_packed_network(packed, double(element), st);
    log3p["packed_path"] = {
        {"description", "o_net of strided transfers from the remote strided times of the other strides"},
        {"sizes", packed.packed_sizes},
        {"o_net_us", packed.packed_o_net},
        {"error_on_grid", error_json(grid_error(packed, grid, element))},
        {"held_out", error_json(held.packed)}};
    Json model = {{"kind", "log3p"}};
    // The fitted functions of s behind the tables (Cameron et al. 2007, Fig. 5: linear in s).
    if (f->o_mw_line) {
        model["o_mw_us"] = measured_json(f->o_mw_line->intercept);
        model["o_mw_us_per_byte"] = measured_json(f->o_mw_line->slope);
    }
    if (f->o_net_line) {
        model["o_net_us"] = measured_json(f->o_net_line->intercept);
        model["o_net_us_per_byte"] = measured_json(f->o_net_line->slope);
    }
    model["prediction_error"] = {{"max_relative", json_number(on_grid.max_rel)},
                                 {"mean_relative", json_number(on_grid.mean_rel)}};
    model["strided"] = {{"element_type", type},
                        {"element_bytes", element},
                        {"send_to_self", self_method},
                        {"points", points_json(grid)}};
    model["models"] = {{"log3p", log3p}, {"loggp", loggp_json(grid)}};
    return model;
}

} // namespace ngx::patterns
