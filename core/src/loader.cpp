// Module discovery and validation (see loader.hpp).
#include <ngx/loader.hpp>
#include <ngx/module_support.hpp>

#include "install_dirs.hpp"
#include "missing_features.hpp"
#include "plugin_files.hpp"

#include "ngx_config.h"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ngx {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view file_prefix = "ngx_";

std::string module_name_of(const std::string& path)
{
    return plugin_name_of(path, file_prefix);
}

Status rejected(const std::string& why)
{
    return Status::runtime(why);
}

Status check_descriptor(const ngx_module* module, const std::string& expected_name)
{
    if (module == nullptr)
        return rejected("ngx_module_entry() returned no descriptor");
    if (module->abi_major != NGX_MODULE_ABI_MAJOR)
        return rejected("built for module ABI " + std::to_string(module->abi_major) + ", this ngx speaks ABI " +
                        std::to_string(NGX_MODULE_ABI_MAJOR));
    if (module->size < offsetof(ngx_module, ops) + sizeof(module->ops))
        return rejected("descriptor is smaller than ABI 1 requires");
    if (module->name == nullptr || expected_name != module->name)
        return rejected("descriptor name '" + std::string(module->name ? module->name : "") +
                        "' does not match the file name (expected '" + expected_name + "')");
    const ngx_module_ops* ops = module->ops;
    if (ops == nullptr || ops->size < offsetof(ngx_module_ops, finalize) + sizeof(ops->finalize))
        return rejected("operations table missing or too small");
    if (!ops->init || !ops->connect || !ops->send || !ops->recv || !ops->finalize)
        return rejected("operations table lacks init, connect, send, recv or finalize");
    std::string prefix = expected_name + "-";
    for (size_t i = 0; i < module->option_count; ++i) {
        const char* option = module->options[i].name;
        if (option == nullptr || !std::string_view(option).starts_with(prefix))
            return rejected("option '" + std::string(option ? option : "") + "' lacks the prefix '" + prefix + "'");
    }
    return Status::ok();
}

// The shared fallbacks for optional operations a module leaves out.
ngx_status unsupported(ngx_error* err, const char* what)
{
    return mod::fail(err, NGX_ERR_UNSUPPORTED, "the module has no %s", what);
}

ngx_status no_isend(void*, const void*, size_t, ngx_request*, ngx_error* err)
{
    return unsupported(err, "non-blocking send (isend)");
}

ngx_status no_irecv(void*, void*, size_t, ngx_request*, ngx_error* err)
{
    return unsupported(err, "non-blocking receive (irecv)");
}

ngx_status no_test(void*, ngx_request*, int*, ngx_error* err)
{
    return unsupported(err, "test operation");
}

ngx_status no_wait(void*, ngx_request*, ngx_error* err)
{
    return unsupported(err, "wait operation");
}

ngx_status no_resync(void*, const ngx_bootstrap*, ngx_error*)
{
    return NGX_OK; // a module without resync has nothing to resynchronise
}

ngx_status no_set_layout(void*, const ngx_layout*, ngx_error* err)
{
    return unsupported(err, "derived datatypes and send to self (set_layout)");
}

ngx_status no_bcast(void*, void*, size_t, ngx_error* err)
{
    return unsupported(err, "collectives (bcast)");
}

ngx_status no_prepare_recv(void*, ngx_error*)
{
    return NGX_OK; // a module without the op leaves nothing for later
}

ngx_status no_virtual_clock(void*, ngx_virtual_clock*, ngx_error* err)
{
    return unsupported(err, "virtual time");
}

// ABI 1.5: a module without per-peer links has the one link of connect.
ngx_status no_open_link(void*, const ngx_bootstrap*, ngx_error* err)
{
    return unsupported(err, "per-peer links (open_link)");
}

ngx_status no_select_peer(void*, int, ngx_error* err)
{
    return unsupported(err, "per-peer links (select_peer)");
}

// ABI 1.6: a module without the library's collectives.
ngx_status no_collective(void*, int, const void*, void*, size_t, ngx_error* err)
{
    return unsupported(err, "the library's own collectives (collective)");
}

// ABI 1.7: a module without one-sided operations.
ngx_status no_expose(void*, const ngx_bootstrap*, void*, size_t, ngx_error* err)
{
    return unsupported(err, "one-sided operations (expose)");
}
ngx_status no_put(void*, const void*, size_t, size_t, ngx_error* err)
{
    return unsupported(err, "one-sided operations (put)");
}
ngx_status no_get(void*, void*, size_t, size_t, ngx_error* err)
{
    return unsupported(err, "one-sided operations (get)");
}
ngx_status no_flush(void*, ngx_error* err)
{
    return unsupported(err, "one-sided operations (flush)");
}

void keep(void*, void*) {} // the module's alloc without free: the module owns its buffers

// The module's table with every entry set (see LoadedModule). Only the bytes
// its `size` covers are read, so an older, shorter table gets fallbacks for
// the members it predates.
ngx_module_ops normalised(const ngx_module_ops& module_ops)
{
    ngx_module_ops ops{};
    std::memcpy(&ops, &module_ops, std::min(module_ops.size, sizeof ops));
    ops.size = sizeof ops;
    if (ops.alloc == nullptr) {
        ops.alloc = mod::heap_alloc<64>;
        ops.free = mod::heap_free;
    } else if (ops.free == nullptr) {
        ops.free = keep;
    }
    if (ops.isend == nullptr)
        ops.isend = no_isend;
    if (ops.irecv == nullptr)
        ops.irecv = no_irecv;
    if (ops.test == nullptr)
        ops.test = no_test;
    if (ops.wait == nullptr)
        ops.wait = no_wait;
    if (ops.resync == nullptr)
        ops.resync = no_resync;
    if (ops.set_layout == nullptr)
        ops.set_layout = no_set_layout;
    if (ops.bcast == nullptr)
        ops.bcast = no_bcast;
    if (ops.prepare_recv == nullptr)
        ops.prepare_recv = no_prepare_recv;
    if (ops.virtual_clock == nullptr)
        ops.virtual_clock = no_virtual_clock;
    if (ops.open_link == nullptr)
        ops.open_link = no_open_link;
    if (ops.select_peer == nullptr)
        ops.select_peer = no_select_peer;
    if (ops.collective == nullptr)
        ops.collective = no_collective;
    if (ops.expose == nullptr)
        ops.expose = no_expose;
    if (ops.put == nullptr)
        ops.put = no_put;
    if (ops.get == nullptr)
        ops.get = no_get;
    if (ops.flush == nullptr)
        ops.flush = no_flush;
    return ops;
}

} // namespace

LoadedModule::LoadedModule(void* handle, const ngx_module* descriptor, std::string path)
        : handle_(handle), descriptor_(descriptor), ops_(normalised(*descriptor->ops)), name_(descriptor->name),
          path_(std::move(path))
{
}

LoadedModule::~LoadedModule()
{
    if (handle_ != nullptr)
        dlclose(handle_);
}

std::vector<std::string> module_search_path(const char* env_module_path, const std::string& executable)
{
    return plugin_search_path(env_module_path, executable, NGX_BUILD_MODULE_DIR,
                              installed_dir(executable, NGX_MODULE_INSTALL_SUBDIR, NGX_MODULE_INSTALL_DIR));
}

Result<LoadedModulePtr> load_module_file(const std::string& path)
{
    std::string name = module_name_of(path);
    if (name.empty())
        return rejected("file name is not ngx_<name>.so");
    NGX_TRY(check_elf(path));
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr)
        return rejected(std::string("dlopen failed: ") + dlerror());
    auto entry = reinterpret_cast<ngx_module_entry_fn>(dlsym(handle, NGX_MODULE_ENTRY_SYMBOL));
    if (entry == nullptr) {
        dlclose(handle);
        return rejected("no " NGX_MODULE_ENTRY_SYMBOL " symbol: not an ngx module");
    }
    const ngx_module* descriptor = entry();
    if (Status status = check_descriptor(descriptor, name); !status) {
        dlclose(handle);
        return status;
    }
    return LoadedModulePtr(std::make_shared<const LoadedModule>(handle, descriptor, path));
}

ModuleRegistry::ModuleRegistry(std::vector<std::string> search_path) : search_path_(std::move(search_path))
{
    PluginFiles files(search_path_, file_prefix);
    first_file_ = files.first();
    for (const RejectedPlugin& shadowed : files.shadowed())
        shadowed_.push_back({shadowed.path, shadowed.reason});
}

Result<LoadedModulePtr> ModuleRegistry::load(const std::string& name) const
{
    auto it = first_file_.find(name);
    if (it == first_file_.end()) {
        std::string known;
        for (const auto& [known_name, path] : first_file_)
            known += (known.empty() ? "" : ", ") + known_name;
        for (const MissingFeature& feature : modules_not_built())
            if (feature.name == name)
                return Status::usage("module '" + name + "' " + feature.how);
        return Status::usage("unknown module '" + name + "' (found: " + (known.empty() ? "none" : known) +
                             "; see ngx --list-modules)");
    }
    Result<LoadedModulePtr> module = load_module_file(it->second);
    if (!module)
        return Status::runtime("module '" + name + "' (" + it->second + ") rejected: " + module.status().message());
    return module;
}

ModuleListing ModuleRegistry::load_all() const
{
    ModuleListing listing;
    for (const auto& [name, path] : first_file_) {
        Result<LoadedModulePtr> module = load_module_file(path);
        if (module)
            listing.loaded.push_back(*module);
        else
            listing.rejected.push_back({path, module.status().message()});
    }
    listing.rejected.insert(listing.rejected.end(), shadowed_.begin(), shadowed_.end());
    return listing;
}

std::vector<std::string> ModuleRegistry::names() const
{
    std::vector<std::string> names;
    for (const auto& [name, path] : first_file_)
        names.push_back(name);
    return names;
}

} // namespace ngx
