// Finding and loading transport modules (shared objects with the C ABI of
// ngx/module.h).
//
// Discovery looks, in order, in every directory of NGX_MODULE_PATH, in the
// build tree (only when ngx itself runs from it) and in the install dir, for
// files named ngx_<name>.so in the directory itself or one level below. The
// first file for a name wins; later ones are reported as shadowed. Loading is
// lazy: a module's file is opened only when asked for by name, or by
// load_all() for --list-modules.
//
//     ModuleRegistry registry(module_search_path(getenv("NGX_MODULE_PATH"), exe));
//     Result<LoadedModulePtr> tcp = registry.load("tcp");
#ifndef NGX_LOADER_HPP
#define NGX_LOADER_HPP

#include <ngx/module.h>
#include <ngx/status.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ngx {

// A module file opened with dlopen and validated; closes the handle when the
// last reference goes. ops() is the module's table normalised once at load:
// full size, every entry set. Optional operations the module lacks point at
// shared fallbacks (alloc/free: 64-byte aligned heap memory; resync: nothing
// to do; isend/irecv/test/wait: fail with NGX_ERR_UNSUPPORTED), so callers
// never check for NULL. descriptor() stays the module's own, untouched.
class LoadedModule {
public:
    LoadedModule(void* handle, const ngx_module* descriptor, std::string path);
    ~LoadedModule();
    LoadedModule(const LoadedModule&) = delete;
    LoadedModule& operator=(const LoadedModule&) = delete;

    const ngx_module& descriptor() const { return *descriptor_; }
    const ngx_module_ops& ops() const { return ops_; }
    const std::string& name() const { return name_; }
    const std::string& path() const { return path_; }
    bool has(uint32_t capability) const { return (descriptor_->capabilities & capability) != 0; }

private:
    void* handle_;
    const ngx_module* descriptor_;
    ngx_module_ops ops_;
    std::string name_;
    std::string path_;
};

using LoadedModulePtr = std::shared_ptr<const LoadedModule>;

struct RejectedModule {
    std::string path;
    std::string reason;
};

struct ModuleListing {
    std::vector<LoadedModulePtr> loaded;
    std::vector<RejectedModule> rejected;
};

// The directories to search: NGX_MODULE_PATH's entries (colon-separated),
// the build tree when `executable` lies inside it, then the install dir.
std::vector<std::string> module_search_path(const char* env_module_path, const std::string& executable);

// Opens one file and checks it: ELF, entry symbol, ABI major, descriptor and
// ops sizes, a name matching the file name, prefixed option names.
Result<LoadedModulePtr> load_module_file(const std::string& path);

class ModuleRegistry {
public:
    explicit ModuleRegistry(std::vector<std::string> search_path);

    Result<LoadedModulePtr> load(const std::string& name) const;
    ModuleListing load_all() const;
    std::vector<std::string> names() const;
    const std::vector<std::string>& search_path() const { return search_path_; }

private:
    std::vector<std::string> search_path_;
    std::map<std::string, std::string> first_file_; // name -> path that wins
    std::vector<RejectedModule> shadowed_;          // later files with a taken name
};

} // namespace ngx

#endif
