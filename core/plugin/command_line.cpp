// Declared options on Boost.Program_options (see ngx/command_line.hpp).
#include <ngx/command_line.hpp>

#include "option_group.hpp"

#include <iostream>
#include <sstream>

namespace ngx {

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
    } catch (const po::error& error) {
        return Status::usage(error.what());
    }
    return values_of(values, specs);
}

std::string options_help(const std::string& usage, const std::vector<opt::OptionSpec>& specs)
{
    std::ostringstream text;
    text << usage << "\n" << option_group("Options", specs);
    return text.str();
}

std::vector<opt::OptionSpec> output_option_specs()
{
    opt::OptionSpec output = opt::optional_value("output,o", "write results to FILE (.json, .csv, .txt); repeatable",
                                                 opt::OptionKind::output_file);
    output.repeatable = true;
    return {output,
            opt::optional_value("format", "table, csv or json: for -o files without a known extension, or for stdout"),
            opt::optional_value("percentiles", "extra percentiles to report, e.g. 90,99.9")};
}

Status read_output_choice(const OptionValues& values, OutputChoice& choice)
{
    std::optional<OutputFormat> forced;
    if (const std::string* name = opt::find(values, "format")) {
        forced = format_from_name(*name);
        if (!forced)
            return Status::usage(opt::bad_value("format", *name, "expected table, csv or json"));
    }
    if (const std::string* list = opt::find(values, "percentiles"))
        for (const std::string& item : opt::split_list(*list)) {
            opt::Parsed<double> rank = opt::number("percentiles", item, 0, 100);
            if (!rank)
                return Status::usage(rank.error);
            choice.percentiles.push_back(*rank);
        }
    bool any_file = false;
    for (const auto& [name, path] : values) {
        if (name != "output")
            continue;
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
