// Installed folders relative to the running binary (see install_dirs.hpp).
#include "install_dirs.hpp"

#include "ngx_config.h"

#include <filesystem>

namespace ngx {

std::string installed_dir(const std::string& executable, const std::string& below_prefix, const std::string& configured)
{
    namespace fs = std::filesystem;
    const std::string up = NGX_BINDIR_TO_PREFIX; // empty: the build put a folder outside the prefix
    if (executable.empty() || up.empty() || below_prefix.empty())
        return configured;
    fs::path beside = (fs::path(executable).parent_path() / up / below_prefix).lexically_normal();
    std::error_code error;
    return fs::is_directory(beside, error) ? beside.string() : configured;
}

} // namespace ngx
