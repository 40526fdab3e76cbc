// write_atomically and check_writable (output_file.hpp): the whole text or
// nothing at the target, no temporary file left beside it, a planted
// "NAME.tmp" link never followed, a link the user named replaced at its end
// with the link kept, a device written in place, and the refusals naming
// the target.
#include <ngx/output_file.hpp>

#include "scratch_dir.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace ngx {
namespace {

class OutputFile : public ScratchDir {
protected:
    // The names in the test's directory, sorted.
    std::vector<std::string> entries() const
    {
        std::vector<std::string> names;
        for (const auto& entry : std::filesystem::directory_iterator(dir_))
            names.push_back(entry.path().filename());
        std::sort(names.begin(), names.end());
        return names;
    }
};

std::string contents(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

bool is_link(const std::string& path)
{
    struct stat info {};
    return lstat(path.c_str(), &info) == 0 && S_ISLNK(info.st_mode);
}

TEST_F(OutputFile, WritesTheWholeTextAndLeavesNoTemporaryFile)
{
    ASSERT_TRUE(write_atomically(path("out.json"), "{\"a\": 1}\n"));
    EXPECT_EQ(contents(path("out.json")), "{\"a\": 1}\n");
    ASSERT_TRUE(write_atomically(path("out.json"), "second\n")); // replaces the first
    EXPECT_EQ(contents(path("out.json")), "second\n");
    EXPECT_EQ(entries(), std::vector<std::string>{"out.json"});
}

TEST_F(OutputFile, NeverFollowsAPlantedTemporaryName)
{
    std::ofstream(path("victim")) << "keep\n";
    ASSERT_EQ(symlink(path("victim").c_str(), path("out.json.tmp").c_str()), 0);
    ASSERT_TRUE(write_atomically(path("out.json"), "new\n"));
    EXPECT_EQ(contents(path("out.json")), "new\n");
    EXPECT_EQ(contents(path("victim")), "keep\n");
    EXPECT_TRUE(is_link(path("out.json.tmp")));
}

TEST_F(OutputFile, ALinkTheUserNamedIsReplacedAtItsEndAndStays)
{
    std::ofstream(path("real.json")) << "old\n";
    ASSERT_EQ(symlink("real.json", path("link.json").c_str()), 0);
    ASSERT_TRUE(write_atomically(path("link.json"), "via link\n"));
    EXPECT_TRUE(is_link(path("link.json")));
    EXPECT_EQ(contents(path("real.json")), "via link\n");
}

TEST_F(OutputFile, RefusesALinkToADirectory)
{
    ASSERT_EQ(mkdir(path("sub").c_str(), 0700), 0);
    ASSERT_EQ(symlink("sub", path("dir.json").c_str()), 0);
    Status to_dir = write_atomically(path("dir.json"), "x");
    ASSERT_FALSE(to_dir);
    EXPECT_NE(to_dir.message().find("dir.json"), std::string::npos) << to_dir.message();
    EXPECT_FALSE(check_writable(path("dir.json")));
}

TEST_F(OutputFile, RefusesADirectoryThatDoesNotExistNamingTheTarget)
{
    std::string target = path("no/such/dir/out.json");
    Status early = check_writable(target);
    ASSERT_FALSE(early);
    EXPECT_NE(early.message().find(target), std::string::npos) << early.message();
    Status late = write_atomically(target, "x");
    ASSERT_FALSE(late);
    EXPECT_NE(late.message().find(target), std::string::npos) << late.message();
}

TEST_F(OutputFile, WritesADeviceInPlace)
{
    EXPECT_TRUE(check_writable("/dev/null"));
    ASSERT_TRUE(write_atomically("/dev/null", "discarded\n"));
    struct stat info {};
    ASSERT_EQ(stat("/dev/null", &info), 0);
    EXPECT_TRUE(S_ISCHR(info.st_mode)); // still the device, not a regular file
}

} // namespace
} // namespace ngx
