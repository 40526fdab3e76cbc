// The main command line's options (see cli_options.hpp).
#include "cli_options.hpp"

#include <ngx/transport.hpp>

#include <sstream>

namespace ngx {
namespace {

constexpr size_t help_columns = 80; // `ngx --help` fits an 80-column terminal

// A group title broken into lines of at most help_columns, indented after the first.
std::string wrapped_title(const std::string& text)
{
    std::istringstream words(text);
    std::string title, line, word;
    while (words >> word) {
        if (!line.empty() && line.size() + 1 + word.size() >= help_columns) { // Boost adds a colon
            title += line + "\n";
            line = "  ";
        }
        line += (line.empty() || line == "  " ? "" : " ") + word;
    }
    return title + line;
}

} // namespace

opt::Option<uint64_t> core_option::buffer_offset()
{
    return opt::row::whole_number("buffer-offset", opt::no_default, 0, uint64_t(page_size()) - 1,
                                  "start every message buffer this many bytes past a page boundary (default: where the "
                                  "module's alloc puts it); the page offset moves copy-bound transfers (docs/usage.md, "
                                  "Buffers)");
}

opt::Table general_table()
{
    using namespace core_option;
    opt::Table table(
        "ngx", {help,     version, list_modules, list_patterns, module,  pattern, sizes,      grade,    step,
                count,    warmup,  timeout,      max_loss,      retries, passes,  max_rel_ci, adaptive, max_size_time,
                launches, verify,  cpus,         host_of,       pairs,   strides, raw});
    table.add(buffer_offset());
    for (const opt::Row& row :
         std::initializer_list<opt::Row>{plot, timer, listen, connect, ranks_per_host, accept_timeout, bootstrap})
        table.add(row);
    return table;
}

opt::Table server_table()
{
    using namespace core_option;
    return opt::Table("ngx --listen", {allow, secret_file, serve, max_pairs, max_timeout, max_size, max_count_row});
}

opt::Table core_table()
{
    opt::Table table = general_table();
    table.add(output_options());
    table.add(server_table());
    return table;
}

po::options_description general_options()
{
    return option_group("General options", general_table().specs());
}

po::options_description server_options()
{
    return option_group("Server options (--listen; --secret-file on both sides)", server_table().specs());
}

std::vector<opt::OptionSpec> module_specs(const ngx_module& descriptor)
{
    std::vector<opt::OptionSpec> specs;
    for (size_t i = 0; i < descriptor.option_count; ++i) {
        const ngx_option_spec& spec = descriptor.options[i];
        specs.push_back({spec.name, spec.default_value ? spec.default_value : "", spec.help ? spec.help : "",
                         opt::OptionKind::value, spec.default_value != nullptr});
    }
    return specs;
}

po::options_description module_options(const LoadedModule& module)
{
    const ngx_module& descriptor = module.descriptor();
    return option_group(wrapped_title("Module " + module.name() + ": " + descriptor.description),
                        module_specs(descriptor));
}

po::options_description pattern_options(const PatternInfo& pattern)
{
    return option_group(wrapped_title("Pattern " + pattern.name + ": " + pattern.description), pattern.options);
}

opt::Table selection_table()
{
    using namespace core_option;
    return opt::Table("ngx", {module, pattern, help, listen});
}

} // namespace ngx
