// The entry point of a pattern plugin: one exported C symbol,
// `ngx_pattern_entry`, returning a plain C struct that the loader checks
// before it touches any C++ object (the interface behind it is C++, see
// ngx/pattern.hpp, so the compiler's ABI must match the core's too):
//
//     ngx::PatternInfo my_pattern() { return {.name = "mine", ...}; }
//     NGX_PATTERN_EXPORT(my_pattern)
//
// Build it as `ngx_pattern_<name>.so` (pkg-config ngx-pattern) and put it in
// a folder of NGX_PATTERN_PATH; `ngx --list-patterns` shows whether it was
// loaded or why it was rejected.
#ifndef NGX_PATTERN_PLUGIN_HPP
#define NGX_PATTERN_PLUGIN_HPP

#include <ngx/pattern.hpp>

#include <cstdint>

// Bumped with every change of the types of ngx/pattern.hpp (or of a type
// they expose): the catalog loads only plugins built for this version, whose
// sizeof(PatternInfo) and C++ ABI also match the core's.
#define NGX_PATTERN_ABI_VERSION 6
#define NGX_PATTERN_ENTRY_SYMBOL "ngx_pattern_entry"

#ifndef _GLIBCXX_USE_CXX11_ABI
#define NGX_PATTERN_CXX11_ABI 0
#else
#define NGX_PATTERN_CXX11_ABI _GLIBCXX_USE_CXX11_ABI
#endif

extern "C" {

typedef struct ngx_pattern_plugin {
    uint32_t abi_version;      // NGX_PATTERN_ABI_VERSION the plugin was built with
    uint32_t gxx_abi_version;  // __GXX_ABI_VERSION of its compiler (the C++ ABI)
    uint32_t cxx11_string_abi; // libstdc++'s dual ABI: std::string layout
    uint32_t info_size;        // sizeof(ngx::PatternInfo) as built
    const char* compiler;      // __VERSION__, named when the file is rejected
    const void* (*info)(void); // -> const ngx::PatternInfo*, valid while loaded
} ngx_pattern_plugin;

typedef const ngx_pattern_plugin* (*ngx_pattern_entry_fn)(void);
}

// The values this translation unit would put into an ngx_pattern_plugin.
#define NGX_PATTERN_PLUGIN_HEADER                                                                                      \
    NGX_PATTERN_ABI_VERSION, __GXX_ABI_VERSION, NGX_PATTERN_CXX11_ABI, uint32_t(sizeof(ngx::PatternInfo)), __VERSION__

// Exports `ngx_pattern_entry` for the PatternInfo that `make_info()` returns.
#define NGX_PATTERN_EXPORT(make_info)                                                                                  \
    extern "C" __attribute__((visibility("default"))) const ngx_pattern_plugin* ngx_pattern_entry(void)                \
    {                                                                                                                  \
        static const ngx_pattern_plugin plugin = {NGX_PATTERN_PLUGIN_HEADER, []() -> const void* {                     \
                                                      static const ngx::PatternInfo info = make_info();                \
                                                      return &info;                                                    \
                                                  }};                                                                  \
        return &plugin;                                                                                                \
    }

#endif
