#include <models/loggp/loggp.hpp>
#include <models/loggp/loggp_joint.hpp>
#include <models/loggp/loggp_quality.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <initializer_list>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

using namespace ngx::fit;

namespace {

constexpr double n_msgs = 16;

// A transport described by what Listing 1 of Hoefler et al. 2007 would measure on it:
// the round trip, the per-message time of a stream (eq. (5) with d = 0: the
// larger of the sender's overhead and the gap), the sender's overhead and
// the receive overhead, each a function of x = s - 1.
struct Transport {
    std::function<double(double)> rtt, stream, o_s, o_r;
};

std::vector<double> powers_of_two()
{
    std::vector<double> sizes;
    for (double s = 1; s <= 65536; s *= 2)
        sizes.push_back(s);
    return sizes;
}

// Timing noise around 1 with scale `noise`: normal, or heavy-tailed
// (Student's t with 3 degrees of freedom times `noise`: one point in 70
// off by more than 5 `noise`, as a descheduled repetition is).
enum class Tails { normal, heavy };

std::vector<PrttSample> listing1(const Transport& t, double noise, unsigned seed,
                                 const std::vector<double>& sizes = powers_of_two(), Tails tails = Tails::normal)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> nd(0.0, noise);
    std::student_t_distribution<double> td(3.0);
    auto jitter = [&] { return noise > 0 ? 1 + (tails == Tails::heavy ? noise * td(rng) : nd(rng)) : 1.0; };
    std::vector<PrttSample> v;
    for (double s : sizes) {
        const double x = s - 1;
        PrttSample p;
        p.size = s;
        p.delay = t.rtt(x);
        p.prtt_1_0 = t.rtt(x) * jitter();
        p.prtt_n_0 = (t.rtt(x) + (n_msgs - 1) * t.stream(x)) * jitter();
        p.prtt_n_d = (n_msgs - 1) * p.delay + (t.rtt(x) + (n_msgs - 1) * t.o_s(x)) * jitter();
        p.o_r = t.o_r(x) * jitter();
        v.push_back(p);
    }
    return v;
}

// LogGP with overhead lines, exactly eqs. (1) and (5).
Transport additive()
{
    Transport t;
    t.o_s = [](double x) { return 1.2 + 0.0004 * x; };
    t.o_r = [](double x) { return 0.8 + 0.0002 * x; };
    t.rtt = [t](double x) { return 2 * (4 + t.o_s(x) + t.o_r(x) + 0.002 * x); };
    t.stream = [t](double x) { return std::max(t.o_s(x), 6 + 0.002 * x); };
    return t;
}

// Shared memory: the sender's copy is its overhead's slope and paces the
// stream (y(s) = o_s(s), eq. (7) reads the copy as G), and nothing else
// costs per byte: eq. (1) holds with G = 0.
Transport copy_paced()
{
    Transport t;
    t.o_s = [](double x) { return 0.05 + 0.0005 * x; };
    t.o_r = [](double x) { return 0.15 + 0.0001 * x; };
    t.rtt = [t](double x) { return 2 * (0.1 + t.o_s(x) + t.o_r(x)); };
    t.stream = t.o_s;
    return t;
}

// A pipelined transport (shm's ring with a large message): the sender's
// copy, the wire and the receiver's copy run at once, so one message costs
// the slowest per-byte stage once, as LogGOPSim's 2 (2o + L + x max(O, G)).
Transport pipelined(double O_s, double O_r, double G)
{
    Transport t;
    t.o_s = [O_s](double x) { return 0.02 + O_s * x; };
    t.o_r = [O_r](double x) { return 0.03 + O_r * x; };
    t.rtt = [=](double x) { return 2 * (0.1 + 0.02 + 0.03 + std::max({O_s, O_r, G}) * x); };
    t.stream = [t, G](double x) { return std::max(t.o_s(x), 0.03 + G * x); };
    return t;
}

LogGPOptions joint_options()
{
    LogGPOptions o;
    o.method = ChangePointMethod::none;
    o.joint = true;
    return o;
}

// Medians of one run as ngx saved them: size, PRTT(1,0,s), PRTT(n,0,s),
// PRTT(n,d,s), d, o_r (microseconds).
struct MeasuredSize {
    double size, prtt_1_0, prtt_n_0, prtt_n_d, delay, o_r;
};

std::vector<PrttSample> measured(std::initializer_list<MeasuredSize> run)
{
    std::vector<PrttSample> samples;
    for (const MeasuredSize& m : run) {
        PrttSample p;
        p.size = m.size;
        p.prtt_1_0 = m.prtt_1_0;
        p.prtt_n_0 = m.prtt_n_0;
        p.prtt_n_d = m.prtt_n_d;
        p.delay = m.delay;
        p.o_r = m.o_r;
        samples.push_back(p);
    }
    return samples;
}

// Fits one range of measured medians (joint fit, no change points), expects
// it to meet the goal (mean <= 5%, max <= 15%) and returns its L.
std::string negatives_of(const LogGPFit& fit)
{
    std::string names;
    for (const LogGPRange& r : fit.params.ranges)
        for (const std::string& name : r.negative_parameters())
            names += " " + name;
    return names;
}

double L_of_a_range_meeting_the_goal(std::initializer_list<MeasuredSize> run, bool signed_when_missing = true)
{
    LogGPOptions opt = joint_options();
    opt.relative_noise = 0.01; // the least noise the pattern reports (models/loggp/loggp_model.cpp)
    opt.signed_when_missing = signed_when_missing;
    const auto fit = fit_loggp(measured(run), n_msgs, opt);
    EXPECT_TRUE(fit);
    if (!fit || fit->params.ranges.size() != 1) {
        ADD_FAILURE() << "not one range";
        return Measured::nan;
    }
    EXPECT_LE(fit->error.max_rel, 0.15);
    EXPECT_LE(fit->error.mean_rel, 0.05);
    return fit->params.ranges.front().L.value;
}

} // namespace

TEST(LogGPJoint, ExactLogGPDataKeepsTheExactParameters)
{
    const auto fit = fit_loggp(listing1(additive(), 0, 0), n_msgs, joint_options());
    ASSERT_TRUE(fit);
    const LogGPRange& r = fit->params.ranges.at(0);
    EXPECT_NEAR(r.L.value, 4, 1e-6);
    EXPECT_NEAR(r.send_line.per_byte.value, 0.0004, 1e-9);
    EXPECT_NEAR(r.G.value, 0.002, 1e-9);
    EXPECT_NEAR(r.g.value, 6, 1e-6);
    EXPECT_LT(fit->error.max_rel, 1e-6);
}

TEST(LogGPJoint, CopyCountedOnceWhereThePapersEstimatesCountItTwice)
{
    const auto samples = listing1(copy_paced(), 0, 0);
    LogGPOptions paper = joint_options();
    paper.joint = false;
    const auto by_paper = fit_loggp(samples, n_msgs, paper);
    const auto joint = fit_loggp(samples, n_msgs, joint_options());
    ASSERT_TRUE(by_paper && joint);
    EXPECT_GT(by_paper->error.max_rel, 0.3); // G of eq. (7) is the copy, counted again in eq. (1)
    EXPECT_LT(joint->error.max_rel, 1e-6);
    const LogGPRangeDetail& d = joint->details.at(0);
    ASSERT_TRUE(d.joint.has_value());
    EXPECT_TRUE(d.joint->improved);
    EXPECT_GT(d.joint->paper_mean_rel, d.joint->joint_mean_rel);
    const LogGPRange& r = joint->params.ranges.at(0);
    EXPECT_NEAR(r.G.value, 0, 1e-9);
    EXPECT_NEAR(r.send_line.per_byte.value, 0.0005, 1e-9);
    EXPECT_NEAR(r.recv_line.per_byte.value, 0.0001, 1e-9);
    EXPECT_NEAR(r.L.value, 0.1, 1e-6);
}

TEST(LogGPJoint, ACostBelowZeroIsHeldAtZeroAndNamed)
{
    // The round trip grows more slowly than both overheads together (a warm
    // cache in the ping-pong): unconstrained, G would solve below zero. (By
    // little: a steeper drop is a pipelined transfer, read as overlapped.)
    Transport t = copy_paced();
    t.rtt = [t](double x) { return 2 * (0.1 + t.o_s(x) + t.o_r(x)) - 0.00002 * x; };
    const auto fit = fit_loggp(listing1(t, 0, 0), n_msgs, joint_options());
    ASSERT_TRUE(fit);
    const LogGPRangeDetail& d = fit->details.at(0);
    ASSERT_TRUE(d.joint.has_value());
    ASSERT_TRUE(d.joint->improved);
    EXPECT_NE(std::find(d.joint->held_at_zero.begin(), d.joint->held_at_zero.end(), "G_us_per_byte"),
              d.joint->held_at_zero.end());
    const LogGPRange& r = fit->params.ranges.at(0);
    EXPECT_FALSE(r.overlapped);
    EXPECT_EQ(r.G.value, 0);
    EXPECT_FALSE(r.G.has_interval()); // held, not measured
    EXPECT_GE(r.send_line.per_byte.value, 0);
    EXPECT_GE(r.recv_line.per_byte.value, 0);
    EXPECT_LT(fit->error.mean_rel, d.joint->paper_mean_rel / 2);
}

TEST(LogGPJoint, AGapPacedStreamKeepsTheGapOfEquation7)
{
    // A token bucket: one message crosses at line speed (the round trip
    // grows by 0.001 us/B), a stream drains the bucket and is paced by the
    // configured rate, 0.04 us/B. G is the rate; no fit may trade it for a
    // better round trip.
    Transport t;
    t.o_s = [](double x) { return 2 + 0.0001 * x; };
    t.o_r = [](double x) { return 1 + 0.0001 * x; };
    t.rtt = [](double x) { return 2 * (10 + 3 + 0.0012 * x); };
    t.stream = [](double x) { return 5 + 0.04 * x; };
    const auto fit = fit_loggp(listing1(t, 0, 0), n_msgs, joint_options());
    ASSERT_TRUE(fit);
    EXPECT_NEAR(fit->params.ranges.at(0).G.value, 0.04, 1e-9);
    EXPECT_NEAR(fit->params.ranges.at(0).g.value, 5, 1e-6);
    EXPECT_TRUE(fit->params.ranges.at(0).G.has_interval()); // eq. (7)'s regression interval
}

TEST(LogGPJoint, NoisyDataWithinFivePercentAndNeverWorseThanThePaper)
{
    for (unsigned seed = 1; seed <= 10; ++seed) {
        const auto samples = listing1(additive(), 0.01, seed);
        const auto fit = fit_loggp(samples, n_msgs, joint_options());
        ASSERT_TRUE(fit);
        const LogGPRange& r = fit->params.ranges.at(0);
        EXPECT_NEAR(r.L.value, 4, 0.2) << seed;
        EXPECT_NEAR(r.G.value, 0.002, 0.0001) << seed;
        EXPECT_NEAR(r.send_line.at_one.value, 1.2, 0.06) << seed;
        const JointFit& j = *fit->details.at(0).joint;
        const double paper = misfit({.max_rel = j.paper_max_rel, .mean_rel = j.paper_mean_rel});
        if (j.improved) {
            EXPECT_LT(misfit({.max_rel = j.joint_max_rel, .mean_rel = j.joint_mean_rel}), paper) << seed;
        }
        EXPECT_LE(misfit(fit->error), paper + 1e-12) << seed;
    }
}

TEST(LogGPJoint, TooFewSizesOrThePaperOptionLeaveThePapersEstimates)
{
    auto samples = listing1(copy_paced(), 0, 0);
    samples.resize(2);
    const auto two = fit_loggp(samples, n_msgs, joint_options());
    ASSERT_TRUE(two);
    EXPECT_FALSE(two->details.at(0).joint.has_value());
    LogGPRange r;
    EXPECT_EQ(refine_range_jointly(samples, n_msgs, Weighting::relative, 0.95, r).status().reason(),
              ngx::Reason::too_few_points);
    LogGPOptions paper = joint_options();
    paper.joint = false;
    const auto off = fit_loggp(listing1(copy_paced(), 0, 0), n_msgs, paper);
    ASSERT_TRUE(off);
    EXPECT_FALSE(off->details.at(0).joint.has_value());
}

TEST(LogGPJoint, ARangeTheModelMissesIsSplitWhereItsErrorHalves)
{
    // Above 2 KiB the round trip pays 0.002 us/B more (data out of cache)
    // while the stream and the overheads do not change; the change-point
    // search is made blind (pfact 1e9, no confirmation) so that only the model's misfit can
    // find the knee.
    Transport t = copy_paced();
    const Transport base = t;
    t.rtt = [base](double x) { return base.rtt(x) + (x > 2047 ? 0.002 * (x - 2047) : 0.0); };
    LogGPOptions opt = joint_options();
    opt.method = ChangePointMethod::robust;
    opt.robust.pfact = 1e9;
    opt.robust.confirm_alpha = 1e-300;
    const auto samples = listing1(t, 0, 0);
    const auto whole = fit_loggp(samples, n_msgs, opt);
    ASSERT_TRUE(whole);
    ASSERT_EQ(whole->params.ranges.size(), 1u);
    EXPECT_GT(whole->error.mean_rel, 0.05);
    opt.split_misfits = true;
    const auto split = fit_loggp(samples, n_msgs, opt);
    ASSERT_TRUE(split);
    ASSERT_GE(split->params.ranges.size(), 2u);
    EXPECT_LT(split->error.mean_rel, whole->error.mean_rel / 2);
    const std::vector<LogGPCurve> by_model{LogGPCurve::model};
    EXPECT_EQ(split->details.at(1).split_by, by_model);
    const double knee = split->params.ranges.at(1).from_bytes; // within one size of 2 KiB
    EXPECT_GE(knee, 1024);
    EXPECT_LE(knee, 4096);
    // Within the noise the model's misses are not a reason to split.
    opt.relative_noise = 0.5;
    const auto noisy = fit_loggp(samples, n_msgs, opt);
    ASSERT_TRUE(noisy);
    EXPECT_EQ(noisy->params.ranges.size(), 1u);
}

TEST(LogGPJoint, PipelinedTransferPaysTheSlowestStageOnce)
{
    // Per byte (us): the sender's copy slowest (shm's measured magnitudes;
    // the measured overheads then exceed PRTT(1,0,s)/2), then the wire.
    struct Case {
        double O_s, O_r, G;
    };
    for (const Case c : {Case{1.8e-5, 1.3e-5, 1e-5}, Case{0.6e-5, 0.5e-5, 1e-5}}) {
        const auto fit = fit_loggp(listing1(pipelined(c.O_s, c.O_r, c.G), 0, 0), n_msgs, joint_options());
        ASSERT_TRUE(fit);
        const LogGPRange& r = fit->params.ranges.at(0);
        EXPECT_TRUE(r.overlapped) << c.O_s;
        EXPECT_LT(fit->error.max_rel, 1e-6) << c.O_s;
        EXPECT_NEAR(r.L.value, 0.1, 1e-6) << c.O_s;
        EXPECT_NEAR(r.o_r_at(1), 0.03, 1e-6) << c.O_s;
        EXPECT_NEAR(r.send_line.per_byte.value, c.O_s, 1e-10);
        EXPECT_NEAR(r.recv_line.per_byte.value, c.O_r, 1e-10);
        if (c.G > c.O_s) { // the wire paces: G is the slope of eq. (1) as well as the gap's
            EXPECT_NEAR(r.G.value, c.G, 1e-10);
        }
    }
}

TEST(LogGPJoint, APipelineSeenOnlyAtTheLargestSizesIsFitThere)
{
    // tcp over loopback, polled (measured magnitudes): send() copies into the
    // receiver's socket, so the sender's copy, the "wire" and the receiver's
    // copy overlap, and the per-byte terms matter only at the largest of 31
    // sizes two an octave. The additive eq. (1) fits the small sizes as well
    // but counts the copy three times at 48 KiB. A choice by the mean alone kept fits that missed
    // 48 KiB by 40-46%.
    Transport t;
    t.o_s = [](double x) { return 3.6 + 4.6e-5 * x; };
    t.o_r = [](double x) { return 0.64 + 1.4e-5 * x; };
    t.rtt = [](double x) { return 2 * (3.55 + 4.6e-5 * x); }; // below o_s + o_r: L < 0
    t.stream = [](double x) { return 4.1 + 3.7e-5 * x; };
    std::vector<double> sizes;
    for (double s = 1; s <= 32768; s *= 2) { // 1, 2, 3, 4, 6, ..., 32 KiB, 48 KiB
        sizes.push_back(s);
        if (s >= 2)
            sizes.push_back(1.5 * s);
    }
    for (unsigned seed = 1; seed <= 5; ++seed) {
        const auto fit = fit_loggp(listing1(t, 0.01, seed, sizes), n_msgs, joint_options());
        ASSERT_TRUE(fit);
        EXPECT_EQ(fit->params.ranges.size(), 1u) << seed;
        EXPECT_LT(fit->error.max_rel, 0.08) << seed;
    }
}

TEST(LogGPJoint, AStepBetweenThreeSizesIsMissedEvenlyNotAtOneSize)
{
    // tcp over loopback, polled, the main job's last range (a run of
    // 2026-11-26, the vCPUs far apart): above one 65483-byte segment the
    // round trip climbs in steps, and 96 KiB sits on the step of 64 KiB.
    // The least-squares fit went through 64 and 128 KiB and missed
    // PRTT(1,0,96 KiB) by 18.1%; toward the minimax solution the miss is
    // spread over the three sizes.
    EXPECT_GE(L_of_a_range_meeting_the_goal({{65536, 26.660, 192.808, 576.701, 26.952, 7.463},
                                             {98304, 28.708, 245.281, 673.140, 29.045, 8.207},
                                             {131072, 40.455, 312.161, 912.737, 40.543, 10.629}}),
              0);
}

// The same range with the vCPUs near: o_s(s) of eq. (6) (9.1 us at 64 KiB)
// and o_r(s) exceed PRTT(1,0,s)/2 (8.3 us), so eq. (1) holds only with
// L < 0. With `--loggp-negative no` every parameter stays >= 0 and the range
// misses the goal, which its quality says; by default (`yes`) L free of
// sign meets it, and L < 0 says why (the report warns, the export refuses).
const std::initializer_list<MeasuredSize> overheads_above_the_round_trip = {
    {65536, 16.605, 153.689, 407.508, 17.016, 4.102},
    {98304, 18.177, 171.456, 436.787, 17.597, 4.783},
    {131072, 23.791, 225.922, 580.727, 23.436, 5.565}};

TEST(LogGPJoint, OverheadsAboveWhatTheRoundTripLeavesMissTheGoalWithEveryParameterAtLeastZero)
{
    LogGPOptions opt = joint_options();
    opt.relative_noise = 0.01;
    opt.signed_when_missing = false; // --loggp-negative no
    const auto fit = fit_loggp(measured(overheads_above_the_round_trip), n_msgs, opt);
    ASSERT_TRUE(fit);
    for (const LogGPRange& r : fit->params.ranges)
        EXPECT_TRUE(r.admissible()) << negatives_of(*fit);
    EXPECT_GT(misfit(fit->error), 1);
}

// Where no joint form replaces the paper's L of eq. (1) below 0 (the
// paper's estimates alone), `--loggp-negative no` holds L at 0, its
// least-squares value under L >= 0, and names it held; `yes` keeps it.
TEST(LogGPJoint, ThePapersLBelowZeroIsHeldAtZeroWhereNegativeIsRefused)
{
    LogGPOptions opt;
    opt.method = ChangePointMethod::none;
    opt.relative_noise = 0.01;
    const auto kept = fit_loggp(measured(overheads_above_the_round_trip), n_msgs, opt);
    ASSERT_TRUE(kept);
    EXPECT_LT(kept->params.ranges.at(0).L.value, 0);
    opt.signed_when_missing = false;
    const auto held = fit_loggp(measured(overheads_above_the_round_trip), n_msgs, opt);
    ASSERT_TRUE(held);
    EXPECT_EQ(held->params.ranges.at(0).L.value, 0);
    EXPECT_TRUE(held->params.ranges.at(0).admissible()) << negatives_of(*held);
    const std::vector<std::string>& names = held->details.at(0).held_at_zero;
    EXPECT_NE(std::find(names.begin(), names.end(), "L_us"), names.end());
}

TEST(LogGPJoint, OverheadsAboveWhatTheRoundTripLeaveGiveLBelowZeroWhereNegativeIsAllowed)
{
    EXPECT_LT(L_of_a_range_meeting_the_goal(overheads_above_the_round_trip), 0);
}

TEST(LogGPJoint, AdditiveTransportIsNotReadAsOverlapped)
{
    const auto fit = fit_loggp(listing1(additive(), 0.01, 3), n_msgs, joint_options());
    ASSERT_TRUE(fit);
    EXPECT_FALSE(fit->params.ranges.at(0).overlapped);
}

// With timing noise the pipelined form's misfit can come out a little below
// the additive one's; on an additive transport the form must not follow the
// noise: over 40 noisy runs no range is read as overlapped.
TEST(LogGPJoint, NoiseAloneNeverMakesAnAdditiveTransportOverlapped)
{
    for (double noise : {0.01, 0.03})
        for (unsigned seed = 1; seed <= 20; ++seed) {
            const auto fit = fit_loggp(listing1(additive(), noise, seed), n_msgs, joint_options());
            ASSERT_TRUE(fit);
            EXPECT_FALSE(fit->params.ranges.at(0).overlapped) << "noise " << noise << " seed " << seed;
        }
}

TEST(LogGPPredict, OverlappedRangePaysMaxOfPerByteCostsOnce)
{
    LogGPParams p;
    LogGPRange r;
    r.L = Measured::exact(0.1);
    r.send_line = OverheadLine::exact(0.02, 2e-5);
    r.recv_line = OverheadLine::exact(0.03, 1e-5);
    r.G = Measured::exact(1.5e-5);
    r.g = Measured::exact(0.05);
    r.overlapped = true;
    p.ranges.push_back(r);
    // 2 (L + o_s + o_r + (s-1) max(O_s, O_r, G)) at s = 1001: 2 (0.15 + 1000 * 2e-5) = 0.34
    EXPECT_NEAR(p.rtt(1001), 0.34, 1e-12);
    p.ranges.front().overlapped = false; // eq. (1) with the lines: 2 (0.15 + 1000 * 4.5e-5) = 0.39
    EXPECT_NEAR(p.rtt(1001), 0.39, 1e-12);
}

namespace {

// What the pattern gives the fit: the noise it measured (the scale of the
// timing noise around the medians) and its default steps.
LogGPOptions as_the_pattern_fits(double noise)
{
    LogGPOptions o = joint_options();
    o.relative_noise = noise;
    return o;
}

// How many of the seeded runs of `t` (noise 1% and 3%; normal and
// heavy-tailed; seeds 1..runs) give a fit for which `counts` holds; the
// runs where it is not `expected` are printed with their ranges.
template <class Counts>
int runs_where(const Transport& t, const LogGPOptions& base, unsigned runs, Counts counts, bool expected, int& total)
{
    int hits = 0;
    for (double noise : {0.01, 0.03})
        for (Tails tails : {Tails::normal, Tails::heavy})
            for (unsigned seed = 1; seed <= runs; ++seed) {
                LogGPOptions opt = base;
                opt.relative_noise = noise;
                const auto fit = fit_loggp(listing1(t, noise, seed, powers_of_two(), tails), n_msgs, opt);
                EXPECT_TRUE(fit);
                ++total;
                const bool hit = fit && counts(*fit);
                hits += hit;
                if (hit != expected && fit) {
                    std::printf("  noise %g%s seed %u: mean %.3f max %.3f, ranges", noise,
                                tails == Tails::heavy ? " heavy-tailed" : "", seed, fit->error.mean_rel,
                                fit->error.max_rel);
                    for (const LogGPRange& r : fit->params.ranges)
                        std::printf(" %.0f..%.0f%s", r.from_bytes, r.to_bytes, r.overlapped ? " (overlapped)" : "");
                    std::printf("\n");
                }
            }
    return hits;
}

bool any_overlapped(const LogGPFit& fit)
{
    return std::any_of(fit.params.ranges.begin(), fit.params.ranges.end(),
                       [](const LogGPRange& r) { return r.overlapped; });
}

} // namespace

// The choice of the form by the stated test (model_choice.hpp): on additive
// transports, among them the copy-paced one where the pipelined form fits
// as well (its one per-byte term stands for the copies), noise of 1% and 3%,
// normal and heavy-tailed, picks the pipelined form in at most a few of 80
// runs (the stated rate is 1%). Chosen by misfit() alone it was picked in 6;
// with eq. (5)'s branches iterated from the paper's start alone
// (loggp_joint.cpp, iterate_from_starts) in 37.
TEST(LogGPJoint, NoisyAdditiveTransportsAreReadAsAdditive)
{
    for (const Transport& t : {additive(), copy_paced()}) {
        int total = 0;
        const int overlapped = runs_where(t, as_the_pattern_fits(0.01), 20, any_overlapped, false, total);
        EXPECT_LE(overlapped, 3) << "of " << total;
    }
}

// ... and the test does not keep a pipelined transport additive: with the
// same noise the pipelined form is found in (nearly) every run.
TEST(LogGPJoint, NoisyPipelinedTransportIsReadAsOverlapped)
{
    int total = 0;
    const int overlapped =
        runs_where(pipelined(1.8e-5, 1.3e-5, 1e-5), as_the_pattern_fits(0.01), 20, any_overlapped, true, total);
    EXPECT_GE(overlapped, total - 3) << "of " << total;
}

namespace {

// A protocol switch at 2 KiB that only the round trip shows: above it a
// message pays 0.002 us/B more from its first byte (a costlier copy), the
// stream and the overheads do not change. The change-point search is made
// blind, so only the model's misfit can find it.
Transport switch_at_2k()
{
    Transport t = copy_paced();
    const Transport base = t;
    t.rtt = [base](double x) { return base.rtt(x) + (x > 2047 ? 0.002 * x : 0.0); };
    return t;
}

LogGPOptions blind_detector_with_splits()
{
    LogGPOptions opt = as_the_pattern_fits(0.01);
    opt.method = ChangePointMethod::robust;
    opt.robust.pfact = 1e9;
    opt.robust.confirm_alpha = 1e-300;
    opt.split_misfits = true;
    return opt;
}

} // namespace

// The switch is split at (the upper range starts at 4 KiB, the first size
// above it) in every noisy run, normal or heavy-tailed. Without the split
// no run is; with the split placed where the halves' misfit() rather than
// their sum of squares is least, 7 of 8.
TEST(LogGPJoint, ASwitchUnderNoiseIsSplitAtIt)
{
    int total = 0;
    const int at_the_knee = runs_where(
        switch_at_2k(), blind_detector_with_splits(), 2,
        [](const LogGPFit& f) { return f.params.ranges.size() == 2 && f.params.ranges[1].from_bytes == 4096; }, true,
        total);
    EXPECT_EQ(at_the_knee, total);
}

// A range whose model misses the goal through noise alone (10%: its max
// error exceeds 15% in most runs) is not split: two halves fit the noise
// more closely, but by no more than the measured noise explains. Split
// where the halves' misfit() is smaller, without the test, 15 of these 20
// ranges were; tested with the sum of squares of the parameters kept
// rather than the least one reached (JointFit::least_rss), 3.
TEST(LogGPJoint, NoiseWiderThanTheGoalDoesNotSplitARange)
{
    constexpr double noise = 0.10;
    LogGPOptions opt = blind_detector_with_splits();
    opt.relative_noise = noise;
    int missing = 0, split = 0;
    for (unsigned seed = 1; seed <= 20; ++seed) {
        const auto samples = listing1(additive(), noise, seed);
        LogGPOptions whole = opt;
        whole.split_misfits = false;
        const auto one = fit_loggp(samples, n_msgs, whole);
        const auto fit = fit_loggp(samples, n_msgs, opt);
        ASSERT_TRUE(one && fit);
        missing += misfit(one->error) > 1;
        split += fit->params.ranges.size() > 1;
    }
    EXPECT_GE(missing, 10); // the runs exercise the split's test
    EXPECT_LE(split, 1);
}

// A range whose overheads, measured in streams, exceed what the round trip
// leaves for them (shm with the vCPUs far apart, 2..8 KiB: a CI machine's
// run gave L = -0.27..-0.33 us three times in a row): the paper's estimates
// fit with L < 0, a model LogGOPSim cannot run. A form of L >= 0 that meets
// the goal replaces them. With the pipelined form tested against the
// paper's inadmissible fit rather than the additive one of L >= 0 (and no
// form taken where the test took neither), 23 of 40 noisy runs of the first
// transport and 1 of the second kept L < 0.
TEST(LogGPJoint, OverheadsOverlappingTheLatencyStillGiveARangeOfLAtLeastZero)
{
    struct Overlapping {
        double o_s, o_r, L, O_s, O_r, G; // L < 0: the overheads overlap the latency
    };
    for (const Overlapping c :
         {Overlapping{0.3, 0.4, -0.2, 2e-5, 1.5e-5, 1e-5}, Overlapping{0.5, 0.5, -0.3, 5e-5, 4e-5, 0}}) {
        Transport t;
        t.o_s = [c](double x) { return c.o_s + c.O_s * x; };
        t.o_r = [c](double x) { return c.o_r + c.O_r * x; };
        t.rtt = [c, t](double x) { return 2 * (c.L + t.o_s(x) + t.o_r(x) + c.G * x); };
        t.stream = [c, t](double x) { return std::max(t.o_s(x), 0.05 + c.G * x); };
        for (double noise : {0.01, 0.02})
            for (unsigned seed = 1; seed <= 20; ++seed) {
                LogGPOptions opt = joint_options();
                opt.relative_noise = noise;
                const auto fit = fit_loggp(listing1(t, noise, seed, {2048, 4096, 8192}), n_msgs, opt);
                ASSERT_TRUE(fit);
                EXPECT_GE(fit->params.ranges.front().L.value, 0)
                    << "L " << c.L << " noise " << noise << " seed " << seed;
                EXPECT_LE(misfit(fit->error), 1) << "L " << c.L << " noise " << noise << " seed " << seed;
            }
    }
}

namespace {

// A stream paced by the gap at large sizes, with small intercepts: g of
// 0.05 us, o_s of 0.02 us and o_r of 0.03 us, each far below what the
// noise moves a line's intercept extrapolated from 24..128 KiB to s = 1
// (shm's main job printed g = -6.285 us at 24..48 KiB and -0.175 us at
// 64..128 KiB in one run).
Transport gap_paced_small_intercepts()
{
    Transport t;
    t.o_s = [](double x) { return 0.02 + 2e-6 * x; };
    t.o_r = [](double x) { return 0.03 + 1e-6 * x; };
    t.rtt = [t](double x) { return 2 * (0.2 + t.o_s(x) + t.o_r(x) + 2e-4 * x); };
    t.stream = [t](double x) { return std::max(t.o_s(x), 0.05 + 2e-4 * x); };
    return t;
}

} // namespace

// Every fitted cost is >= 0 where an admissible model meets the goal: over
// 80 noisy fits of two ranges (1% and 2% noise, 20 seeds) no parameter is
// below 0, and the fits still meet the goal. Without the costs' lines held
// >= 0 (the paper's g of eq. (7) and the overhead lines as fitted) 41 of the
// 80 fits had a parameter below 0 (g in 34, o_s in 7), none missing the goal.
TEST(LogGPJoint, NoisyInterceptsNearZeroGiveNoNegativeParameter)
{
    const Transport t = gap_paced_small_intercepts();
    int negative = 0, missing = 0, total = 0;
    for (const std::vector<double>& sizes :
         {std::vector<double>{24576, 32768, 49152}, std::vector<double>{65536, 98304, 131072}})
        for (double noise : {0.01, 0.02})
            for (unsigned seed = 1; seed <= 20; ++seed) {
                const auto fit = fit_loggp(listing1(t, noise, seed, sizes), n_msgs, as_the_pattern_fits(noise));
                ASSERT_TRUE(fit);
                ++total;
                const std::string names = negatives_of(*fit);
                negative += !names.empty();
                missing += misfit(fit->error) > 1;
                if (!names.empty())
                    std::printf("  %.0f.. noise %g seed %u:%s\n", sizes.front(), noise, seed, names.c_str());
            }
    std::printf("  %d of %d fits with a parameter below 0, %d missing the goal\n", negative, total, missing);
    EXPECT_EQ(negative, 0);
    EXPECT_LE(missing, 2);
}

// Where no admissible model meets the goal the range is not LogGP and says
// so: a stream whose gap grows faster than its messages (y(s) = -6 us +
// 5e-4 us/B (s-1) over 24..48 KiB, exactly) is met only with g < 0; held at
// 0 (the line through the origin) eq. (5) misses PRTT(n,0,24 KiB) by far.
// Without the fallback (signed_when_missing = false, the main job's) the
// range is admissible and misses.
TEST(LogGPJoint, AGapOnlyANegativeInterceptFitsIsKeptAndNamed)
{
    Transport t;
    t.o_s = [](double x) { return 0.02 + 2e-6 * x; };
    t.o_r = [](double x) { return 0.03 + 1e-6 * x; };
    t.rtt = [t](double x) { return 2 * (0.2 + t.o_s(x) + t.o_r(x) + 5e-4 * x); };
    t.stream = [](double x) { return -6 + 5e-4 * x; };
    const auto samples = listing1(t, 0, 1, {24576, 32768, 40960, 49152});
    LogGPOptions opt = as_the_pattern_fits(0.01);
    opt.signed_when_missing = true; // --loggp-negative yes
    const auto fit = fit_loggp(samples, n_msgs, opt);
    ASSERT_TRUE(fit);
    const std::vector<std::string> negative = fit->params.ranges.at(0).negative_parameters();
    EXPECT_NE(std::find(negative.begin(), negative.end(), "g_us"), negative.end()) << negatives_of(*fit);
    EXPECT_LE(misfit(fit->error), 1);
    opt.signed_when_missing = false;
    const auto held = fit_loggp(samples, n_msgs, opt);
    ASSERT_TRUE(held);
    EXPECT_TRUE(held->params.ranges.at(0).admissible()) << negatives_of(*held);
    EXPECT_GT(misfit(held->error), 1);
}
