// ngx/status.hpp: the kinds and their exit codes, context that keeps the
// kind and reason, the mapping of module codes, and the two early-return
// helpers (NGX_TRY, NGX_ASSIGN_OR_RETURN) on their ok and failed paths.
#include <ngx/sizes.hpp>
#include <ngx/status.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ngx {
namespace {

TEST(Status, KindsDecideTheExitCode)
{
    EXPECT_EQ(exit_code(Status::ok()), 0);
    EXPECT_EQ(exit_code(Status::usage("bad -s")), 2);
    EXPECT_EQ(exit_code(Status::runtime("peer lost")), 1);
    EXPECT_EQ(exit_code(Status::interrupted()), 130);
    EXPECT_EQ(Status::usage("bad -s").reason(), Reason::unspecified);
}

TEST(Status, ContextPrefixesTheMessageAndKeepsKindAndReason)
{
    const Status s = Status::usage("3 sizes", Reason::too_few_points).with_context("LogGP fit");
    EXPECT_EQ(s.message(), "LogGP fit: 3 sizes");
    EXPECT_EQ(s.kind(), ErrorKind::usage);
    EXPECT_EQ(s.reason(), Reason::too_few_points);
    EXPECT_TRUE(Status::ok().with_context("ignored").is_ok());
    EXPECT_EQ(Status::ok().with_context("ignored").message(), "");
}

TEST(Status, ModuleCodesMapToKinds)
{
    EXPECT_TRUE(Status::from_module(NGX_OK, "unused").is_ok());
    EXPECT_EQ(Status::from_module(NGX_ERR_INVALID_OPTION, "--tcp-port").kind(), ErrorKind::usage);
    EXPECT_EQ(Status::from_module(NGX_ERR_INTERRUPTED, "stop").kind(), ErrorKind::interrupted);
    const Status lost = Status::from_module(NGX_ERR_LOST, "peer closed");
    EXPECT_EQ(lost.kind(), ErrorKind::runtime);
    EXPECT_EQ(lost.message(), "peer closed");
}

// Both helpers in a function of each return type, counting how far it got.
Result<uint64_t> twice_the_size(const std::string& text, int& reached)
{
    reached = 0;
    NGX_ASSIGN_OR_RETURN(const uint64_t size, parse_byte_count(text));
    reached = 1;
    NGX_TRY(size > 0 ? Status::ok() : Status::usage("a size of 0"));
    reached = 2;
    return 2 * size;
}

Status sum_into(const std::string& first, const std::string& second, uint64_t& sum)
{
    int reached = 0;
    sum = 0;
    NGX_ASSIGN_OR_RETURN(sum, twice_the_size(first, reached)); // an existing variable
    NGX_ASSIGN_OR_RETURN(auto more, twice_the_size(second, reached));
    sum += more;
    return Status::ok();
}

TEST(Status, AssignOrReturnGivesTheValueOnSuccess)
{
    int reached = -1;
    Result<uint64_t> r = twice_the_size("4Ki", reached);
    ASSERT_TRUE(r) << r.status().message();
    EXPECT_EQ(*r, 8192u);
    EXPECT_EQ(reached, 2);

    uint64_t sum = 0;
    EXPECT_TRUE(sum_into("1", "2", sum).is_ok());
    EXPECT_EQ(sum, 6u);
}

TEST(Status, AssignOrReturnReturnsTheFailureAndStops)
{
    int reached = -1;
    Result<uint64_t> r = twice_the_size("4Kx", reached);
    ASSERT_FALSE(r);
    EXPECT_EQ(reached, 0); // returned before the next statement
    EXPECT_EQ(r.status().kind(), ErrorKind::usage);
    EXPECT_NE(r.status().message().find("4Kx"), std::string::npos) << r.status().message();

    uint64_t sum = 0;
    const Status s = sum_into("1", "-3", sum); // the second fails: its status, the first's value kept
    EXPECT_EQ(s.kind(), ErrorKind::usage);
    EXPECT_NE(s.message().find("-3"), std::string::npos) << s.message();
    EXPECT_EQ(sum, 2u);
}

TEST(Status, TryReturnsTheFailedStatus)
{
    int reached = -1;
    Result<uint64_t> r = twice_the_size("0", reached);
    ASSERT_FALSE(r);
    EXPECT_EQ(reached, 1);
    EXPECT_EQ(r.status().message(), "a size of 0");
}

} // namespace
} // namespace ngx
