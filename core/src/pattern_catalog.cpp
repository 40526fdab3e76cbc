// Pattern plugin discovery and validation (see pattern_catalog.hpp).
#include "pattern_catalog.hpp"

#include "install_dirs.hpp"

#include <ngx/pattern_plugin.hpp>

#include "ngx_config.h"

#include <dlfcn.h>

namespace ngx {
namespace {

constexpr std::string_view file_prefix = "ngx_pattern_";

Status rejected(const std::string& why)
{
    return Status::runtime(why);
}

// The plain-C header first: nothing C++ is touched until it matches.
Status check_header(const ngx_pattern_plugin* plugin)
{
    if (plugin == nullptr)
        return rejected(NGX_PATTERN_ENTRY_SYMBOL "() returned nothing");
    if (plugin->abi_version != NGX_PATTERN_ABI_VERSION)
        return rejected("built for pattern ABI " + std::to_string(plugin->abi_version) + ", this ngx speaks " +
                        std::to_string(NGX_PATTERN_ABI_VERSION));
    std::string compiler = plugin->compiler != nullptr ? plugin->compiler : "an unknown compiler";
    if (plugin->gxx_abi_version != __GXX_ABI_VERSION || plugin->cxx11_string_abi != NGX_PATTERN_CXX11_ABI)
        return rejected("built with another C++ ABI (" + compiler + ", ABI " + std::to_string(plugin->gxx_abi_version) +
                        ", cxx11 strings " + std::to_string(plugin->cxx11_string_abi) + "); ngx was built with " +
                        __VERSION__ + ", ABI " + std::to_string(__GXX_ABI_VERSION));
    if (plugin->info_size != sizeof(PatternInfo))
        return rejected("its PatternInfo has " + std::to_string(plugin->info_size) + " bytes, this ngx's " +
                        std::to_string(sizeof(PatternInfo)) + ": built against other ngx headers");
    if (plugin->info == nullptr)
        return rejected("no pattern description");
    return Status::ok();
}

Status check_info(const PatternInfo* info, const std::string& expected_name)
{
    if (info == nullptr || info->name != expected_name)
        return rejected("pattern name '" + (info ? info->name : std::string()) +
                        "' does not match the file name (expected '" + expected_name + "')");
    if (!info->create)
        return rejected("no create() function");
    for (const opt::OptionSpec& spec : info->options)
        if (spec.kind != opt::OptionKind::output_file && !spec.name.starts_with(expected_name + "-"))
            return rejected("option '" + spec.name + "' lacks the prefix '" + expected_name + "-'");
    return Status::ok();
}

struct Opened {
    std::shared_ptr<void> handle;
    const PatternInfo* info = nullptr;
};

Result<Opened> open_pattern(const std::string& path, const std::string& name)
{
    NGX_TRY(check_elf(path));
    void* raw = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (raw == nullptr)
        return rejected(std::string("dlopen failed: ") + dlerror());
    std::shared_ptr<void> handle(raw, [](void* h) { dlclose(h); });
    auto entry = reinterpret_cast<ngx_pattern_entry_fn>(dlsym(raw, NGX_PATTERN_ENTRY_SYMBOL));
    if (entry == nullptr)
        return rejected("no " NGX_PATTERN_ENTRY_SYMBOL " symbol: not an ngx pattern");
    const ngx_pattern_plugin* plugin = entry();
    NGX_TRY(check_header(plugin));
    auto* info = static_cast<const PatternInfo*>(plugin->info());
    NGX_TRY(check_info(info, name));
    return Opened{std::move(handle), info};
}

} // namespace

std::vector<std::string> pattern_search_path(const char* env_pattern_path, const std::string& executable)
{
    return plugin_search_path(env_pattern_path, executable, NGX_BUILD_PATTERN_DIR,
                              installed_dir(executable, NGX_PATTERN_INSTALL_SUBDIR, NGX_PATTERN_INSTALL_DIR));
}

PatternCatalog PatternCatalog::load(std::vector<std::string> search_path)
{
    PatternCatalog catalog;
    PluginFiles files(search_path, file_prefix);
    for (const auto& [name, path] : files.first()) {
        Result<Opened> opened = open_pattern(path, name);
        if (!opened) {
            catalog.rejected_.push_back({path, opened.status().message()});
            continue;
        }
        catalog.handles_.push_back(opened->handle);
        catalog.patterns_.push_back(opened->info);
        catalog.paths_.push_back(path);
    }
    catalog.rejected_.insert(catalog.rejected_.end(), files.shadowed().begin(), files.shadowed().end());
    catalog.search_path_ = std::move(search_path);
    return catalog;
}

const PatternInfo* PatternCatalog::find(std::string_view name) const
{
    for (const PatternInfo* pattern : patterns_)
        if (pattern->name == name)
            return pattern;
    return nullptr;
}

std::vector<std::string> PatternCatalog::names() const
{
    std::vector<std::string> names;
    for (const PatternInfo* pattern : patterns_)
        names.push_back(pattern->name);
    return names;
}

} // namespace ngx
