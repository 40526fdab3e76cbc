// Where an installed ngx finds its own files (modules, patterns, the plot
// script): below the prefix its binary sits in (the binary's folder, then
// NGX_BINDIR_TO_PREFIX, then the folder below the prefix), so that a prefix
// moved or copied elsewhere still works; else, when that folder is missing
// or the build put a folder outside its prefix, the folder configured at
// build time.
//
//     std::string modules = installed_dir("/home/me/.local/bin/ngx", NGX_MODULE_INSTALL_SUBDIR,
//                                         NGX_MODULE_INSTALL_DIR);   // /home/me/.local/lib/.../ngx/modules
#ifndef NGX_INSTALL_DIRS_HPP
#define NGX_INSTALL_DIRS_HPP

#include <string>

namespace ngx {

// `executable`: the running binary (/proc/self/exe), empty when unknown.
std::string installed_dir(const std::string& executable, const std::string& below_prefix,
                          const std::string& configured);

} // namespace ngx

#endif
