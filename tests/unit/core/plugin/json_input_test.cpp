// The checks of json_input.hpp on the files ngx's offline commands read:
// only regular files, a known schema_version, "pattern" a string, and every
// size or count a whole number in range wherever it sits; each refusal a
// usage error naming the file and the field.
#include <ngx/json_input.hpp>
#include <ngx/reporter.hpp>

#include "scratch_dir.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <sys/stat.h>

namespace ngx {
namespace {

class JsonInputFiles : public ScratchDir {
protected:
    std::string file(const std::string& name, const std::string& text)
    {
        std::ofstream(path(name)) << text;
        return path(name);
    }
};

bool says(const Status& status, const std::string& text)
{
    return status.message().find(text) != std::string::npos;
}

TEST_F(JsonInputFiles, ReadsAValidDocument)
{
    std::string path = file("run.json", R"({"schema_version": 1, "pattern": "pingpong",
                                            "results": [{"size_bytes": 64, "count": 10}]})");
    Result<Json> document = read_json_input(path);
    ASSERT_TRUE(document) << document.status().message();
    EXPECT_EQ((*document)["results"][0]["size_bytes"], 64);
}

TEST_F(JsonInputFiles, RefusesTextThatIsNotJson)
{
    std::string path = file("junk.json", "not json {");
    Result<Json> document = read_json_input(path);
    ASSERT_FALSE(document);
    EXPECT_EQ(document.status().kind(), ErrorKind::usage);
    EXPECT_TRUE(says(document.status(), path + ": not a JSON file")) << document.status().message();
}

TEST_F(JsonInputFiles, RefusesAFifoWithoutWaitingForAWriter)
{
    std::string path = this->path("fifo.json");
    ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
    Result<std::string> text = read_regular_file(path); // returns at once (O_NONBLOCK)
    ASSERT_FALSE(text);
    EXPECT_EQ(text.status().kind(), ErrorKind::usage);
    EXPECT_TRUE(says(text.status(), "not a regular file")) << text.status().message();
}

TEST_F(JsonInputFiles, RefusesAMissingFileNamingIt)
{
    Result<Json> document = read_json_input(path("missing.json"));
    ASSERT_FALSE(document);
    EXPECT_TRUE(says(document.status(), "missing.json: cannot be read")) << document.status().message();
}

TEST(JsonInput, RefusesAnotherSchemaVersion)
{
    Status status = check_json_document(Json{{"schema_version", json_schema_version + 1}}, "new.json");
    ASSERT_FALSE(status);
    EXPECT_TRUE(says(status, "new.json: \"schema_version\" is " + std::to_string(json_schema_version + 1)))
        << status.message();
    EXPECT_TRUE(check_json_document(Json{{"schema_version", json_schema_version}}, "ok.json"));
}

TEST(JsonInput, RefusesAPatternThatIsNotAString)
{
    EXPECT_FALSE(check_json_document(Json{{"pattern", 3}}, "a.json"));
    Status in_run = check_json_document(Json::parse(R"({"runs": [{"pattern": "loggp"}, {"pattern": 7}]})"), "b.json");
    ASSERT_FALSE(in_run);
    EXPECT_TRUE(says(in_run, "b.json: runs[1]: \"pattern\" is not a string")) << in_run.message();
}

TEST(JsonInput, RefusesANegativeOrHugeSizeWhereverItSits)
{
    Json negative = Json::parse(R"({"runs": [{"results": [{"size_bytes": 1}, {"size_bytes": -5}]}]})");
    Status status = check_json_document(negative, "neg.json");
    ASSERT_FALSE(status);
    EXPECT_EQ(status.kind(), ErrorKind::usage);
    EXPECT_TRUE(says(status, "\"size_bytes\" is -5")) << status.message();
    EXPECT_TRUE(says(status, "runs[0].results[1]")) << status.message();

    Status huge = check_json_document(Json::parse(R"({"model": {"ranges": [{"from_bytes": 1e300}]}})"), "huge.json");
    ASSERT_FALSE(huge);
    EXPECT_TRUE(says(huge, "\"from_bytes\" is 1e+300")) << huge.message();
    EXPECT_FALSE(check_json_document(Json{{"count", 2.5}}, "half.json"));
}

TEST(JsonInput, ByteFieldTakesWholeNumbersInRangeOnly)
{
    // as read from a file (the parser keeps 4096 as an unsigned number)
    Json object = Json::parse(R"({"n": 4096, "neg": -1, "frac": 1.5, "whole": 8.0, "text": "8"})");
    ASSERT_TRUE(byte_field(object, "n", "f.json"));
    EXPECT_EQ(*byte_field(object, "n", "f.json"), 4096u);
    EXPECT_EQ(*byte_field(object, "whole", "f.json"), 8u);
    EXPECT_FALSE(byte_field(object, "neg", "f.json"));
    EXPECT_FALSE(byte_field(object, "frac", "f.json"));
    EXPECT_FALSE(byte_field(object, "n", "f.json", 1024)); // above the given maximum
    Result<uint64_t> text = byte_field(object, "text", "f.json: ranges[0]");
    ASSERT_FALSE(text);
    EXPECT_TRUE(says(text.status(), "f.json: ranges[0]: no numeric \"text\"")) << text.status().message();
    EXPECT_FALSE(byte_field(object, "absent", "f.json"));
}

TEST(JsonInput, FiniteFieldTakesNumbersOnly)
{
    Json object = {{"x", -2.5}, {"s", "1"}};
    ASSERT_TRUE(finite_field(object, "x", "f.json"));
    EXPECT_DOUBLE_EQ(*finite_field(object, "x", "f.json"), -2.5);
    EXPECT_FALSE(finite_field(object, "s", "f.json"));
    EXPECT_FALSE(finite_field(object, "absent", "f.json"));
}

} // namespace
} // namespace ngx
