// models/loggp/loggopsim.hpp: what the LogGOPSim export writes for a range,
// and what it keeps of a range that is not LogGP.
#include <models/loggp/loggopsim.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <string>

using namespace ngx;
using fit::LogGPParams;
using fit::LogGPRange;
using fit::Measured;

namespace {

// An overlapped range from 1 B to 4 KiB with o_s = o_r = o and no per-byte overheads.
LogGPRange range_of(double L, double o, double g, double G)
{
    LogGPRange r;
    r.from_bytes = 1;
    r.to_bytes = 4096;
    r.L = Measured::exact(L);
    r.g = Measured::exact(g);
    r.G = Measured::exact(G);
    r.send_line = fit::OverheadLine::exact(o, 0);
    r.recv_line = fit::OverheadLine::exact(o, 0);
    r.overlapped = true;
    return r;
}

struct Export {
    std::string text;
    std::map<std::string, double> us; // "-L" -> microseconds
};

// The export of one range, its one line of flags read back in microseconds.
Export export_of(const LogGPRange& r)
{
    LogGPParams p;
    p.ranges.push_back(r);
    Result<std::string> text = loggopsim_parameters(p);
    EXPECT_TRUE(text) << text.status().message();
    Export e{text ? *text : "", {}};
    const double per_us = e.text.find("femtoseconds") != std::string::npos ? 1e9 : 1e6;
    std::istringstream lines(e.text);
    for (std::string line; std::getline(lines, line);)
        if (line.rfind("-L", 0) == 0) {
            std::istringstream words(line);
            for (std::string flag, value; words >> flag >> value;)
                e.us[flag] = flag == "-S" ? std::stod(value) : std::stod(value) / per_us;
        }
    return e;
}

// LogGOPSim's round trip of s bytes: 2 (2o + L + (s-1) max(O, G)).
double round_trip(const Export& e, double s)
{
    return 2 * (2 * e.us.at("-o") + e.us.at("-L") + (s - 1) * std::max(e.us.at("-O"), e.us.at("-G")));
}

} // namespace

TEST(LogGOPSimExport, AnAdmissibleRangeGoesOutAsFitted)
{
    const Export e = export_of(range_of(2.0, 1.5, 3.0, 0.001));
    EXPECT_NEAR(e.us.at("-L"), 2.0, 1e-9);
    EXPECT_NEAR(e.us.at("-o"), 1.5, 1e-9);
    EXPECT_NEAR(e.us.at("-g"), 3.0, 1e-9);
    EXPECT_NEAR(e.us.at("-G"), 0.001, 1e-9);
    EXPECT_EQ(e.us.at("-S"), 4096);
    EXPECT_EQ(e.text.find("not LogGP"), std::string::npos);
}

TEST(LogGOPSimExport, ANegativeLatencyMovesIntoTheOverheadsAndKeepsTheRoundTrip)
{
    const LogGPRange r = range_of(-0.3, 0.5, 1.0, 0.0002);
    LogGPParams fitted;
    fitted.ranges.push_back(r);
    const Export e = export_of(r);
    EXPECT_EQ(e.us.at("-L"), 0);
    EXPECT_NEAR(e.us.at("-o"), 0.35, 1e-9);
    for (double s : {1.0, 1024.0, 4096.0})
        EXPECT_NEAR(round_trip(e, s), fitted.prtt(1, 0, s), 1e-6) << s << " B";
    EXPECT_NE(e.text.find("fitted L = -0.3 us < 0"), std::string::npos) << e.text;
    EXPECT_TRUE(loggopsim_exportable(r));
}

TEST(LogGOPSimExport, ANegativeGapGoesOutAsZeroWithANote)
{
    const Export e = export_of(range_of(2.0, 1.5, -0.4, 0.001));
    EXPECT_EQ(e.us.at("-g"), 0);
    EXPECT_NE(e.text.find("fitted g = -0.4 us < 0"), std::string::npos) << e.text;
}

TEST(LogGOPSimExport, ALatencyBelowBothOverheadsKeepsTheRoundTripAtTheLargestSize)
{
    // 2o + L = -0.4: o and L go out as 0, max(O, G) lowered by 0.4 / (S - 1),
    // the round trip at S the model's and longer below it, as the note says.
    LogGPRange r = range_of(-0.6, 0.1, 1.0, 0.001);
    r.from_bytes = 2048;
    r.to_bytes = 8192;
    LogGPParams fitted;
    fitted.ranges.push_back(r);
    const Export e = export_of(r);
    EXPECT_EQ(e.us.at("-L"), 0);
    EXPECT_EQ(e.us.at("-o"), 0);
    EXPECT_NEAR(round_trip(e, 8192), fitted.prtt(1, 0, 8192), 1e-5); // per-byte costs rounded to whole fs
    const double longer = round_trip(e, 2048) / fitted.prtt(1, 0, 2048) - 1;
    EXPECT_GT(longer, 0);
    std::ostringstream stated;
    stated << "grows by " << 100 * longer << "% at most";
    EXPECT_NE(e.text.find(stated.str().substr(0, 14)), std::string::npos) << e.text << "\n" << stated.str();
    EXPECT_TRUE(loggopsim_exportable(r));
}

TEST(LogGOPSimExport, ALatencyNoPerByteCostCanCarryIsRefused)
{
    // 2o + L = -1 over 4 KiB needs 0.000244 us/B taken off a per-byte cost of 0.0001.
    LogGPRange r = range_of(-2.0, 0.5, 1.0, 0.0001);
    r.from_bytes = 2048;
    LogGPParams p;
    p.ranges.push_back(r);
    const Result<std::string> text = loggopsim_parameters(p);
    ASSERT_FALSE(text);
    EXPECT_NE(text.status().message().find("L = -2 us is negative"), std::string::npos) << text.status().message();
    EXPECT_FALSE(loggopsim_exportable(r));
}

TEST(LogGOPSimExport, ANegativeOverheadIsRefused)
{
    LogGPRange r = range_of(2.0, 1.5, 3.0, 0.001);
    r.send_line = fit::OverheadLine::exact(-4.0, 0); // o = (o_s + o_r) / 2 = -1.25
    EXPECT_FALSE(loggopsim_exportable(r));
}
