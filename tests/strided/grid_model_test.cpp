// The log3P algebra of the strided pattern on synthetic grids with known
// o_mw(s), l_mw(s,d), o_net(s) and T_mem(s): the measurements are built
// with the equations of Cameron et al. 2007, section 4.1, and the fit must
// give the terms back, predict held-out points, and LogGP (blind to strides)
// must not.
#include <ngx/measure/strided_layout.hpp>
#include <models/log3p/log3p_model.hpp>

#include <gtest/gtest.h>

#include <cmath>

using namespace ngx;
using namespace ngx::patterns;

namespace {

constexpr size_t element = 8;

double o_mw(double s)
{
    return 1.5 + 0.0004 * s;
}
double o_net(double s)
{
    return 20 + 0.002 * s;
}
double t_mem(double s)
{
    return 0.0001 * s;
}
double l_mw(double s, double d) // per element, growing with the stride
{
    return d == 1 ? 0 : (s / element) * 0.002 * std::log2(d);
}

std::vector<GridPoint> synthetic_grid()
{
    std::vector<GridPoint> grid;
    for (uint64_t d : {1, 2, 16, 64, 256})
        for (uint64_t s = 1024; s <= 65536; s *= 2) {
            const double ds = double(s), dd = double(d);
            GridPoint p;
            p.size = s;
            p.stride = d;
            p.t_self = o_mw(ds) + l_mw(ds, dd) + t_mem(ds);   // T_0,0(s,d) = o_mw + l_mw + T_mem
            p.t_remote = o_mw(ds) + l_mw(ds, dd) + o_net(ds); // T_0,1(s,d) = o_mw + l_mw + o_net, eq. (6)
            p.t_mem = t_mem(ds);
            grid.push_back(p);
        }
    return grid;
}

} // namespace

TEST(StridedModel, RecoversTheTermsOfEveryPoint)
{
    Result<Json> model = grid_model(synthetic_grid(), element, "double", "synthetic");
    ASSERT_TRUE(model) << model.status().message();
    Result<fit::Log3PParams> p = log3p_from_json(*model);
    ASSERT_TRUE(p);
    for (double s = 1024; s <= 65536; s *= 2) {
        EXPECT_NEAR(p->o_mw_at(s), o_mw(s), 1e-9) << s;
        EXPECT_NEAR(p->o_net_at(s), o_net(s), 1e-9) << s;
        for (double d : {2.0, 16.0, 64.0, 256.0})
            EXPECT_NEAR(p->l_mw_at(s, d * element), l_mw(s, d), 1e-9) << s << " " << d;
        EXPECT_NEAR(p->l_mw_at(s, element), 0, 1e-12); // unit stride: no middleware latency
    }
    const Json& log3p = (*model)["models"]["log3p"];
    EXPECT_LT(log3p["error_on_grid"]["max_relative"].get<double>(), 1e-9);
    EXPECT_EQ(log3p["error_on_grid"]["count"].get<int>(), 28); // the strided points: 4 strides x 7 sizes
}

TEST(StridedModel, PredictsHeldOutPointsAndBeatsLogGP)
{
    Result<Json> model = grid_model(synthetic_grid(), element, "double", "synthetic");
    ASSERT_TRUE(model);
    const Json& held = (*model)["models"]["log3p"]["held_out"];
    EXPECT_EQ(held["count"].get<int>(), 4 * 5); // strided points at the 5 inner sizes
    // Linear in s between measured sizes: interpolation is exact.
    EXPECT_LT(held["max_relative"].get<double>(), 1e-9);
    // LogGP's line through the contiguous remote times misses the strided cost.
    const Json& loggp = (*model)["models"]["loggp"];
    EXPECT_LT(loggp["error_unit_stride"]["max_relative"].get<double>(), 1e-9);
    EXPECT_GT(loggp["error_on_grid"]["max_relative"].get<double>(), 0.3);
}

TEST(StridedModel, BroadcastFormulasOfSection433)
{
    Result<Json> model = grid_model(synthetic_grid(), element, "double", "synthetic");
    ASSERT_TRUE(model);
    Result<fit::Log3PParams> p = log3p_from_json(*model);
    ASSERT_TRUE(p);
    const double s = 16384, d = 64;
    const double mw = o_mw(s), l = l_mw(s, d), net = o_net(s);
    EXPECT_NEAR(p->linear_bcast(4, s, d * element), 4 * (mw / 2 + l / 2) + net, 1e-9);
    EXPECT_NEAR(p->tree_bcast(4, s, d * element), (mw + l + net) * 2, 1e-9);
    EXPECT_NEAR(p->tree_bcast(3, s, d * element), (mw + l + net) * 2, 1e-9); // ceil(log2 3) = 2
    EXPECT_NEAR(p->time(s, d * element), mw + l + net, 1e-9);
}

// A module whose strided transfers take another network path than its
// contiguous ones (Open MPI over shared memory: single copy for contiguous
// data, copy-in/copy-out fragments for a derived datatype): the remote
// strided times carry o_net_packed(s) = o_net(s) + 0.004 s instead of
// o_net(s). The form of Cameron et al. 2007 (the model) misses that by
// construction; the packed path reported beside it, calibrated from the
// other strides' remote times, predicts held-out points.
TEST(StridedModel, PackedPathPredictsWhatThePaperFormMisses)
{
    std::vector<GridPoint> grid = synthetic_grid();
    for (GridPoint& g : grid)
        if (g.stride > 1)
            g.t_remote += 0.004 * double(g.size);
    Result<Json> model = grid_model(grid, element, "double", "synthetic");
    ASSERT_TRUE(model);
    const Json& log3p = (*model)["models"]["log3p"];
    EXPECT_GT(log3p["held_out"]["mean_relative"].get<double>(), 0.1);
    EXPECT_LT(log3p["packed_path"]["held_out"]["max_relative"].get<double>(), 1e-9);
    EXPECT_LT(log3p["packed_path"]["error_on_grid"]["max_relative"].get<double>(), 1e-9);
    // The algebra behind it (models/log3p/log3p.hpp): strided transfers take the packed o_net, unit stride keeps o_net.
    std::vector<fit::Log3PSample> c;
    std::vector<fit::Log3PStridedSample> st;
    log3p_samples(grid, element, grid.size(), c, st);
    auto f = fit::fit_log3p(c, st);
    ASSERT_TRUE(f);
    fit::calibrate_packed_network(f->params, double(element), st);
    const double s = 16384, d = 64;
    EXPECT_NEAR(f->params.time(s, d * element), o_mw(s) + l_mw(s, d) + o_net(s) + 0.004 * s, 1e-9);
    EXPECT_NEAR(f->params.time(s, element), o_mw(s) + o_net(s), 1e-9);
}

TEST(StridedModel, NeedsUnitStride)
{
    std::vector<GridPoint> grid = synthetic_grid();
    std::erase_if(grid, [](const GridPoint& g) { return g.stride == 1; });
    EXPECT_FALSE(grid_model(grid, element, "double", "synthetic"));
}

TEST(StridedLayout, SpanPackUnpack)
{
    const Layout layout{8, 4};
    EXPECT_EQ(layout.span(64), (8 - 1) * 32 + 8u);
    std::vector<uint8_t> strided(layout.span(64)), packed(64), back(layout.span(64));
    for (size_t i = 0; i < strided.size(); ++i)
        strided[i] = uint8_t(i);
    pack(layout, strided.data(), packed.data(), 64);
    for (size_t e = 0; e < 8; ++e)
        EXPECT_EQ(packed[e * 8], uint8_t(e * 32)) << e;
    unpack(layout, packed.data(), back.data(), 64);
    for (size_t e = 0; e < 8; ++e)
        EXPECT_EQ(std::memcmp(&back[e * 32], &strided[e * 32], 8), 0) << e;
}

TEST(StridedLayout, BadInput)
{
    EXPECT_FALSE(element_size("float"));
    EXPECT_EQ(*element_size("int"), 4u);
    EXPECT_FALSE(parse_strides("1,0", "strides"));
    EXPECT_FALSE(parse_strides("1,x", "strides"));
    EXPECT_EQ(*parse_strides("64,1,16,1", "strides"), (std::vector<uint64_t>{1, 16, 64}));
    EXPECT_FALSE(check_grid({1001, 1024}, {1}, 8, 1 << 20));     // 1001 B is no whole number of doubles
    EXPECT_FALSE(check_grid({1 << 20}, {1, 2048}, 8, 1u << 30)); // a 2 GiB span
    EXPECT_TRUE(check_grid({1 << 20}, {1, 64}, 8, 1u << 30));
}
