// Predictions from a saved nodecomm model (see models/maxrate/maxrate_offline.hpp).
#include <models/maxrate/maxrate_offline.hpp>

#include <models/maxrate/maxrate_model.hpp>

#include <ngx/command_line.hpp>
#include <ngx/json_input.hpp>
#include <ngx/sizes.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <sstream>

namespace ngx::patterns {
namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

// The largest k predicted (-k, or a saved run's pair counts for best-k).
constexpr uint64_t max_predicted_pairs = 4096;

constexpr auto regimes_row = opt::row::text("nodecomm-regimes", opt::no_default,
                                            "regimes FROM-TO,...,FROM- (default: the k = 1 curve's ranges)");

opt::Table fit_table()
{
    return {"ngx fit (nodecomm)", {regimes_row}};
}

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

// The congestion model of a single run or the first of a document's runs.
const Json* congestion_model_in(const Json& document)
{
    auto congestion = [](const Json& model) { return model.is_object() && model.value("kind", "") == "congestion"; };
    if (congestion(document))
        return &document;
    if (document.contains("model") && congestion(document["model"]))
        return &document["model"];
    if (document.contains("runs") && document["runs"].is_array())
        for (const Json& run : document["runs"])
            if (run.is_object() && run.contains("model") && congestion(run["model"]))
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
    if (const Json* model = congestion_model_in(*document)) {
        Result<Json> maxrate = maxrate_of_congestion(*model);
        if (!maxrate)
            return maxrate.status().with_context("--params " + path);
        return maxrate;
    }
    return Status::usage("--params " + path +
                         ": holds no nodecomm or congestion model (run ngx -x nodecomm -o FILE.json)");
}

// T(k, n) under every model of n's regime.
Result<std::vector<Prediction>> point_predictions(const Json& model, uint64_t k, uint64_t n)
{
    const Json* regime = regime_of(model, n);
    if (regime == nullptr)
        return Status::usage("-s " + format_bytes(n) + ": no fitted regime holds this size");
    std::vector<Prediction> rows;
    const Json models = regime->value("models", Json::object());
    for (const auto& [name, fitted] : models.items())
        rows.push_back({.model = "maxrate",
                        .variant = name,
                        .op = "nodecomm",
                        .bytes = double(n),
                        .pairs = double(k),
                        .time_us = !fitted.is_object() || fitted.contains("error")
                                       ? std::nan("")
                                       : predicted_us(name, fitted, double(k), double(n))});
    return rows;
}

Result<Predictions> predict_point(const Json& model, uint64_t k, uint64_t n)
{
    NGX_ASSIGN_OR_RETURN(std::vector<Prediction> rows, point_predictions(model, k, n));
    const Json* regime = regime_of(model, n);
    std::ostringstream note;
    note << "T(k=" << k << ", n=" << format_bytes(n) << ") in us per model (regime from "
         << format_bytes(regime->value("from_bytes", uint64_t(0))) << "; - : not fitted)";
    return Predictions{.rows = std::move(rows), .notes = {note.str()}};
}

Result<Predictions> predict_best_k(const Json& model, uint64_t k_max, uint64_t volume)
{
    std::vector<Prediction> rows;
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
        rows.push_back(
            {.model = "maxrate", .variant = "maxrate3", .op = "best-k", .bytes = n, .pairs = double(k), .time_us = t});
        if (std::isfinite(t) && t < best_t * (1 - 1e-6)) { // a tie keeps the fewer pairs
            best = k;
            best_t = t;
        }
    }
    if (best == 0)
        return Status::usage("no regime of the model covers " + format_bytes(volume) + " / k");
    std::ostringstream moving, found;
    moving << "moving " << format_bytes(volume) << " with k pairs of volume/k bytes each (maxrate3)";
    found << "best k = " << best << ": " << best_t << " us (" << double(volume) / best_t << " MB/s)";
    return Predictions{.rows = std::move(rows),
                       .notes = {moving.str(), found.str()},
                       .summary = {{"best_k", best}, {"best_time_us", best_t}}};
}

} // namespace

namespace {

// The regimes of --nodecomm-regimes, else those of the k = 1 curve.
Result<std::vector<Regime>> chosen_regimes(const FitRequest& request, const NodeCommData& data)
{
    opt::Reader read(fit_table(), request.values);
    std::optional<std::string> text = read.optional(regimes_row);
    if (!read.ok())
        return Status::usage(read.error());
    if (text)
        return parse_regimes(*text);
    return detect_regimes(data);
}

} // namespace

Result<FitOutput> fit_nodecomm(const FitRequest& request)
{
    NGX_ASSIGN_OR_RETURN(const std::string path, request.one_file());
    NGX_ASSIGN_OR_RETURN(Json document, read_document(path));
    Json* model = nodecomm_model_in(document);
    if (model == nullptr || !model->contains("nodecomm"))
        return Status::usage(path + ": holds no nodecomm table (run ngx -x nodecomm -o FILE.json)");
    NGX_ASSIGN_OR_RETURN(const NodeCommData data, data_from_json((*model)["nodecomm"]));
    NGX_ASSIGN_OR_RETURN(const std::vector<Regime> regimes, chosen_regimes(request, data));
    *model = nodecomm_model(data, regimes);
    std::vector<Table> tables = nodecomm_tables(*model);
    return FitOutput{.document = std::move(document), .tables = std::move(tables)};
}

std::vector<opt::OptionSpec> nodecomm_fit_options()
{
    return fit_table().specs();
}

namespace {

Result<Predictions> predict_maxrate(const Json& model, const PredictRequest& request)
{
    opt::Reader read(predict_table("ngx predict (maxrate)"), request.values);
    if (!read.given(predict_option::size))
        return Status::usage("-s SIZE is required");
    uint64_t n = read_one(read, predict_option::size, request.op, 0, max_message_bytes * 1024).value_or(0);
    uint64_t k = read.optional(predict_option::pairs).value_or(0);
    if (!read.ok())
        return Status::usage(read.error());
    if (request.op == "nodecomm")
        return predict_point(model, k == 0 ? 1 : k, n);
    uint64_t measured = 1;
    const Json pair_counts = model.value("nodecomm", Json::object()).value("pairs", Json::array());
    for (const Json& pairs : pair_counts) {
        if (!pairs.is_number_unsigned())
            continue;
        if (pairs.get<uint64_t>() > max_predicted_pairs) // best-k tries every k up to it
            return Status::usage("--params " + request.params + ": \"nodecomm.pairs\" holds " + pairs.dump() +
                                 ", more than " + std::to_string(max_predicted_pairs) + " pairs");
        measured = std::max(measured, pairs.get<uint64_t>());
    }
    return predict_best_k(model, k == 0 ? measured : k, n);
}

} // namespace

ModelKind maxrate_model_kind()
{
    return {.name = "maxrate",
            .description = "the max-rate models of Gropp et al. 2016 per size regime: postal T = alpha + n/R, "
                           "maxrate3 T = alpha + k n / min(R_N, k R_C), maxrate4 and the modified max-rate model",
            .parameters = {{"from_bytes", "B", "the smallest size of a regime (model.ranges[])"},
                           {"alpha_us", "us", "start-up time of each model"},
                           {"R_Bps", "B/s", "postal: the rate of one pair"},
                           {"R_C_Bps", "B/s", "max-rate: the rate one pair (one core) can drive"},
                           {"R_N_Bps", "B/s", "max-rate: the rate of the node's network (null: unbounded)"},
                           {"R_Cb_Bps", "B/s", "maxrate4: the first pair's rate"},
                           {"R_Ci_Bps", "B/s", "maxrate4: each further pair's rate"}},
            .ops = {{"nodecomm",
                     "T(k, n) of k pairs sending -s bytes each, per model of the size's regime",
                     {"size", "pairs"}},
                    {"best-k",
                     "the number of pairs (up to -k, default the run's largest) that moves -s bytes "
                     "fastest, each sending -s/k (Gropp et al. 2016, section 5: k* = R_N / R_C)",
                     {"size", "pairs"}}},
            .load = [](const std::string& path, const std::string&) { return saved_model(path); },
            .predict = predict_maxrate,
            .saved_kind = "nodecomm",
            .implied_op = [](const OptionValues&) { return std::string("nodecomm"); }};
}

} // namespace ngx::patterns
