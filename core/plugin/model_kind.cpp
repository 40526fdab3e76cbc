// The common options of `ngx predict` and the JSON of its predictions (see ngx/model_kind.hpp).
#include <ngx/model_kind.hpp>

namespace ngx {

opt::Table predict_table(const std::string& owner)
{
    using namespace predict_option;
    return opt::Table(owner, {params,      module,     op,       size,      processes,  messages, delay,
                              stride,      pairs,      tier,     algorithm, gamma,      segment,  element,
                              extrapolate, contention, switches, format,    save_model, help});
}

std::vector<opt::OptionSpec> predict_option_specs()
{
    return predict_table().specs();
}

std::optional<uint64_t> read_one(opt::Reader& read, const opt::Option<std::vector<uint64_t>>& row,
                                 const std::string& op, uint64_t min, uint64_t max)
{
    if (!read.given(row))
        return std::nullopt;
    const std::string text = read.text_of(row);
    const bool bytes = row.type == opt::Type::size_list;
    if (text.find(',') == std::string::npos && text.find('-', 1) == std::string::npos) { // one value, as before lists
        opt::Parsed<uint64_t> one = bytes ? opt::byte_count(row.long_name(), text, min, max)
                                          : opt::whole_number(row.long_name(), text, min, max);
        if (!one)
            read.fail(one.error);
        return one.value;
    }
    std::optional<std::vector<uint64_t>> values = read.optional(row);
    if (!values)
        return std::nullopt;
    if (values->size() != 1) {
        read.reject(row, "--op " + op + " takes one " + (bytes ? "size" : "count") + ", not a list of " +
                             std::to_string(values->size()));
        return std::nullopt;
    }
    if (values->front() < min || values->front() > max) {
        read.reject(row, "must be in " + opt::whole_range_text(min, max, bytes));
        return std::nullopt;
    }
    return values->front();
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
    number("measured_us", p.measured_us);
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
