// Where plugins are found, for modules and patterns alike.
//
// A search path is the entries of an environment variable (colon-separated),
// then the build tree's plugin folder when ngx itself runs from the build
// tree, then the install folder (install_dirs.hpp: below the prefix the
// binary is in). In each folder, and one level below it,
// files named <prefix><name>.so are candidates; the first file for a name
// wins and later ones are reported as shadowed.
//
//     PluginFiles files(plugin_search_path(getenv("NGX_PATTERN_PATH"), exe, build_dir, install_dir),
//                       "ngx_pattern_");
//     for (const auto& [name, path] : files.first()) ...
#ifndef NGX_PLUGIN_FILES_HPP
#define NGX_PLUGIN_FILES_HPP

#include <ngx/status.hpp>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ngx {

struct RejectedPlugin {
    std::string path;
    std::string reason;
};

std::vector<std::string> plugin_search_path(const char* env_value, const std::string& executable,
                                            const std::string& build_dir, const std::string& install_dir);

// "ngx_pattern_loggp.so" with prefix "ngx_pattern_" -> "loggp"; empty for other names.
std::string plugin_name_of(const std::string& path, std::string_view prefix);

// Fails unless `path` starts like an ELF file.
Status check_elf(const std::string& path);

class PluginFiles {
public:
    PluginFiles(const std::vector<std::string>& search_path, std::string_view prefix);

    const std::map<std::string, std::string>& first() const { return first_; } // name -> path
    const std::vector<RejectedPlugin>& shadowed() const { return shadowed_; }

private:
    std::map<std::string, std::string> first_;
    std::vector<RejectedPlugin> shadowed_;
};

} // namespace ngx

#endif
