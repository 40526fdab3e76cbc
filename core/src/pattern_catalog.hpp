// The patterns this ngx has: every ngx_pattern_<name>.so found on the
// pattern search path (NGX_PATTERN_PATH, the build tree, <libdir>/ngx/patterns),
// opened and checked (ELF, entry symbol, pattern ABI, C++ ABI, the
// PatternInfo layout, a name matching the file, prefixed option names).
// Files that fail a check are kept with the reason, for --list-patterns.
//
//     PatternCatalog patterns = PatternCatalog::load(pattern_search_path(getenv("NGX_PATTERN_PATH"), exe));
//     const PatternInfo* loggp = patterns.find("loggp");
#ifndef NGX_PATTERN_CATALOG_HPP
#define NGX_PATTERN_CATALOG_HPP

#include "plugin_files.hpp"

#include <ngx/pattern.hpp>

#include <memory>
#include <string>
#include <vector>

namespace ngx {

std::vector<std::string> pattern_search_path(const char* env_pattern_path, const std::string& executable);

class PatternCatalog {
public:
    static PatternCatalog load(std::vector<std::string> search_path);

    const PatternInfo* find(std::string_view name) const;
    const std::vector<const PatternInfo*>& patterns() const { return patterns_; }
    const std::vector<RejectedPlugin>& rejected() const { return rejected_; }
    const std::vector<std::string>& search_path() const { return search_path_; }
    std::vector<std::string> names() const;
    const std::vector<std::string>& paths() const { return paths_; } // beside patterns()

private:
    std::vector<std::shared_ptr<void>> handles_; // dlopen handles, closed last
    std::vector<const PatternInfo*> patterns_;
    std::vector<std::string> paths_;
    std::vector<RejectedPlugin> rejected_;
    std::vector<std::string> search_path_;
};

} // namespace ngx

#endif
