// Predictions from a saved nodecomm model (see nodecomm_predict.hpp).
#include "nodecomm_predict.hpp"

#include "nodecomm_model.hpp"

#include <ngx/command_line.hpp>
#include <ngx/json_input.hpp>
#include <ngx/sizes.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>

namespace ngx::patterns {
namespace {

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double us_per_s = 1e6;

// The error of `ngx COMMAND` (fit or predict) and its exit code.
int fail(const char* command, const Status& status)
{
    std::cerr << "ngx " << command << ": " << status.message() << "\n";
    return exit_code(status);
}

std::vector<opt::OptionSpec> predict_specs()
{
    return {opt::optional_value("params", "a saved nodecomm run (-x nodecomm -o FILE.json)"),
            {"op", "nodecomm", "nodecomm: T(k, n) per model; best-k: the pairs that move -s bytes fastest"},
            opt::optional_value("pairs,k", "pairs k (nodecomm), or the largest k to consider (best-k)"),
            opt::optional_value("size,s", "message size (nodecomm) or total volume (best-k), e.g. 64Ki"),
            opt::flag("help,h", "this text")};
}

// The largest k predicted (-k, or a saved run's pair counts for best-k).
constexpr uint64_t max_predicted_pairs = 4096;

Result<Json> read_document(const std::string& path)
{
    Result<Json> document = read_json_input(path); // a regular file, a known schema_version
    if (!document)
        return document.status();
    if (!document->is_object())
        return Status::usage(path + ": not a JSON object");
    return document;
}

// Every range's from_bytes and to_bytes (when a number) a whole byte count.
Status check_ranges(const Json& model, const std::string& where)
{
    if (!model.contains("ranges") || !model["ranges"].is_array())
        return Status::ok();
    for (size_t i = 0; i < model["ranges"].size(); ++i) {
        const Json& range = model["ranges"][i];
        std::string at = where + ": ranges[" + std::to_string(i) + "]";
        if (!range.is_object())
            return Status::usage(at + ": not an object");
        if (range.contains("from_bytes"))
            NGX_TRY(byte_field(range, "from_bytes", at).status());
        if (range.contains("to_bytes") && !range["to_bytes"].is_null())
            NGX_TRY(byte_field(range, "to_bytes", at).status());
    }
    return Status::ok();
}

// The nodecomm model inside a model file, a single run or a document of runs.
Json* nodecomm_model_in(Json& document)
{
    if (document.value("kind", "") == "nodecomm")
        return &document;
    if (document.contains("model") && document["model"].is_object() &&
        document["model"].value("kind", "") == "nodecomm")
        return &document["model"];
    if (document.contains("runs") && document["runs"].is_array())
        for (Json& run : document["runs"])
            if (run.is_object() && run.contains("model") && run["model"].is_object() &&
                run["model"].value("kind", "") == "nodecomm")
                return &run["model"];
    return nullptr;
}

Result<Json> saved_model(const std::string& path)
{
    Result<Json> document = read_document(path);
    if (!document)
        return document.status().with_context("--params");
    if (Json* model = nodecomm_model_in(*document)) {
        NGX_TRY(check_ranges(*model, "--params " + path));
        return *model;
    }
    return Status::usage("--params " + path + ": holds no nodecomm model (run ngx -x nodecomm -o FILE.json)");
}

int predict_point(const Json& model, uint64_t k, uint64_t n)
{
    const Json* regime = regime_of(model, n);
    if (regime == nullptr)
        return fail("predict", Status::usage("-s " + format_bytes(n) + ": no fitted regime holds this size"));
    std::cout << "# T(k=" << k << ", n=" << format_bytes(n) << ") in us per model (regime from "
              << format_bytes(regime->value("from_bytes", uint64_t(0))) << ")\n";
    const Json models = regime->value("models", Json::object());
    for (const auto& [name, fitted] : models.items()) {
        double t = !fitted.is_object() || fitted.contains("error") ? std::nan("")
                                                                   : predicted_us(name, fitted, double(k), double(n));
        std::cout << "  " << std::left << std::setw(14) << name << std::right << std::setw(14)
                  << (std::isfinite(t) ? std::to_string(t) : std::string("not fitted")) << "\n";
    }
    return 0;
}

int predict_best_k(const Json& model, uint64_t k_max, uint64_t volume)
{
    std::cout << "# moving " << format_bytes(volume) << " with k pairs of "
              << "volume/k bytes each (maxrate3)\n"
              << std::setw(6) << "k" << std::setw(12) << "n" << std::setw(14) << "T_us" << std::setw(14) << "MB/s\n";
    uint64_t best = 0;
    double best_t = inf;
    for (uint64_t k = 1; k <= k_max; ++k) {
        double n = double(volume) / double(k); // each pair's share
        const Json* regime = regime_of(model, uint64_t(std::ceil(n)));
        double t =
            regime == nullptr
                ? std::nan("")
                : predicted_us("maxrate3", regime->value("models", Json::object()).value("maxrate3", Json::object()),
                               double(k), n);
        std::cout << std::setw(6) << k << std::setw(12) << uint64_t(std::ceil(n)) << std::setw(14) << t << std::setw(13)
                  << double(volume) / t << "\n";
        if (std::isfinite(t) && t < best_t * (1 - 1e-6)) { // a tie keeps the fewer pairs
            best = k;
            best_t = t;
        }
    }
    if (best == 0)
        return fail("predict", Status::usage("no regime of the model covers " + format_bytes(volume) + " / k"));
    std::cout << "best k = " << best << ": " << best_t << " us\n";
    return 0;
}

} // namespace

int fit_nodecomm(const CommandArguments& arguments)
{
    std::vector<opt::OptionSpec> specs = {
        opt::optional_value("file", "a saved nodecomm run (-x nodecomm -o FILE.json)"),
        opt::optional_value("nodecomm-regimes", "regimes FROM-TO,...,FROM- (default: the k = 1 curve's ranges)"),
        {"output,o", "", "write the document with the new models to this JSON file", opt::OptionKind::output_file,
         false},
        opt::flag("help,h", "this text")};
    Result<OptionValues> values = parse_arguments(arguments, specs, "file");
    if (!values)
        return fail("fit", values.status());
    opt::OptionReader read(*values);
    if (read.given("help")) {
        std::cout << options_help("Usage: ngx fit nc.json [--nodecomm-regimes LIST] [-o refit.json]", specs);
        return 0;
    }
    if (!read.given("file"))
        return fail("fit", Status::usage("no file given (ngx fit nc.json)"));
    Result<Json> document = read_document(read.text("file"));
    if (!document)
        return fail("fit", document.status());
    Json* model = nodecomm_model_in(*document);
    if (model == nullptr || !model->contains("nodecomm"))
        return fail("fit",
                    Status::usage(read.text("file") + ": holds no nodecomm table (run ngx -x nodecomm -o FILE.json)"));
    Result<NodeCommData> data = data_from_json((*model)["nodecomm"]);
    if (!data)
        return fail("fit", data.status());
    std::vector<Regime> regimes = detect_regimes(*data);
    if (read.given("nodecomm-regimes")) {
        Result<std::vector<Regime>> given = parse_regimes(read.text("nodecomm-regimes"));
        if (!given)
            return fail("fit", given.status());
        regimes = std::move(*given);
    }
    *model = nodecomm_model(*data, regimes);
    std::cout << nodecomm_tables(*data) << model_text(*model);
    if (read.given("output"))
        if (Status written = write_atomically(read.text("output"), document->dump(2) + "\n"); !written)
            return fail("fit", written);
    return 0;
}

int predict_nodecomm(const CommandArguments& arguments)
{
    std::vector<opt::OptionSpec> specs = predict_specs();
    Result<OptionValues> values = parse_arguments(arguments, specs, "");
    if (!values)
        return fail("predict", values.status());
    opt::OptionReader read(*values);
    if (read.given("help")) {
        std::cout << options_help("Usage: ngx predict --params nc.json --op nodecomm|best-k [-k K] -s SIZE", specs);
        return 0;
    }
    if (!read.given("params") || !read.given("size"))
        return fail("predict", Status::usage("--params FILE.json and -s SIZE are required"));
    std::string op = read.choice("op", {"nodecomm", "best-k"});
    uint64_t n = read.byte_count("size", 0, max_message_bytes * 1024);
    uint64_t k = read.given("pairs") ? read.whole_number("pairs", 1, max_predicted_pairs) : 0;
    if (!read.ok())
        return fail("predict", Status::usage(read.error()));
    Result<Json> model = saved_model(read.text("params"));
    if (!model)
        return fail("predict", model.status());
    if (op == "nodecomm")
        return predict_point(*model, k == 0 ? 1 : k, n);
    uint64_t measured = 1;
    const Json pair_counts = model->value("nodecomm", Json::object()).value("pairs", Json::array());
    for (const Json& pairs : pair_counts) {
        if (!pairs.is_number_unsigned())
            continue;
        if (pairs.get<uint64_t>() > max_predicted_pairs) // best-k tries every k up to it
            return fail("predict",
                        Status::usage("--params " + read.text("params") + ": \"nodecomm.pairs\" holds " + pairs.dump() +
                                      ", more than " + std::to_string(max_predicted_pairs) + " pairs"));
        measured = std::max(measured, pairs.get<uint64_t>());
    }
    return predict_best_k(*model, k == 0 ? measured : k, n);
}

} // namespace ngx::patterns
