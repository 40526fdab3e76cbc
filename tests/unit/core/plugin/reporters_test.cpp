// The table reporter (core/include/ngx/reporter.hpp): every value stays a
// separate column at any magnitude, so a table can be read and cut by eye or awk.
#include <ngx/reporter.hpp>

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<std::string> words(const std::string& line)
{
    std::istringstream in(line);
    std::vector<std::string> result;
    for (std::string word; in >> word;)
        result.push_back(word);
    return result;
}

// The lines of the first run's table: the title, the header, then one per size
// (the footer's "# ..." notes after the rows left out).
std::vector<std::string> table_lines(const ngx::Document& document)
{
    std::istringstream in(ngx::to_table(document));
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line) && !line.empty();)
        if (lines.empty() || !line.starts_with("# "))
            lines.push_back(line);
    return lines;
}

ngx::Document one_size(ngx::Summary summary, std::vector<std::pair<std::string, double>> extra)
{
    ngx::RunRecord run;
    run.module = "sim";
    run.pattern = "loggp";
    run.metric = "PRTT(1,0,s)";
    ngx::SizeRecord size;
    size.size_bytes = 1;
    size.summary = summary;
    size.extra = std::move(extra);
    run.sizes.push_back(size);
    ngx::Document document;
    document.runs.push_back(run);
    return document;
}

TEST(TableReporter, PatternColumnsStaySeparateAtAnyMagnitude)
{
    ngx::Summary summary;
    summary.count = 100;
    auto lines = table_lines(
        one_size(summary, {{"delay_us", 0.2192}, {"o_s_us", 0.007177}, {"g", -1.234e-05}, {"big_us", 123456789.0}}));
    ASSERT_EQ(lines.size(), 3u);
    std::vector<std::string> row = words(lines[2]);
    ASSERT_EQ(row.size(), 2u + 1u + 5u + 4u) << lines[2]; // bytes, size, count, five statistics, four extras
    EXPECT_EQ(row[0], "1");
    EXPECT_EQ(row[1], "1B");
    EXPECT_EQ(row[8], "0.2192");
    EXPECT_EQ(row[9], "0.007177");
    EXPECT_EQ(row[10], "-1.234e-05");
    EXPECT_EQ(words(lines[1]), (std::vector<std::string>{"bytes", "size", "count", "min", "median", "mean", "stddev",
                                                         "p99", "delay_us", "o_s_us", "g", "big_us"}))
        << lines[1]; // a name over every column, each statistic by its name
}

TEST(TableReporter, StatisticsStaySeparateAbove99999999)
{
    ngx::Summary summary;
    summary.count = 3;
    summary.min = 123456789.5;
    summary.median = 223456789.5;
    summary.mean = 1.0;
    summary.stddev = 323456789.5;
    summary.p99 = 2.0;
    std::vector<std::string> row = words(table_lines(one_size(summary, {}))[2]);
    ASSERT_EQ(row.size(), 8u);
    EXPECT_EQ(row[3], "123456789.50");
    EXPECT_EQ(row[4], "223456789.50");
    EXPECT_EQ(row[6], "323456789.50");
}

} // namespace

// A row whose pattern columns differ from the row before (allpairs' bandwidth
// row adds bandwidth_MBps) gets its own header line: every value stands
// under its own name, in the streamed table and in to_table alike.
TEST(TableReporter, ARowWithOtherColumnsGetsItsOwnHeader)
{
    ngx::Summary summary;
    summary.count = 5;
    ngx::Document document = one_size(summary, {{"lost", 0}});
    ngx::SizeRecord wider = document.runs[0].sizes[0];
    wider.size_bytes = 65536;
    wider.extra.emplace_back("bandwidth_MBps", 2854.0);
    document.runs[0].sizes.push_back(wider);
    std::vector<std::string> lines = table_lines(document);
    ASSERT_EQ(lines.size(), 5u); // title, header, 1 B, header, 64 KiB
    EXPECT_EQ(words(lines[1]).back(), "lost");
    EXPECT_EQ(words(lines[3]).back(), "bandwidth_MBps");
    EXPECT_EQ(words(lines[3]).size(), words(lines[4]).size()) << lines[3] << "\n" << lines[4];
    EXPECT_EQ(words(lines[4])[0], "65536");
    EXPECT_EQ(words(lines[4])[1], "64KiB");
    EXPECT_EQ(words(lines[4]).back(), "2854");

    std::ostringstream streamed;
    ngx::TableReporter table(streamed);
    ngx::RunRecord run = document.runs[0];
    run.sizes.clear();
    table.run_started(run);
    for (const ngx::SizeRecord& size : document.runs[0].sizes) {
        run.sizes.push_back(size);
        table.size_done(run, size);
    }
    EXPECT_EQ(streamed.str(), ngx::to_table(document).substr(0, streamed.str().size()));
}

// The run's header says what -s and -c were read as, with the units of -s.
TEST(TableReporter, HeaderStatesTheSizesAndTheirUnits)
{
    ngx::Summary summary;
    ngx::Document document = one_size(summary, {});
    document.runs[0].options = {{"sizes", {1, 4000, 65536}}, {"count", 50}, {"warmup", 5}};
    std::string table = ngx::to_table(document);
    EXPECT_NE(table.find("# sizes (-s; K = 1000, Ki = 1024, M = 10^6, Mi = 2^20, G = 10^9, Gi = 2^30): 3 from 1 B to "
                         "64 KiB; statistics of -c 50 samples per size after --warmup 5\n"),
              std::string::npos)
        << table;
}

// A model without parameters prints no empty parameter heading; its verdict
// is printed as a summary line and one line of tokens per row.
TEST(ModelTable, VerdictRowsAndNoEmptyHeading)
{
    ngx::Json model = {{"kind", "allpairs"},
                       {"allpairs", ngx::Json::object()},
                       {"verdict",
                        {{"summary", "1 slow node(s)"},
                         {"rows",
                          {{"slow_node", "node4", "latency_us", 17.0, "bandwidth_MBps", 330.4},
                           {"typical", "latency_us", nullptr}}}}}};
    EXPECT_EQ(ngx::model_table(model), "# allpairs verdict: 1 slow node(s)\n"
                                       "  slow_node node4 latency_us 17 bandwidth_MBps 330.4\n"
                                       "  typical latency_us -\n");
    EXPECT_EQ(ngx::model_table({{"kind", "none"}}), "");
}
