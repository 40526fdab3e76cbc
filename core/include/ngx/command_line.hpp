// Parsing a subcommand's arguments against declared options, for the
// subcommands and the patterns' `ngx fit` hooks (`ngx predict`'s options
// are declared once in ngx/model_kind.hpp). The parser
// behind it stays inside the core; what comes back is OptionValues (defaults
// filled in, repeatable options once per occurrence) read with
// ngx/options.hpp. Output options shared by every command that writes
// results are declared once here.
//
//     constexpr auto file = opt::row::text("file", opt::no_default, "the saved run");
//     opt::Table table("ngx plot", {file, ...});
//     Result<OptionValues> values = parse_arguments(arguments, table, "file");
//     if (!values) return values.status();
//     opt::Reader read(table, *values);          // read(file), read.all(file), ...
#ifndef NGX_COMMAND_LINE_HPP
#define NGX_COMMAND_LINE_HPP

#include <ngx/options.hpp>
#include <ngx/reporter.hpp>
#include <ngx/status.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ngx {

// `positional` names the option that bare arguments fill ("" for none; at
// most one bare argument, or any number when that option is repeatable). An
// option name may carry a short form: "output,o".
Result<OptionValues> parse_arguments(const std::vector<std::string>& arguments,
                                     const std::vector<opt::OptionSpec>& specs, const std::string& positional);

Result<OptionValues> parse_arguments(const std::vector<std::string>& arguments, const opt::Table& table,
                                     const std::string& positional);

// --help text of a command: its usage line, then its options (each row's
// type and range after its help).
std::string options_help(const std::string& usage, const std::vector<opt::OptionSpec>& specs);
std::string options_help(const std::string& usage, const opt::Table& table);

// -o FILE (repeatable), --format table|csv|json, --percentiles LIST.
namespace output_option {
inline constexpr auto file =
    opt::row::output_file("output,o", "write results to FILE (.json, .csv, .txt); repeatable", opt::no_default, true);
inline constexpr auto format = opt::row::choice("format", opt::no_default, {"table", "csv", "json"},
                                                "for -o files without a known extension, or for stdout");
inline constexpr auto percentiles =
    opt::row::text("percentiles", opt::no_default, "extra percentiles to report, e.g. 90,99.9");
} // namespace output_option

opt::Table output_options();
std::vector<opt::OptionSpec> output_option_specs();

struct OutputSpec {
    std::string path;
    OutputFormat format;
};

struct OutputChoice {
    std::vector<OutputSpec> files;             // -o, with their formats
    std::optional<OutputFormat> stdout_format; // --format without -o: print that instead of the table
    std::vector<double> percentiles;           // --percentiles
};

// Reads and checks the output options (usage errors name the option).
Status read_output_choice(const OptionValues& values, OutputChoice& choice);

// The reporters an output choice asks for, for a document without live runs.
std::vector<std::unique_ptr<Reporter>> output_reporters(const OutputChoice& choice, std::ostream& out, bool keep_raw);

// Hands a finished document to reporters as a live run would have (size by size).
Status replay(const Document& document, std::vector<std::unique_ptr<Reporter>>& reporters);

} // namespace ngx

#endif
