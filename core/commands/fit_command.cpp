// `ngx fit` and `ngx predict` (see fit_command.hpp): generic dispatch. The
// file named on the command line says which pattern made it (a JSON run's
// "pattern", or a raw file a pattern claims by its first line). `ngx fit`
// parses the options that pattern declares with its own (the files, -o,
// --format, --help), calls its hook and prints and writes what it returns
// (FitOutput: a re-fitted run, reported as a live run, or a document; the
// fit's tables as text or, with --format csv, as CSV (table_report.hpp);
// warnings; an export); `ngx predict` finds
// the model kind it holds among the kinds the patterns bring (the registry,
// ngx/model_kind.hpp), reads the options every kind shares, checks --op and
// the options that op reads, loads the model with the kind's load, calls
// its predict and prints what it returns with the reporter of --format
// (prediction_report.hpp).
#include "fit_command.hpp"
#include "prediction_report.hpp"
#include "table_report.hpp"

#include <ngx/command_line.hpp>
#include <ngx/json_input.hpp>
#include <ngx/model_kind.hpp>
#include <ngx/output_file.hpp>

#include <algorithm>

#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace ngx {
namespace {

int fail(const std::string& command, const Status& status)
{
    std::cerr << "ngx " << command << ": " << status.message() << "\n";
    return exit_code(status);
}

bool is_help(const std::string& argument)
{
    return argument == "--help" || argument == "-h";
}

// The first bare argument. Every option of fit and predict takes a value
// except --help, so "-o out.json" consumes "out.json"; "--opt=value" does not
// consume the next argument.
std::string bare_argument(const std::vector<std::string>& arguments)
{
    for (size_t i = 0; i < arguments.size(); ++i) {
        const std::string& argument = arguments[i];
        if (argument.empty() || argument.front() != '-')
            return argument;
        if (!is_help(argument) && argument.find('=') == std::string::npos)
            ++i;
    }
    return "";
}

// The value of --NAME (as "--NAME VALUE" or "--NAME=VALUE"), "" when absent.
std::string option_value(const std::vector<std::string>& arguments, const std::string& name)
{
    for (size_t i = 0; i < arguments.size(); ++i) {
        if (arguments[i] == "--" + name && i + 1 < arguments.size())
            return arguments[i + 1];
        if (arguments[i].starts_with("--" + name + "="))
            return arguments[i].substr(name.size() + 3);
    }
    return "";
}

// The pattern a JSON document was made by: its "pattern", its first run's,
// or its model's "kind" (a model file written by hand); "" when it names none.
std::string pattern_of_json(const Json& document)
{
    if (document.contains("pattern") && document["pattern"].is_string())
        return document["pattern"].get<std::string>();
    if (document.contains("runs") && document["runs"].is_array())
        for (const Json& run : document["runs"])
            if (run.is_object() && run.contains("pattern") && run["pattern"].is_string())
                return run["pattern"].get<std::string>();
    if (document.contains("model") && document["model"].is_object() && document["model"].contains("kind") &&
        document["model"]["kind"].is_string())
        return document["model"]["kind"].get<std::string>();
    return "";
}

// The pattern that brings the model kind `name` (a model file naming its
// kind and no pattern: {"model": {"kind": "log3p", ...}}); nullptr if none.
const PatternInfo* pattern_of_kind(const PatternCatalog& patterns, const std::string& name)
{
    for (const PatternInfo* pattern : patterns.patterns())
        for (const ModelKind& kind : pattern->models)
            if (kind.name == name || kind.saved_kind == name)
                return pattern;
    return nullptr;
}

bool has_hook(const PatternInfo& pattern, bool for_fit)
{
    return for_fit ? bool(pattern.fit) : !pattern.models.empty();
}

std::string patterns_with(const PatternCatalog& patterns, bool for_fit)
{
    std::string names;
    for (const PatternInfo* pattern : patterns.patterns())
        if (has_hook(*pattern, for_fit))
            names += (names.empty() ? "" : ", ") + pattern->name;
    return names.empty() ? "none" : names;
}

// The pattern named in a JSON file or claiming a raw file: nullptr when the
// file names none (a JSON object without "pattern", or a raw file no
// pattern claims); a usage error for what is not a readable result at all.
Result<const PatternInfo*> named_pattern(const std::string& path, const PatternCatalog& patterns, bool for_fit)
{
    NGX_ASSIGN_OR_RETURN(const std::string text, read_regular_file(path)); // a FIFO would block: refused
    std::istringstream in(text);
    in >> std::ws;
    if (in.peek() == '{' || in.peek() == '[') {
        Json document = Json::parse(in, nullptr, false);
        if (document.is_discarded())
            return Status::usage(path + ": starts like JSON but is not valid JSON");
        if (!document.is_object())
            return Status::usage(path + ": not an ngx result (expected a JSON object)");
        NGX_TRY(check_json_document(document, path));
        std::string name = pattern_of_json(document);
        const PatternInfo* pattern = name.empty() ? nullptr : patterns.find(name);
        if (pattern == nullptr && !for_fit && !name.empty())
            pattern = pattern_of_kind(patterns, name);
        if (!name.empty() && pattern == nullptr)
            return Status::usage(path + ": made by pattern '" + name + "', which this ngx does not have");
        if (pattern != nullptr && !has_hook(*pattern, for_fit))
            return Status::usage(path + ": has no fitted model (pattern '" + name + "' " +
                                 (for_fit ? "fits none offline" : "makes no predictions") + ")");
        if (pattern == nullptr)
            return Status::usage(path + ": not a saved run: it names no pattern (\"pattern\", or a model's \"kind\")");
        return pattern;
    }
    if (!for_fit)
        return Status::usage(path + ": not a JSON document (ngx predict reads a saved run or model)");
    std::string line;
    std::getline(in, line);
    for (const PatternInfo* pattern : patterns.patterns())
        if (pattern->fit && pattern->fit_reads && pattern->fit_reads(line))
            return pattern;
    return nullptr;
}

// The pattern whose hook handles `path`. A file that names no pattern goes
// to the one pattern with such a hook, whose reader says best what is wrong
// with it; with several, the file must name its pattern.
Result<const PatternInfo*> pattern_for_file(const std::string& path, const PatternCatalog& patterns, bool for_fit)
{
    Result<const PatternInfo*> named = named_pattern(path, patterns, for_fit);
    if (!named || *named != nullptr)
        return named;
    std::vector<const PatternInfo*> candidates;
    for (const PatternInfo* pattern : patterns.patterns())
        if (has_hook(*pattern, for_fit))
            candidates.push_back(pattern);
    if (candidates.size() == 1)
        return candidates.front();
    return Status::usage(path +
                         ": names no pattern that can read it; expected a saved JSON run (with \"pattern\") "
                         "or a raw file of one of: " +
                         patterns_with(patterns, for_fit));
}

constexpr auto fit_file_row = opt::row::repeatable(
    opt::row::text("file", opt::no_default, "the saved measurements: a saved run (JSON) or a raw file it reads"));
constexpr auto fit_help_row = opt::row::flag("help,h", "show this help");

// What `ngx fit` parses for a pattern: the files, the pattern's options, the output options and --help.
std::vector<opt::OptionSpec> fit_specs(const PatternInfo& pattern)
{
    std::vector<opt::OptionSpec> specs = {opt::spec_of(fit_file_row)};
    specs.insert(specs.end(), pattern.fit_options.begin(), pattern.fit_options.end());
    std::vector<opt::OptionSpec> outputs = output_option_specs();
    specs.insert(specs.end(), outputs.begin(), outputs.end());
    specs.push_back(opt::spec_of(fit_help_row));
    return specs;
}

// The output choice of the command line, every -o checked writable before anything is fitted.
Result<OutputChoice> fit_outputs(const OptionValues& values)
{
    OutputChoice outputs;
    NGX_TRY(read_output_choice(values, outputs));
    for (const OutputSpec& file : outputs.files)
        NGX_TRY(check_writable(file.path));
    return outputs;
}

// A re-fitted run as a live run reports: the table (or --format) on stdout, every -o file.
Status report_run(const Document& document, const OutputChoice& outputs)
{
    std::vector<std::unique_ptr<Reporter>> reporters = output_reporters(outputs, std::cout, false);
    NGX_TRY(replay(document, reporters));
    if (outputs.stdout_format == OutputFormat::json)
        std::cout << to_json(document, false).dump(2) << "\n";
    else if (outputs.stdout_format == OutputFormat::csv)
        std::cout << to_csv(document);
    return Status::ok();
}

// A fit's own document: --format json prints it, every -o file holds it as JSON.
Status report_document(const Json& document, const OutputChoice& outputs)
{
    if (outputs.stdout_format == OutputFormat::json)
        std::cout << document.dump(2) << "\n";
    for (const OutputSpec& file : outputs.files)
        NGX_TRY(write_atomically(file.path, document.dump(2) + "\n"));
    return Status::ok();
}

Status report_fit(const FitOutput& output, const OutputChoice& outputs)
{
    for (const std::string& warning : output.warnings)
        std::cerr << "ngx fit: warning: " << warning << "\n";
    if (output.exported) {
        std::cout << *output.exported;
        return Status::ok();
    }
    // the fit's tables in the format asked for (--format json: the document alone), a blank line before a run's
    const std::string tables = !outputs.stdout_format                       ? tables_text(output.tables)
                               : outputs.stdout_format == OutputFormat::csv ? tables_csv(output.tables)
                                                                            : "";
    std::cout << tables << (output.run && !tables.empty() ? "\n" : "");
    return output.run ? report_run(*output.run, outputs) : report_document(output.document, outputs);
}

int fit_help(const PatternCatalog& patterns)
{
    std::cout << "Usage: ngx fit FILE [options]\nRe-fits saved measurements offline with the model of the "
                 "pattern that made them (patterns with a fit: "
              << patterns_with(patterns, true) << ").\n`ngx fit FILE --help` lists that pattern's options.\n";
    return 0;
}

int run_fit(const std::vector<std::string>& arguments, const PatternCatalog& patterns)
{
    std::string file = bare_argument(arguments);
    if (file.empty()) {
        if (!arguments.empty() && is_help(arguments.front()))
            return fit_help(patterns);
        return fail("fit", Status::usage("no file given (ngx fit FILE.csv|FILE.json)"));
    }
    Result<const PatternInfo*> pattern = pattern_for_file(file, patterns, true);
    if (!pattern)
        return fail("fit", pattern.status());
    const std::vector<opt::OptionSpec> specs = fit_specs(**pattern);
    Result<OptionValues> values = parse_arguments(arguments, specs, std::string(fit_file_row.long_name()));
    if (!values)
        return fail("fit", values.status());
    if (opt::find(*values, fit_help_row.long_name()) != nullptr) {
        const std::string& usage = (*pattern)->fit_usage;
        std::cout << options_help(usage.empty() ? "Usage: ngx fit FILE [options]   (" + (*pattern)->name + ")" : usage,
                                  specs);
        return 0;
    }
    Result<OutputChoice> outputs = fit_outputs(*values);
    if (!outputs)
        return fail("fit", outputs.status());
    FitRequest request{.files = {}, .values = *values};
    for (const auto& [name, value] : *values)
        if (name == fit_file_row.long_name())
            request.files.push_back(value);
    Result<FitOutput> output = (*pattern)->fit(request);
    if (!output)
        return fail("fit", output.status());
    if (Status reported = report_fit(*output, *outputs); !reported)
        return fail("fit", reported);
    return 0;
}

// The "kind" of the model in a saved file: the document's own, its model's
// or its first run's model's; "" when it names none.
std::string saved_kind(const std::string& path)
{
    Result<std::string> text = read_regular_file(path);
    Json document = text ? Json::parse(*text, nullptr, false) : Json();
    auto kind_of = [](const Json& object) {
        return object.is_object() && object.contains("kind") && object["kind"].is_string()
                   ? object["kind"].get<std::string>()
                   : std::string();
    };
    if (!document.is_object())
        return "";
    if (std::string kind = kind_of(document); !kind.empty())
        return kind;
    if (document.contains("model"))
        return kind_of(document["model"]);
    if (document.contains("runs") && document["runs"].is_array())
        for (const Json& run : document["runs"])
            if (run.is_object() && run.contains("model"))
                return kind_of(run["model"]);
    return "";
}

// The kind of the pattern that made `path` for its model: the pattern's only
// kind, or the one whose name (or saved kind) the model carries.
Result<const ModelKind*> kind_for_file(const std::string& path, const PatternCatalog& patterns)
{
    Result<const PatternInfo*> pattern = pattern_for_file(path, patterns, false);
    if (!pattern)
        return pattern.status();
    const std::vector<ModelKind>& kinds = (*pattern)->models;
    if (kinds.size() == 1)
        return &kinds.front(); // its reader says best what is wrong with another kind's model
    const std::string saved = saved_kind(path);
    for (const ModelKind& kind : kinds)
        if (kind.name == saved || (!kind.saved_kind.empty() && kind.saved_kind == saved))
            return &kind;
    std::string names;
    for (const ModelKind& kind : kinds)
        names += (names.empty() ? "" : ", ") + kind.name;
    return Status::usage(path + ": its model " + (saved.empty() ? "names no kind" : "is of kind '" + saved + "'") +
                         "; pattern '" + (*pattern)->name + "' feeds " + names);
}

std::string op_names(const ModelKind& kind)
{
    std::string names;
    for (const ModelOp& op : kind.ops)
        names += (names.empty() ? "" : ", ") + op.name;
    return names;
}

std::string kind_help(const ModelKind& kind, const std::vector<opt::OptionSpec>& specs)
{
    std::ostringstream out;
    out << "Model " << kind.name << ": " << kind.description << "\nParameters:\n";
    for (const ModelParameter& p : kind.parameters)
        out << "  " << std::left << std::setw(22) << p.name << " " << std::setw(6) << p.unit << " " << p.meaning
            << "\n";
    out << "Operations (--op) and the options each reads:\n";
    for (const ModelOp& op : kind.ops) {
        std::string reads;
        for (const std::string& option : op.options)
            reads += (reads.empty() ? "" : ", ") + ("--" + option);
        out << "  " << std::left << std::setw(14) << op.name << op.meaning << (reads.empty() ? "" : " [" + reads + "]")
            << "\n";
    }
    out << options_help("Usage: ngx predict --params FILE --op OP [options]   (" + kind.name + ")", specs);
    return out.str();
}

// The options every operation takes, whatever it predicts.
bool always_read(const std::string& option)
{
    using namespace predict_option;
    for (const opt::Row* row :
         std::initializer_list<const opt::Row*>{&params, &module, &op, &format, &help, &save_model})
        if (option == row->long_name())
            return true;
    return false;
}

// --save-model FILE: the model `load` read, alone in a file that `ngx
// predict --params` (and every pattern's reader of saved runs) takes back:
// {"pattern": P, "model": the kind's save() of it, "saved_from": the source}.
Status save_model(const std::string& out, const std::string& pattern, const ModelKind& kind, const Json& model,
                  const std::string& source)
{
    if (Status writable = check_writable(out); !writable) { // its message names -o, the usual option
        const std::string& why = writable.message();
        return Status::usage("--save-model" + (why.rfind("-o ", 0) == 0 ? why.substr(2) : ": " + why));
    }
    Json document{{"pattern", pattern}, {"model", kind.save ? kind.save(model) : model}, {"saved_from", source}};
    return write_atomically(out, document.dump(2) + "\n");
}

// --op as given or implied, one the kind predicts, and no option given that it does not read.
Result<const ModelOp*> checked_op(const ModelKind& kind, const OptionValues& values)
{
    const std::string* given = opt::find(values, predict_option::op.long_name());
    std::string name = given != nullptr ? *given : kind.implied_op ? kind.implied_op(values) : "";
    if (name.empty())
        return Status::usage("--op is required: " + op_names(kind));
    auto op = std::find_if(kind.ops.begin(), kind.ops.end(), [&](const ModelOp& o) { return o.name == name; });
    if (op == kind.ops.end())
        return Status::usage(opt::bad_value(predict_option::op.long_name(), name,
                                            "expected " + op_names(kind) + " (model " + kind.name + ")"));
    std::string reads;
    for (const std::string& option : op->options)
        reads += (reads.empty() ? "" : ", ") + ("--" + option);
    for (const auto& [option, value] : values)
        if (!always_read(option) && std::find(op->options.begin(), op->options.end(), option) == op->options.end())
            return Status::usage("--" + option + ": not used by --op " + name + " of model " + kind.name +
                                 " (it reads " + (reads.empty() ? "none" : reads) + ")");
    return &*op;
}

int run_predict(const std::vector<std::string>& arguments, const PatternCatalog& patterns)
{
    std::string file = option_value(arguments, std::string(predict_option::params.long_name()));
    if (file.empty()) {
        if (!arguments.empty() && is_help(arguments.front())) {
            std::cout << "Predicts costs from a saved model with its kind's equations (patterns with models: "
                      << patterns_with(patterns, false)
                      << ").\n`ngx predict --params FILE.json --help` lists that model's parameters and operations.\n"
                      << options_help("Usage: ngx predict --params FILE.json --op OP [options]", predict_table());
            return 0;
        }
        return fail("predict", Status::usage("--params FILE.json is required"));
    }
    Result<const ModelKind*> kind = kind_for_file(file, patterns);
    if (!kind)
        return fail("predict", kind.status());
    const opt::Table table = predict_table();
    std::vector<opt::OptionSpec> specs = table.specs();
    specs.insert(specs.end(), (*kind)->options.begin(), (*kind)->options.end());
    Result<OptionValues> values = parse_arguments(arguments, specs, "");
    if (!values)
        return fail("predict", values.status());
    opt::Reader read(table, *values);
    if (read(predict_option::help)) {
        std::cout << kind_help(**kind, specs);
        return 0;
    }
    const PredictionFormat format = prediction_format(read.optional(predict_option::format).value_or("table"));
    const std::string module = read.optional(predict_option::module).value_or("");
    const std::optional<std::string> save_to = read.optional(predict_option::save_model);
    if (!read.ok())
        return fail("predict", Status::usage(read.error()));
    if (save_to) {
        Result<Json> model = (*kind)->load(file, module);
        Result<const PatternInfo*> pattern = pattern_for_file(file, patterns, false);
        if (!model || !pattern)
            return fail("predict", !model ? model.status() : pattern.status());
        if (Status saved = save_model(*save_to, (*pattern)->name, **kind, *model, file); !saved)
            return fail("predict", saved);
        if (!read.given(predict_option::op))
            return 0; // saving was all that was asked
    }
    Result<const ModelOp*> op = checked_op(**kind, *values);
    if (!op)
        return fail("predict", op.status());
    PredictRequest request{file, module, (*op)->name, *values};
    Result<Json> model = (*kind)->load(file, request.module);
    if (!model)
        return fail("predict", model.status());
    Result<Predictions> predictions = (*kind)->predict(*model, request);
    if (!predictions)
        return fail("predict", predictions.status());
    for (const std::string& warning : predictions->warnings)
        std::cerr << "ngx predict: warning: " << warning << "\n";
    std::cout << prediction_report(format, (*kind)->name, request.op, *predictions);
    return 0;
}

} // namespace

CommandInfo fit_command()
{
    return {"fit", "re-fit saved measurements offline with their pattern's model", run_fit};
}

CommandInfo predict_command()
{
    return {"predict", "predict costs from a saved model", run_predict};
}

} // namespace ngx
