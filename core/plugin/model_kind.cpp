// The common options of `ngx predict` and the JSON of its predictions (see ngx/model_kind.hpp).
#include <ngx/model_kind.hpp>

namespace ngx {

std::vector<opt::OptionSpec> predict_option_specs()
{
    return {opt::optional_value("params", "the saved run or model file to predict from"),
            opt::optional_value("module,m", "the run whose model to use, when the file holds several"),
            opt::optional_value("op", "the operation (`ngx predict --params FILE --help` lists the model's)"),
            opt::optional_value("size,s", "message size, e.g. 4Ki (collectives: also a range 8-1Mi or a list)"),
            opt::optional_value("processes,P", "processes (broadcasts: 2; collectives: also a list 4,16,64)"),
            opt::optional_value("messages,n", "n of PRTT(n,d,s) (default 16)"),
            opt::optional_value("delay,d", "d of PRTT(n,d,s), microseconds (default 0)"),
            opt::optional_value("stride", "stride in elements of the run's type (default 1: contiguous)"),
            opt::optional_value("pairs,k", "concurrent pairs k between two nodes"),
            opt::optional_value("tier", "intra (within a node) or inter (between nodes)"),
            opt::optional_value("algorithm", "collectives: one algorithm, auto (Open MPI 4.1's choice) or all"),
            opt::optional_value("gamma", "collectives: reduction cost, us per byte (default: the file's, else 0)"),
            opt::optional_value("segment", "collectives: segment of the pipelined bcast (default 64Ki)"),
            opt::optional_value("element", "collectives: datatype size in bytes (default 8)"),
            opt::flag("extrapolate", "collectives: price messages beyond the largest measured size"),
            opt::optional_value("format", "table (default) or json"),
            opt::optional_value("save-model",
                                "write the model alone to FILE (JSON), which --params reads back; "
                                "without --op nothing is predicted",
                                opt::OptionKind::output_file),
            opt::flag("help,h", "show this help (with --params: the model's parameters and operations)")};
}

Json prediction_json(const Prediction& p)
{
    Json row = {{"model", p.model}};
    if (!p.variant.empty())
        row["variant"] = p.variant;
    row["op"] = p.op;
    auto number = [&row](const char* key, double value) {
        if (!std::isnan(value))
            row[key] = value;
    };
    number("bytes", p.bytes);
    number("P", p.processes);
    number("n", p.messages);
    number("d_us", p.delay_us);
    number("stride", p.stride);
    number("k", p.pairs);
    if (!p.tier.empty())
        row["tier"] = p.tier;
    if (!p.algorithm.empty())
        row["algorithm"] = p.algorithm;
    row["time_us"] = std::isfinite(p.time_us) ? Json(p.time_us) : Json(nullptr);
    return row;
}

Json predictions_json(const std::string& model, const std::string& op, const std::vector<Prediction>& predictions)
{
    Json rows = Json::array();
    for (const Prediction& p : predictions)
        rows.push_back(prediction_json(p));
    return {{"model", model}, {"op", op}, {"predictions", rows}};
}

OptionValues with_defaults(OptionValues values, const OptionValues& defaults)
{
    for (const auto& [name, value] : defaults)
        if (opt::find(values, name) == nullptr)
            values.emplace_back(name, value);
    return values;
}

} // namespace ngx
