// Plugin discovery shared by modules and patterns (see plugin_files.hpp).
#include "plugin_files.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ngx {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view file_suffix = ".so";

std::vector<fs::path> candidate_files(const std::string& directory, std::string_view prefix)
{
    std::vector<fs::path> files;
    std::error_code error;
    auto collect = [&](const fs::path& dir) {
        for (const auto& entry : fs::directory_iterator(dir, error))
            if (!plugin_name_of(entry.path().string(), prefix).empty() && !entry.is_directory(error))
                files.push_back(entry.path());
    };
    if (!fs::is_directory(directory, error))
        return files;
    collect(directory);
    for (const auto& entry : fs::directory_iterator(directory, error))
        if (entry.is_directory(error))
            collect(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

} // namespace

std::vector<std::string> plugin_search_path(const char* env_value, const std::string& executable,
                                            const std::string& build_dir, const std::string& install_dir)
{
    std::vector<std::string> path;
    if (env_value != nullptr) {
        std::stringstream entries(env_value);
        for (std::string entry; std::getline(entries, entry, ':');)
            if (!entry.empty())
                path.push_back(entry);
    }
    std::string build_root = fs::path(build_dir).parent_path().string();
    if (!executable.empty() && executable.starts_with(build_root + "/"))
        path.push_back(build_dir);
    path.push_back(install_dir);
    return path;
}

std::string plugin_name_of(const std::string& path, std::string_view prefix)
{
    std::string base = fs::path(path).filename().string();
    if (base.size() <= prefix.size() + file_suffix.size() || !base.starts_with(prefix) || !base.ends_with(file_suffix))
        return {};
    return base.substr(prefix.size(), base.size() - prefix.size() - file_suffix.size());
}

Status check_elf(const std::string& path)
{
    std::ifstream file(path, std::ios::binary);
    if (!file)
        return Status::runtime("cannot be read");
    std::array<char, 4> magic{};
    file.read(magic.data(), magic.size());
    if (file.gcount() != 4 || magic != std::array<char, 4>{'\x7f', 'E', 'L', 'F'})
        return Status::runtime("not an ELF shared object");
    return Status::ok();
}

PluginFiles::PluginFiles(const std::vector<std::string>& search_path, std::string_view prefix)
{
    for (const std::string& directory : search_path)
        for (const fs::path& file : candidate_files(directory, prefix)) {
            auto [it, inserted] = first_.emplace(plugin_name_of(file.string(), prefix), file.string());
            if (!inserted && it->second != file.string())
                shadowed_.push_back({file.string(), "shadowed by " + it->second});
        }
}

} // namespace ngx
