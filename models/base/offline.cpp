// What every model kind's offline hooks share (see offline.hpp).
#include <models/base/offline.hpp>

#include <models/collectives/collective_predict.hpp>

#include <ngx/saved_run.hpp>

#include <ngx/command_line.hpp>
#include <ngx/json_input.hpp>
#include <ngx/reporter.hpp>

namespace ngx::patterns {

std::vector<ModelOp> point_to_point_and_collective_ops()
{
    std::vector<ModelOp> ops = {
        {"pingpong", "half round trip of one message of -s bytes", {"size"}},
        {"prtt", "PRTT(n, d, s): n messages d us apart, one reply", {"size", "messages", "delay"}},
        {"bcast-linear", "the root sends to P - 1 processes in turn", {"size", "processes"}},
        {"bcast-tree", "binomial tree broadcast to P processes", {"size", "processes"}}};
    for (const std::string& name : opt::split_list(collective_op_names()))
        ops.push_back({name.substr(name.find_first_not_of(' ')),
                       "per algorithm, the best and Open MPI 4.1's choice (-s and -P may be lists)",
                       {"size", "processes", "algorithm", "gamma", "segment", "element", "extrapolate", "contention",
                        "switches"}});
    return ops;
}

OptionValues predict_values(const ngx::PredictRequest& request)
{
    OptionValues values =
        with_defaults(request.values,
                      {{"processes", "2"}, {"messages", "16"}, {"delay", "0"}, {"segment", "64Ki"}, {"element", "8"}});
    if (opt::find(values, predict_option::op.long_name()) == nullptr)
        values.emplace_back(predict_option::op.long_name(), request.op);
    return values;
}

Prediction point_prediction(const std::string& model, const PointRequest& request, double time_us)
{
    Prediction p{.model = model, .op = request.op, .bytes = request.size, .time_us = time_us};
    if (request.op.starts_with("bcast"))
        p.processes = request.processes;
    if (request.op == "prtt") {
        p.messages = request.messages;
        p.delay_us = request.delay_us;
    }
    return p;
}

Result<Json> read_json_document(const std::string& path)
{
    Result<Json> document = read_json_input(path); // a regular file, a known schema_version
    if (!document)
        return document.status();
    if (!document->is_object())
        return Status::usage(path + ": not a JSON document");
    return document;
}

Result<Json> saved_model(const std::string& path, const std::string& module)
{
    NGX_ASSIGN_OR_RETURN(Json read, read_json_document(path));
    const Json& document = read;
    if (document.contains("model") && !document.contains("runs"))
        return document["model"];
    Result<const Json*> run = choose_saved_run(
        document, path, "fitted model", "has no fitted model (run -x loggp, or ngx fit -o FILE.json)",
        [](const Json& r) { return json_member(r, "model") != nullptr; }, module);
    if (!run)
        return run.status();
    return (**run)["model"];
}

opt::Table predict_options(const std::string& kind)
{
    opt::Table table = predict_table("ngx predict (" + kind + ")");
    table.add(saved_module_row);
    return table;
}

Result<PointRequest> read_predict_request(opt::Reader& read)
{
    PointRequest request;
    if (!read.given(predict_option::op))
        return Status::usage("--op is required: pingpong, prtt, bcast-linear, bcast-tree or a collective (" +
                             collective_op_names() + ")");
    request.op = read(predict_option::op);
    if (!read.given(predict_option::size))
        return Status::usage("-s/--size is required");
    request.size = double(read_one(read, predict_option::size, request.op, 1, max_message_bytes).value_or(0));
    request.processes = double(read_one(read, predict_option::processes, request.op, 1, 1u << 24).value_or(0));
    request.messages = double(read(predict_option::messages));
    request.delay_us = read(predict_option::delay);
    if (!read.ok())
        return Status::usage(read.error());
    return request;
}

} // namespace ngx::patterns
