// What the model kinds' offline hooks share (`ngx fit FILE`, `ngx predict
// --params FILE`): reading a saved model, and ngx predict's common options
// and point-to-point requests.
#ifndef NGX_MODELS_BASE_OFFLINE_HPP
#define NGX_MODELS_BASE_OFFLINE_HPP

#include <ngx/command_line.hpp>
#include <ngx/model_kind.hpp>
#include <ngx/options.hpp>
#include <ngx/pattern.hpp>
#include <ngx/reporter.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ngx::patterns {

// A JSON object from `path`, or a usage error naming the file.
Result<Json> read_json_document(const std::string& path);
// The saved model: a document's own "model", or that of its one run with a
// model (of `module`, when the document holds several).
Result<Json> saved_model(const std::string& path, const std::string& module = "");
// The operations LogGP and LogGPS predict alike: pingpong, prtt,
// bcast-linear, bcast-tree and the collectives, with the options each reads.
std::vector<ModelOp> point_to_point_and_collective_ops();
// A kind's request with its defaults filled in (-P 2, -n 16, -d 0, the
// collectives' segment and element) and --op, for an opt::Reader of predict_options().
OptionValues predict_values(const ngx::PredictRequest& request);
struct PointRequest {
    std::string op; // pingpong, prtt, bcast-linear, bcast-tree
    double size = 1, processes = 2, messages = 16, delay_us = 0;
};
// The JSON row of one point-to-point prediction of `model`.
Prediction point_prediction(const std::string& model, const PointRequest& request, double time_us);
// ngx predict's common rows (predict_table(): --op, -s, -P, -n, -d, the
// collectives') and --module: one table for a kind's reader of ngx
// predict's options. `kind` names it in messages.
opt::Table predict_options(const std::string& kind);
Result<PointRequest> read_predict_request(opt::Reader& read); // read's table: predict_options()

} // namespace ngx::patterns

#endif
