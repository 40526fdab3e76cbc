// Size-list parsing: the forms the CLI accepts and the ones it refuses.
#include <ngx/size_token.hpp>
#include <ngx/sizes.hpp>

#include <gtest/gtest.h>

namespace ngx {
namespace {

std::vector<uint64_t> parse_ok(const char* text, StepRule rule = {})
{
    Result<std::vector<uint64_t>> sizes = parse_sizes(text, rule);
    EXPECT_TRUE(sizes.has_value()) << text << ": " << sizes.status().message();
    return sizes ? *sizes : std::vector<uint64_t>{};
}

std::string parse_error(const char* text, StepRule rule = {})
{
    Result<std::vector<uint64_t>> sizes = parse_sizes(text, rule);
    EXPECT_FALSE(sizes.has_value()) << text << " was accepted";
    EXPECT_EQ(sizes.status().kind(), ErrorKind::usage);
    return sizes.status().message();
}

TEST(Sizes, GeometricRangeDoublesAndIncludesBothEnds)
{
    std::vector<uint64_t> sizes = parse_ok("1-64Ki");
    ASSERT_EQ(sizes.size(), 17u);
    EXPECT_EQ(sizes.front(), 1u);
    EXPECT_EQ(sizes[1], 2u);
    EXPECT_EQ(sizes.back(), 65536u);
}

TEST(Sizes, ListWithDecimalAndBinaryUnits)
{
    EXPECT_EQ(parse_ok("1,8,64,4K"), (std::vector<uint64_t>{1, 8, 64, 4000}));
    EXPECT_EQ(parse_ok("4Ki,1Mi,2M,1Gi"), (std::vector<uint64_t>{4096, 1u << 20, 2000000, 1u << 30}));
}

TEST(Sizes, RangeFromZeroKeepsZeroAndEndsAtTheEnd)
{
    std::vector<uint64_t> sizes = parse_ok("0-1M");
    EXPECT_EQ(sizes.front(), 0u);
    EXPECT_EQ(sizes[1], 1u);
    EXPECT_EQ(sizes.back(), 1000000u);
    EXPECT_EQ(sizes[sizes.size() - 2], 524288u);
}

TEST(Sizes, LinearStep)
{
    EXPECT_EQ(parse_ok("0-4096", StepRule::linear(1024)), (std::vector<uint64_t>{0, 1024, 2048, 3072, 4096}));
    EXPECT_EQ(parse_ok("1-2500", StepRule::linear(1000)), (std::vector<uint64_t>{1, 1001, 2001, 2500}));
}

TEST(Sizes, FractionalGradeStillAdvances)
{
    std::vector<uint64_t> sizes = parse_ok("1-10", StepRule::geometric(1.5));
    EXPECT_EQ(sizes, (std::vector<uint64_t>{1, 2, 3, 4, 6, 9, 10}));
}

TEST(Sizes, SortedAndDeduplicated)
{
    EXPECT_EQ(parse_ok("64,1,64,1-4"), (std::vector<uint64_t>{1, 2, 4, 64}));
}

TEST(Sizes, RefusesMalformedLists)
{
    EXPECT_NE(parse_error("0-0").find("end must be larger"), std::string::npos);
    EXPECT_NE(parse_error("10-1").find("end must be larger"), std::string::npos);
    EXPECT_NE(parse_error("1-1T").find("unknown unit 'T'"), std::string::npos);
    EXPECT_NE(parse_error("-1").find("negative"), std::string::npos);
    EXPECT_NE(parse_error("1,,2").find("empty item"), std::string::npos);
    EXPECT_NE(parse_error("1,").find("empty item"), std::string::npos);
    EXPECT_NE(parse_error("abc").find("not a number"), std::string::npos);
    EXPECT_NE(parse_error("").find("empty"), std::string::npos);
    EXPECT_NE(parse_error("2Gi").find("limit"), std::string::npos);
    EXPECT_NE(parse_error("99999999999999999999").find("too large"), std::string::npos);
    EXPECT_NE(parse_error("1-").find("'': empty"), std::string::npos);
    EXPECT_NE(parse_error("0-1Gi", StepRule::linear(1)).find("more than"), std::string::npos);
    EXPECT_NE(parse_error("1-8", StepRule::geometric(1.0)).find("--grade"), std::string::npos);
}

// A refused size says how -s reads units (K = 1000 where a reader may expect 1024).
TEST(Sizes, ARefusedSizeStatesTheUnits)
{
    EXPECT_NE(parse_error("4Q").find("K = 1000, Ki = 1024"), std::string::npos);
}

// A table's size token: the exact unit without the blank, so columns split on blanks.
TEST(Sizes, SizeTokenIsOneWord)
{
    EXPECT_EQ(size_token(1), "1B");
    EXPECT_EQ(size_token(65536), "64KiB");
    EXPECT_EQ(size_token(1000), "1000B");
    EXPECT_EQ(size_token(1u << 20), "1MiB");
}

TEST(Sizes, FormatsExactUnits)
{
    EXPECT_EQ(format_bytes(1), "1 B");
    EXPECT_EQ(format_bytes(4096), "4 KiB");
    EXPECT_EQ(format_bytes(1u << 20), "1 MiB");
    EXPECT_EQ(format_bytes(1000), "1000 B");
}

} // namespace
} // namespace ngx
