// Declared options on Boost.Program_options (see ngx/command_line.hpp).
#include <ngx/command_line.hpp>

#include "option_group.hpp"

#include <algorithm>
#include <iostream>
#include <sstream>

namespace ngx {

namespace {

// Edits (insertions, deletions, substitutions) that turn a into b.
size_t edit_distance(const std::string& a, const std::string& b)
{
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

} // namespace

// " (did you mean '--loggp-n'?)" for the long name of `group` nearest to
// `bare` when it is a likely typo (at most 2 edits, or a quarter of the
// name), else "".
std::string closest_option_hint(const std::string& bare, const po::options_description& group)
{
    std::string best;
    size_t best_distance = std::max<size_t>(2, bare.size() / 4) + 1;
    for (const auto& option : group.options()) {
        size_t distance = edit_distance(bare, option->long_name());
        if (distance < best_distance) {
            best_distance = distance;
            best = option->long_name();
        }
    }
    return best.empty() ? std::string() : " (did you mean '--" + best + "'?)";
}

po::options_description option_group(const std::string& title, const std::vector<opt::OptionSpec>& specs)
{
    po::options_description group(title);
    for (const opt::OptionSpec& spec : specs) {
        if (spec.kind == opt::OptionKind::flag) {
            group.add_options()(spec.name.c_str(), spec.help.c_str());
            continue;
        }
        if (spec.repeatable) {
            group.add_options()(spec.name.c_str(), po::value<std::vector<std::string>>()->composing(),
                                spec.help.c_str());
            continue;
        }
        auto* value = po::value<std::string>();
        if (spec.has_default)
            value->default_value(spec.default_value);
        group.add_options()(spec.name.c_str(), value, spec.help.c_str());
    }
    return group;
}

OptionValues values_of(const po::variables_map& values, const std::vector<opt::OptionSpec>& specs)
{
    OptionValues result;
    for (const opt::OptionSpec& spec : specs) {
        std::string name = spec.name.substr(0, spec.name.find(','));
        if (!values.count(name))
            continue;
        if (spec.kind == opt::OptionKind::flag)
            result.emplace_back(name, "1");
        else if (spec.repeatable)
            for (const std::string& value : values[name].as<std::vector<std::string>>())
                result.emplace_back(name, value);
        else
            result.emplace_back(name, values[name].as<std::string>());
    }
    return result;
}

Result<OptionValues> parse_arguments(const std::vector<std::string>& arguments,
                                     const std::vector<opt::OptionSpec>& specs, const std::string& positional)
{
    po::options_description options = option_group("", specs);
    po::positional_options_description bare;
    for (const opt::OptionSpec& spec : specs)
        if (!positional.empty() && spec.name == positional)
            bare.add(positional.c_str(), spec.repeatable ? -1 : 1);
    po::variables_map values;
    try {
        po::store(po::command_line_parser(arguments).options(options).positional(bare).run(), values);
        po::notify(values);
    } catch (const po::too_many_positional_options_error&) {
        return Status::usage("one " + (positional.empty() ? std::string("argument") : positional) +
                             " at most; options start with -");
    } catch (const po::unknown_option& error) {
        const std::string& option = error.get_option_name();
        const size_t start = option.find_first_not_of('-'); // npos: dashes only
        return Status::usage(error.what() +
                             closest_option_hint(start == std::string::npos ? "" : option.substr(start), options));
    } catch (const po::error& error) {
        return Status::usage(error.what());
    }
    return values_of(values, specs);
}

Result<OptionValues> parse_arguments(const std::vector<std::string>& arguments, const opt::Table& table,
                                     const std::string& positional)
{
    return parse_arguments(arguments, table.specs(), positional);
}

std::string options_help(const std::string& usage, const std::vector<opt::OptionSpec>& specs)
{
    std::ostringstream text;
    text << usage << "\n" << option_group("Options", specs);
    return text.str();
}

std::string options_help(const std::string& usage, const opt::Table& table)
{
    return options_help(usage, table.specs());
}

opt::Table output_options()
{
    return opt::Table("output", {output_option::file, output_option::format, output_option::percentiles});
}

std::vector<opt::OptionSpec> output_option_specs()
{
    return output_options().specs();
}

Status read_output_choice(const OptionValues& values, OutputChoice& choice)
{
    opt::Reader read(output_options(), values);
    std::optional<std::string> format = read.optional(output_option::format);
    std::optional<std::string> list = read.optional(output_option::percentiles);
    std::vector<std::string> paths = read.all(output_option::file);
    if (!read.ok())
        return Status::usage(read.error());
    std::optional<OutputFormat> forced = format ? format_from_name(*format) : std::nullopt;
    if (list)
        for (const std::string& item : opt::split_list(*list)) {
            opt::Parsed<double> rank = opt::number("percentiles", item, 0, 100);
            if (!rank)
                return Status::usage(rank.error);
            choice.percentiles.push_back(*rank);
        }
    bool any_file = false;
    for (const std::string& path : paths) {
        any_file = true;
        if (path.empty())
            return Status::usage("-o/--output: empty file name");
        std::optional<OutputFormat> format = format_from_path(path); // --format is for the other files
        if (!format)
            format = forced;
        if (!format)
            return Status::usage("-o " + path + ": unknown file type; use .json, .csv or .txt, or --format");
        choice.files.push_back({path, *format});
    }
    if (!any_file)
        choice.stdout_format = forced == OutputFormat::table ? std::nullopt : forced;
    return Status::ok();
}

std::vector<std::unique_ptr<Reporter>> output_reporters(const OutputChoice& choice, std::ostream& out, bool keep_raw)
{
    std::vector<std::unique_ptr<Reporter>> reporters;
    if (!choice.stdout_format)
        reporters.push_back(std::make_unique<TableReporter>(out));
    for (const OutputSpec& file : choice.files)
        reporters.push_back(make_file_reporter(file.path, file.format, keep_raw));
    return reporters;
}

Status replay(const Document& document, std::vector<std::unique_ptr<Reporter>>& reporters)
{
    for (const RunRecord& run : document.runs) {
        RunRecord growing = run;
        growing.sizes.clear();
        for (auto& reporter : reporters)
            reporter->run_started(growing);
        for (const SizeRecord& size : run.sizes) {
            growing.sizes.push_back(size);
            for (auto& reporter : reporters)
                reporter->size_done(growing, growing.sizes.back());
        }
        for (auto& reporter : reporters)
            reporter->run_finished(run);
    }
    Status first_failure;
    for (auto& reporter : reporters)
        if (Status written = reporter->close(document); !written && first_failure)
            first_failure = written;
    return first_failure;
}

} // namespace ngx
