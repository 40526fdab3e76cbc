// A GoogleTest fixture with a directory of its own under /tmp, removed with
// everything in it after each test: the unit tests that write files
// derive from it.
//
//     class OutputFile : public ScratchDir {};
//     TEST_F(OutputFile, ...) { write_atomically(path("out.json"), text); }
#ifndef NGX_TESTS_UNIT_SCRATCH_DIR_HPP
#define NGX_TESTS_UNIT_SCRATCH_DIR_HPP

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace ngx {

class ScratchDir : public ::testing::Test {
protected:
    void SetUp() override
    {
        char name[] = "/tmp/ngx-unit-test.XXXXXX";
        ASSERT_NE(mkdtemp(name), nullptr);
        dir_ = name;
    }
    void TearDown() override
    {
        std::error_code ignored;
        std::filesystem::remove_all(dir_, ignored);
    }
    // NAME inside the directory.
    std::string path(const std::string& name) const { return dir_ + "/" + name; }

    std::string dir_;
};

} // namespace ngx

#endif
