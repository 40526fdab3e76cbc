// models/base/status.hpp: each failure has its reason, its kind (so its exit code)
// and a message that starts with the reason and says what was wrong.
#include <models/base/least_squares.hpp>
#include <models/loggp/loggp.hpp>
#include <models/base/status.hpp>

#include <gtest/gtest.h>

#include <vector>

using namespace ngx::fit;

TEST(FitStatus, BadInputIsAUsageError)
{
    const ngx::Status s = invalid_input("3 sizes but 2 values");
    EXPECT_EQ(s.reason(), ngx::Reason::invalid_input);
    EXPECT_EQ(s.kind(), ngx::ErrorKind::usage);
    EXPECT_EQ(ngx::exit_code(s), 2);
    EXPECT_EQ(s.message(), "invalid input: 3 sizes but 2 values");

    const ngx::Status few = too_few_points("1 size, LogGP needs 2");
    EXPECT_EQ(few.reason(), ngx::Reason::too_few_points);
    EXPECT_EQ(ngx::exit_code(few), 2);
    EXPECT_EQ(few.message(), "too few points: 1 size, LogGP needs 2");
}

TEST(FitStatus, DataWithoutASolutionIsARuntimeError)
{
    const ngx::Status d = degenerate("all x equal");
    EXPECT_EQ(d.reason(), ngx::Reason::degenerate);
    EXPECT_EQ(ngx::exit_code(d), 1);
    EXPECT_EQ(d.message(), "degenerate data: all x equal");

    const ngx::Status c = not_converged("12 rounds");
    EXPECT_EQ(c.reason(), ngx::Reason::not_converged);
    EXPECT_EQ(ngx::exit_code(c), 1);
    EXPECT_EQ(c.message(), "did not converge: 12 rounds");
}

TEST(FitStatus, AFailedFitSaysWhatWasWrong)
{
    const std::vector<double> one{4}, same{4, 4, 4}, three{1, 2, 3};
    EXPECT_EQ(fit_line(one, one).status().message(), "too few points: 1 point, a line needs 2");
    EXPECT_EQ(fit_line(same, three).status().message(), "degenerate data: all 3 x are 4, no slope");
    EXPECT_EQ(fit_line(three, one).status().message(), "invalid input: x and y differ in length (3 vs 1)");

    PrttSample at_8k;
    at_8k.size = 8192;
    at_8k.prtt_1_0 = 10;
    at_8k.prtt_n_0 = 40;
    at_8k.prtt_n_d = 50;
    at_8k.delay = 10;
    std::vector<PrttSample> samples{at_8k};
    EXPECT_EQ(fit_loggp(samples, 16).status().message(), "too few points: 1 size, LogGP needs 2");
    samples.push_back(samples.front());
    EXPECT_EQ(fit_loggp(samples, 16).status().message(),
              "invalid input: sizes are not increasing: 8192 B, then 8192 B");
}
