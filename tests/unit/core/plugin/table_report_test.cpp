// The renderer of tables (core/plugin/table_report.cpp): aligned text with
// whole numbers as integers and others with six significant digits, the
// column's null_text for a null cell; CSV with numbers as JSON writes them,
// empty cells for null and fields quoted as RFC 4180 says.
#include "table_report.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace ngx {
namespace {

Table sample()
{
    return {.title = "T(k, n) us",
            .columns = {{"bytes", true}, {"name", false}, {"time_us", true, "-"}},
            .rows = {{1024, "a", 12.3456789}, {65536, "longer name", Json()}, {1, "b,\"c\"", 2.0}},
            .notes = {"a note"}};
}

TEST(TableReport, TextAlignsNumbersRightAndTextLeft)
{
    EXPECT_EQ(table_text(sample()), "# T(k, n) us\n"
                                    "# a note\n"
                                    "bytes  name         time_us\n"
                                    " 1024  a            12.3457\n"
                                    "65536  longer name        -\n"
                                    "    1  b,\"c\"              2\n");
}

TEST(TableReport, WholeNumbersAreIntegersOthersHaveSixSignificantDigits)
{
    Table t{.title = "", .columns = {{"x", true}}, .rows = {{1e6}, {123456789.0}, {0.000123456789}, {-2.5}}};
    EXPECT_EQ(table_text(t), "          x\n"
                             "    1000000\n"
                             "  123456789\n"
                             "0.000123457\n"
                             "       -2.5\n");
    EXPECT_EQ(table_csv(t), "x\n1000000\n123456789\n0.000123456789\n-2.5\n");
}

TEST(TableReport, NullAndNaNAreTheNullTextInTheTextAndEmptyInTheCsv)
{
    Table t{.title = "", .columns = {{"a", true, "-"}, {"b", true}}, .rows = {{Json(), std::nan("")}, {1, 2}}};
    EXPECT_EQ(table_text(t), "a  b\n-\n1  2\n");
    EXPECT_EQ(table_csv(t), "a,b\n,\n1,2\n");
}

TEST(TableReport, CsvKeepsEveryDigitAndQuotesCommasQuotesAndLineBreaks)
{
    Table t{
        .title = "ignored", .columns = {{"v", true}, {"s", false}}, .rows = {{0.1 + 0.2, "a,b"}, {1, "say \"x\"\ny"}}};
    EXPECT_EQ(table_csv(t), "v,s\n0.30000000000000004,\"a,b\"\n1,\"say \"\"x\"\"\ny\"\n");
}

TEST(TableReport, InfinityIsWrittenAsInf)
{
    const double inf = std::numeric_limits<double>::infinity();
    Table t{.title = "", .columns = {{"r", true}}, .rows = {{inf}, {-inf}}};
    EXPECT_EQ(table_text(t), "   r\n inf\n-inf\n");
    EXPECT_EQ(table_csv(t), "r\ninf\n-inf\n");
}

TEST(TableReport, WithoutRowsOnlyTheTitleAndNotes)
{
    Table t{.title = "empty", .columns = {{"a", true}}, .rows = {}, .notes = {"nothing measured"}};
    EXPECT_EQ(table_text(t), "# empty\n# nothing measured\n");
    EXPECT_EQ(table_csv(t), "a\n");
}

TEST(TableReport, SeveralTablesAreSeparatedByABlankLine)
{
    Table a{.title = "first", .columns = {{"x", true}}, .rows = {{1}}, .notes = {"about x"}};
    Table b{.title = "second", .columns = {{"y", false}}, .rows = {{"z"}}};
    EXPECT_EQ(tables_text({a, b}), "# first\n# about x\nx\n1\n\n# second\ny\nz\n");
    EXPECT_EQ(tables_csv({a, b}), "# first\n# about x\nx\n1\n\n# second\ny\nz\n");
}

TEST(TableReport, TableOfObjectsHasAColumnPerKey)
{
    const Json rows =
        Json::parse(R"([{"run": "std", "size_bytes": 1, "error": 0.5}, {"run": "sync", "size_bytes": 2}])");
    Table t = table_of_objects("rows", rows);
    ASSERT_EQ(t.columns.size(), 3u);
    EXPECT_FALSE(t.columns[0].numeric);
    EXPECT_TRUE(t.columns[1].numeric);
    EXPECT_EQ(table_text(t), "# rows\nrun   size_bytes  error\nstd            1    0.5\nsync           2      -\n");
}

} // namespace
} // namespace ngx
