// The module loader accepts a real module and rejects, with a reason, a
// wrong-ABI module, a shared object without the entry symbol and a text file.
// Paths of the fixtures come from the environment set in meson.build.
#include <ngx/loader.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace ngx {
namespace {

std::string env_path(const char* name)
{
    const char* value = std::getenv(name);
    return value != nullptr ? value : "";
}

std::string rejection_of(const std::string& path)
{
    Result<LoadedModulePtr> module = load_module_file(path);
    EXPECT_FALSE(module.has_value()) << path << " was accepted";
    return module.status().message();
}

TEST(Loader, AcceptsAnInTreeModule)
{
    std::string path = env_path("NGX_TEST_GOOD_MODULE");
    ASSERT_FALSE(path.empty());
    Result<LoadedModulePtr> module = load_module_file(path);
    ASSERT_TRUE(module.has_value()) << module.status().message();
    EXPECT_EQ((*module)->descriptor().abi_major, uint32_t(NGX_MODULE_ABI_MAJOR));
    EXPECT_FALSE((*module)->name().empty());
}

TEST(Loader, RejectsAnotherAbiMajor)
{
    EXPECT_NE(rejection_of(env_path("NGX_TEST_WRONG_ABI_MODULE")).find("ABI 99"), std::string::npos);
}

TEST(Loader, RejectsASharedObjectWithoutTheEntrySymbol)
{
    EXPECT_NE(rejection_of(env_path("NGX_TEST_NO_SYMBOL_MODULE")).find("no ngx_module_entry symbol"),
              std::string::npos);
}

TEST(Loader, RejectsATextFile)
{
    std::filesystem::path dir = std::filesystem::temp_directory_path() / ("ngx-loader-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    std::string path = (dir / "ngx_text.so").string();
    std::ofstream(path) << "this is not a shared object\n";
    EXPECT_NE(rejection_of(path).find("not an ELF"), std::string::npos);

    // The registry lists it among the rejected, with the reason.
    ModuleRegistry registry({dir.string()});
    ModuleListing listing = registry.load_all();
    EXPECT_TRUE(listing.loaded.empty());
    ASSERT_EQ(listing.rejected.size(), 1u);
    EXPECT_NE(listing.rejected[0].reason.find("not an ELF"), std::string::npos);
    std::filesystem::remove_all(dir);
}

TEST(Loader, UnknownNameIsAUsageErrorListingWhatExists)
{
    std::filesystem::path good = env_path("NGX_TEST_GOOD_MODULE");
    ModuleRegistry registry({good.parent_path().string()});
    Result<LoadedModulePtr> module = registry.load("nosuchmodule");
    ASSERT_FALSE(module.has_value());
    EXPECT_EQ(module.status().kind(), ErrorKind::usage);
    EXPECT_NE(module.status().message().find("unknown module 'nosuchmodule'"), std::string::npos);
}

TEST(Loader, SearchPathPutsTheEnvironmentFirst)
{
    std::vector<std::string> path = module_search_path("/a:/b", "/usr/bin/ngx");
    ASSERT_GE(path.size(), 3u);
    EXPECT_EQ(path[0], "/a");
    EXPECT_EQ(path[1], "/b");
}

} // namespace
} // namespace ngx
