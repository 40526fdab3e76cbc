// ngx predict's reporters (core/commands/prediction_report.cpp): the table's
// and the CSV's columns are those some prediction has, in one order; the
// JSON is predictions_json's document with the kind's about, summary and notes.
#include "prediction_report.hpp"

#include <gtest/gtest.h>

namespace ngx {
namespace {

Predictions two_algorithms()
{
    Predictions p;
    p.rows = {{.model = "loggp", .op = "bcast", .bytes = 1024, .processes = 4, .algorithm = "linear", .time_us = 12.5},
              {.model = "loggp", .op = "bcast", .bytes = 1024, .processes = 4, .algorithm = "binomial"}};
    p.notes = {"bcast, LogGP"};
    p.about = {{"description", "LogGP"}};
    p.summary = {{"best", "linear"}};
    return p;
}

TEST(PredictionReport, TableHasTheNotesAndTheColumnsInUse)
{
    EXPECT_EQ(prediction_table(two_algorithms()), "# bcast, LogGP\n"
                                                  "model  op     algorithm  bytes  P  time_us\n"
                                                  "loggp  bcast  linear      1024  4     12.5\n"
                                                  "loggp  bcast  binomial    1024  4        -\n");
}

TEST(PredictionReport, CsvHasTheSameColumnsAndEmptyCellsForNaN)
{
    EXPECT_EQ(prediction_csv(two_algorithms()), "model,op,algorithm,bytes,P,time_us\n"
                                                "loggp,bcast,linear,1024,4,12.5\n"
                                                "loggp,bcast,binomial,1024,4,\n");
}

TEST(PredictionReport, CsvQuotesTextWithACommaAndKeepsEveryDigit)
{
    Predictions p{.rows = {{.model = "k", .variant = "a,b", .op = "x", .time_us = 0.1 + 0.2}}};
    EXPECT_EQ(prediction_csv(p), "model,variant,op,time_us\nk,\"a,b\",x,0.30000000000000004\n");
}

TEST(PredictionReport, JsonKeepsPredictionsJsonAndAddsAboutSummaryNotes)
{
    const Json document = prediction_document("loggp", "bcast", two_algorithms());
    EXPECT_EQ(document.dump(),
              R"({"model":"loggp","op":"bcast","description":"LogGP","predictions":[)"
              R"({"model":"loggp","op":"bcast","bytes":1024.0,"P":4.0,"algorithm":"linear","time_us":12.5},)"
              R"({"model":"loggp","op":"bcast","bytes":1024.0,"P":4.0,"algorithm":"binomial","time_us":null}],)"
              R"("best":"linear","notes":["bcast, LogGP"]})");
}

TEST(PredictionReport, JsonWithoutNotesIsPredictionsJson)
{
    Predictions p{.rows = {{.model = "echo", .op = "pingpong", .bytes = 8, .time_us = 1}}};
    EXPECT_EQ(prediction_document("echo", "pingpong", p), predictions_json("echo", "pingpong", p.rows));
}

TEST(PredictionReport, MeasuredTimeBringsTheError)
{
    Predictions p{.rows = {{.model = "log3p", .op = "pingpong", .bytes = 8, .time_us = 11, .measured_us = 10}}};
    EXPECT_EQ(prediction_table(p), "model  op        bytes  time_us  measured_us  error_pct\n"
                                   "log3p  pingpong      8       11           10         10\n");
}

TEST(PredictionReport, TextIsPrintedAsItIsInEveryFormat)
{
    Predictions p{.rows = {}, .text = "-L 1 -o 2\n"};
    for (PredictionFormat format : {PredictionFormat::table, PredictionFormat::json, PredictionFormat::csv})
        EXPECT_EQ(prediction_report(format, "loggp", "export", p), "-L 1 -o 2\n");
}

TEST(PredictionReport, FormatNames)
{
    EXPECT_EQ(prediction_format("json"), PredictionFormat::json);
    EXPECT_EQ(prediction_format("csv"), PredictionFormat::csv);
    EXPECT_EQ(prediction_format("table"), PredictionFormat::table);
}

} // namespace
} // namespace ngx
