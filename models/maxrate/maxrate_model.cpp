// Fitting Gropp et al. 2016's models to a nodecomm run (see models/maxrate/maxrate_model.hpp).
#include <models/maxrate/maxrate_model.hpp>

#include <models/base/change_points.hpp>
#include <models/maxrate/maxrate.hpp>
#include <models/postal/postal.hpp>
#include <models/base/least_squares.hpp>
#include <models/base/measured.hpp>
#include <ngx/options.hpp>
#include <ngx/sizes.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ngx::patterns {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double us_per_s = 1e6; // rates fitted in bytes/us become bytes/s

using Points = std::vector<fit::NodeCommPoint>;

// {"value": v, "ci95": [lo, hi]} (the interval null where there is none).
Json measured_json(const fit::Measured& m, double scale = 1)
{
    Json interval = m.has_interval() ? Json::array({json_number(m.lower * scale), json_number(m.upper * scale)})
                                     : Json::array({nullptr, nullptr});
    return {{"value", json_number(m.value * scale)}, {"ci95", interval}};
}

// A rate 1/x (bytes/us -> bytes/s) with the interval of x inverted.
Json rate_json(const fit::Measured& per_byte)
{
    fit::Measured rate;
    rate.value = per_byte.value > 0 ? 1 / per_byte.value : nan;
    if (per_byte.has_interval()) {
        rate.lower = per_byte.upper > 0 ? 1 / per_byte.upper : nan;
        rate.upper = per_byte.lower > 0 ? 1 / per_byte.lower : std::numeric_limits<double>::infinity();
    }
    return measured_json(rate, us_per_s);
}

// Table 2 of Gropp et al. 2016: the sum of |model - measured| / measured.
template <typename Model>
double relative_error_sum(const Points& points, const Model& model)
{
    double sum = 0;
    for (const fit::NodeCommPoint& p : points)
        sum += std::abs(model(p.k, p.n) - p.t) / p.t;
    return sum;
}

Json postal_json(const Points& fitted, const Points& all)
{
    Result<fit::PostalFit> f = fit::fit_postal(fitted);
    if (!f)
        return {{"error", "too few or degenerate points (" + std::to_string(fitted.size()) + ")"}};
    fit::PostalParams params = f->params;
    return {{"alpha_us", measured_json(f->s)},
            {"R_Bps", rate_json(f->r)},
            {"points", fitted.size()},
            {"rel_error_sum", relative_error_sum(all, [&](double, double n) { return params.time(n); })}};
}

// One fitted parameter in `form`: {"value", "ci95"} (the interval null unless
// whole), or the value under `key` and its interval, each end null where
// undefined, under `<key stem>_ci95_<unit>`.
void put_measured(Json& json, const std::string& stem, const std::string& unit, const fit::Measured& m, double scale,
                  const MaxRateForm& form)
{
    if (!form.flat) {
        json[stem + "_" + unit] = measured_json(m, scale);
        return;
    }
    json[stem + "_" + unit] = json_number(m.value * scale);
    json[stem + "_ci95_" + unit] = Json::array({json_number(m.lower * scale), json_number(m.upper * scale)});
}

// The modified model of the slides, T = k n / min(R_N, k n / (alpha + n/R_C))
// = max(k n / R_N, alpha + n / R_C): a point is either network-limited
// (T = k n c, c = 1/R_N) or core-limited (T = alpha + n a, a = 1/R_C).
// Fitted by alternating: classify the points with the current parameters,
// fit each branch by relative least squares, until the split is stable.
struct ModifiedFit {
    fit::Measured alpha, a, c;
    bool ok = false;
};

double modified_time(double alpha, double a, double c, double k, double n)
{
    return std::max(std::isfinite(c) ? c * k * n : 0.0, alpha + a * n);
}

ModifiedFit fit_modified(const Points& points, double alpha, double a, double c)
{
    ModifiedFit result;
    std::vector<bool> net(points.size(), false);
    for (int round = 0; round < 50; ++round) {
        std::vector<bool> next(points.size());
        for (size_t i = 0; i < points.size(); ++i)
            next[i] = std::isfinite(c) && c * points[i].k * points[i].n > alpha + a * points[i].n;
        if (round > 0 && next == net)
            break;
        net = next;
        std::vector<double> n, t, ratio, weight;
        for (size_t i = 0; i < points.size(); ++i) {
            const fit::NodeCommPoint& p = points[i];
            if (net[i] && p.n > 0) {
                ratio.push_back(p.t / (p.k * p.n)); // relative residuals: weights (k n / t)^2
                weight.push_back((p.k * p.n / p.t) * (p.k * p.n / p.t));
            } else {
                n.push_back(p.n);
                t.push_back(p.t);
            }
        }
        Result<fit::LineFit> line = fit::fit_line_weighted(n, t, fit::relative_weights(t));
        if (!line)
            return result;
        result.alpha = line->intercept;
        result.a = line->slope;
        result.c = ratio.empty() ? fit::Measured::exact(nan) : fit::weighted_mean_of(ratio, weight);
        alpha = result.alpha.value;
        a = result.a.value;
        c = result.c.value;
    }
    result.ok = std::isfinite(alpha) && a > 0;
    return result;
}

// A fitted value of a model's JSON; NaN when absent or null.
double fitted_value(const Json& model, const char* key)
{
    if (!model.contains(key) || !model[key].is_object() || !model[key].contains("value"))
        return nan;
    const Json& v = model[key]["value"];
    return v.is_number() ? v.get<double>() : nan;
}

// Starts from the three-parameter fit, or from the postal fit over all k
// (no network limit) where that one has no finite R_C.
Json modified_json(const Points& points, const Json& maxrate3, const Json& postal_all)
{
    double alpha = fitted_value(maxrate3, "alpha_us"), rc = fitted_value(maxrate3, "R_C_Bps");
    double rn = fitted_value(maxrate3, "R_N_Bps");
    if (!std::isfinite(alpha) || !std::isfinite(rc)) {
        alpha = fitted_value(postal_all, "alpha_us");
        rc = fitted_value(postal_all, "R_Bps");
        rn = nan;
    }
    if (!std::isfinite(alpha) || !(rc > 0) || !std::isfinite(rc))
        return {{"error", "no max-rate or postal fit to start from"}};
    ModifiedFit f = fit_modified(points, alpha, us_per_s / rc, std::isfinite(rn) ? us_per_s / rn : nan);
    if (!f.ok)
        return {{"error", "did not converge to positive rates"}};
    double al = f.alpha.value, a = f.a.value, c = f.c.value;
    return {{"alpha_us", measured_json(f.alpha)},
            {"R_C_Bps", rate_json(f.a)},
            {"R_N_Bps", std::isfinite(c) ? rate_json(f.c) : Json({{"value", nullptr}, {"ci95", {nullptr, nullptr}}})},
            {"rel_error_sum",
             relative_error_sum(points, [&](double k, double n) { return modified_time(al, a, c, k, n); })}};
}

Points regime_points(const NodeCommData& data, const Regime& regime, uint64_t only_k)
{
    Points points;
    for (size_t ki = 0; ki < data.pairs.size(); ++ki)
        for (size_t ni = 0; ni < data.sizes.size(); ++ni)
            if (regime.contains(data.sizes[ni]) && std::isfinite(data.T_us[ki][ni]) &&
                (only_k == 0 || data.pairs[ki] == only_k))
                points.push_back({double(data.pairs[ki]), double(data.sizes[ni]), data.T_us[ki][ni]});
    return points;
}

Json regime_json(const NodeCommData& data, const Regime& regime)
{
    uint64_t k_max = *std::max_element(data.pairs.begin(), data.pairs.end());
    Points all = regime_points(data, regime, 0);
    Json models = Json::object();
    models["postal_1pair"] = postal_json(regime_points(data, regime, 1), all);
    if (k_max > 1)
        models["postal_" + std::to_string(k_max) + "pairs"] = postal_json(regime_points(data, regime, k_max), all);
    models["postal_all"] = postal_json(all, all);
    models["maxrate3"] = maxrate_json(all, fit::MaxRateVariant::three_parameter, regime_form);
    models["maxrate4"] = maxrate_json(all, fit::MaxRateVariant::four_parameter, regime_form);
    models["modified"] = modified_json(all, models["maxrate3"], models["postal_all"]);
    Json json = {{"from_bytes", regime.from_bytes},
                 {"to_bytes", regime.to_bytes == 0 ? Json(nullptr) : Json(regime.to_bytes)},
                 {"points", all.size()}};
    // k* = R_N / R_C (Gropp et al. 2016, section 5): the pairs that saturate the network.
    json["k_star"] = models["maxrate3"].value("k_star", Json());
    json["models"] = std::move(models);
    return json;
}

// One column per pair count k, "k=<k>_<unit>", after the sizes.
std::vector<TableColumn> per_k_columns(const NodeCommData& data, const std::string& unit)
{
    std::vector<TableColumn> columns = {{"bytes", true}};
    for (uint64_t k : data.pairs)
        columns.push_back({"k=" + std::to_string(k) + "_" + unit, true, "-"});
    return columns;
}

// Rows n, columns k: value(k index, n index) in each cell (null where not finite).
template <typename Value>
Table per_k_table(const NodeCommData& data, std::string title, const std::string& unit, Value value)
{
    Table table{.title = std::move(title), .columns = per_k_columns(data, unit)};
    for (size_t n = 0; n < data.sizes.size(); ++n) {
        std::vector<Json> row = {data.sizes[n]};
        for (size_t k = 0; k < data.pairs.size(); ++k)
            row.push_back(json_number(value(k, n)));
        table.rows.push_back(std::move(row));
    }
    return table;
}

// The fitted models, one row per regime x model x parameter: the value and
// its 95% interval as the model JSON holds them; a model not fitted is one
// row with its reason, and each regime's k* a row of model "regime".
Table models_table(const Json& model)
{
    Table table{.title = "nodecomm models per regime (Gropp et al. 2016; 95% intervals; rates in MB/s)",
                .columns = {{"from_bytes", true},
                            {"to_bytes", true, "-"},
                            {"points", true},
                            {"model", false},
                            {"parameter", false},
                            {"value", true, "-"},
                            {"ci95_low", true, "-"},
                            {"ci95_high", true, "-"},
                            {"not_fitted", false}},
                .notes = {"k* = R_N / R_C: the pairs that saturate the network (model regime: maxrate3's); "
                          "a null R_N or k*: no network limit seen"}};
    for (const Json& range : model.value("ranges", Json::array())) {
        if (!range.is_object())
            continue;
        const std::vector<Json> regime = {range.value("from_bytes", Json(0)), range.value("to_bytes", Json()),
                                          range.value("points", Json())};
        // A rate "<stem>_Bps" becomes "<stem>_MBps", its value and interval in MB/s (bytes per us).
        auto add = [&](const std::string& name, const Json& parameter, const Json& value, const Json& ci,
                       const Json& reason) {
            std::string key = parameter.is_string() ? parameter.get<std::string>() : "";
            const bool rate = key.ends_with("_Bps");
            if (rate)
                key = key.substr(0, key.size() - 4) + "_MBps";
            auto scaled = [&](const Json& x) { return rate && x.is_number() ? Json(x.get<double>() / us_per_s) : x; };
            const bool interval = ci.is_array() && ci.size() == 2;
            std::vector<Json> row = regime;
            row.insert(row.end(), {name, key.empty() ? Json() : Json(key), scaled(value),
                                   interval ? scaled(ci[0]) : Json(), interval ? scaled(ci[1]) : Json(), reason});
            table.rows.push_back(std::move(row));
        };
        const Json models = range.value("models", Json::object());
        for (const auto& [name, fitted] : models.items()) {
            if (!fitted.is_object())
                continue;
            if (fitted.contains("error")) {
                add(name, Json(), Json(), Json(), fitted["error"]);
                continue;
            }
            for (const auto& [key, value] : fitted.items())
                if (value.is_object())
                    add(name, key, value.value("value", Json()), value.value("ci95", Json()), Json());
                else
                    add(name, key, value, Json(), Json());
        }
        add("regime", "k_star", range.value("k_star", Json()), Json(), Json());
    }
    return table;
}

} // namespace

Json maxrate_json(const Points& points, fit::MaxRateVariant variant, const MaxRateForm& form)
{
    Result<fit::MaxRateFit> f = fit::fit_maxrate(points, variant);
    Json json = Json::object();
    if (form.fit_summary)
        json["points"] = points.size();
    if (!f) {
        json["error"] = f.status().reason() == Reason::too_few_points
                            ? form.fit_summary
                                  ? std::string("needs more points than its 3 parameters (P >= 3)")
                                  : "needs more points than its parameters (" + std::to_string(points.size()) + ")"
                            : std::string("degenerate: needs 2 ") + form.pairs + " counts" +
                                  (form.fit_summary ? "" : ", 2 sizes") + " and a fit with positive rates";
        return json;
    }
    fit::MaxRateParams params = f->params;
    bool four = variant == fit::MaxRateVariant::four_parameter;
    put_measured(json, "alpha", "us", f->s, 1, form);
    auto rates = [&] {
        put_measured(json, four ? "R_Cb" : "R_C", form.rate_unit, f->R_Cb, form.rate_scale, form);
        if (four) // R_Ci's interval by the delta method (maxrate.hpp)
            put_measured(json, "R_Ci", form.rate_unit, f->R_Ci, form.rate_scale, form);
    };
    if (!form.flat)
        rates();
    // null: no network limit seen (the paper's "RN = inf")
    put_measured(json, "R_N", form.rate_unit, f->R_N, form.rate_scale, form);
    if (form.flat)
        rates();
    json["k_star"] = json_number(params.k_star());
    if (form.fit_summary) {
        json["network_limited_points"] = f->network_limited;
        json["error"] = {{"mean_relative", f->error.mean_rel}, {"max_relative", f->error.max_rel}};
    } else {
        json["rel_error_sum"] = relative_error_sum(points, [&](double k, double n) { return params.time(k, n); });
    }
    return json;
}

Result<Json> maxrate_of_congestion(const Json& model)
{
    const Json* congestion = model.contains("congestion") ? &model["congestion"] : nullptr;
    if (congestion == nullptr || !congestion->is_object() || !congestion->contains("maxrate") ||
        !(*congestion)["maxrate"].is_object())
        return Status::usage("the congestion model holds no \"maxrate\" fit");
    const Json& fitted = (*congestion)["maxrate"];
    Json maxrate3 = Json::object();
    if (fitted.contains("error") && fitted["error"].is_string()) {
        maxrate3["error"] = fitted["error"];
    } else {
        auto rate = [&fitted](const char* key) { // MB/s (bytes per us) -> B/s; null stays null (R_N: unbounded)
            const Json& v = fitted.value(key, Json());
            return v.is_number() ? Json(v.get<double>() * us_per_s) : Json();
        };
        maxrate3 = {{"alpha_us", fitted.value("alpha_us", Json())},
                    {"R_C_Bps", rate("R_C_MBps")},
                    {"R_N_Bps", rate("R_N_MBps")},
                    {"k_star", fitted.value("k_star", Json())}};
    }
    Json pairs = Json::array();
    for (const Json& point : congestion->value("per_flows", Json::array()))
        if (point.is_object() && point.contains("flows"))
            pairs.push_back(point["flows"]);
    return Json{
        {"kind", "congestion"},
        {"nodecomm", {{"pairs", pairs}}},
        {"ranges", Json::array({{{"from_bytes", 0}, {"to_bytes", nullptr}, {"models", {{"maxrate3", maxrate3}}}}})}};
}

NodeCommData empty_data(std::vector<uint64_t> pairs, std::vector<uint64_t> sizes)
{
    NodeCommData data;
    data.T_us.assign(pairs.size(), std::vector<double>(sizes.size(), nan));
    data.T_mean_us = data.T_us;
    data.pairs = std::move(pairs);
    data.sizes = std::move(sizes);
    return data;
}

Json data_json(const NodeCommData& data)
{
    auto table = [](const std::vector<std::vector<double>>& rows) {
        Json json = Json::array();
        for (const std::vector<double>& row : rows) {
            Json cells = Json::array();
            for (double value : row)
                cells.push_back(json_number(value));
            json.push_back(std::move(cells));
        }
        return json;
    };
    return {
        {"pairs", data.pairs}, {"sizes", data.sizes}, {"T_us", table(data.T_us)}, {"T_mean_us", table(data.T_mean_us)}};
}

Result<NodeCommData> data_from_json(const Json& json)
{
    try {
        NodeCommData data =
            empty_data(json.at("pairs").get<std::vector<uint64_t>>(), json.at("sizes").get<std::vector<uint64_t>>());
        for (const char* key : {"T_us", "T_mean_us"}) {
            auto& rows = std::string(key) == "T_us" ? data.T_us : data.T_mean_us;
            const Json& table = json.at(key);
            if (table.size() != data.pairs.size())
                return Status::usage(std::string("nodecomm.") + key + ": one row per pair count expected");
            for (size_t k = 0; k < rows.size(); ++k) {
                if (table[k].size() != data.sizes.size())
                    return Status::usage(std::string("nodecomm.") + key + ": one value per size expected");
                for (size_t n = 0; n < data.sizes.size(); ++n)
                    rows[k][n] = table[k][n].is_number() ? table[k][n].get<double>() : nan;
            }
        }
        if (data.pairs.empty() || data.sizes.empty())
            return Status::usage("nodecomm: no pairs or no sizes");
        return data;
    } catch (const Json::exception& error) {
        return Status::usage(std::string("nodecomm: not a nodecomm table: ") + error.what());
    }
}

Result<std::vector<Regime>> parse_regimes(const std::string& text)
{
    std::vector<Regime> regimes;
    for (const std::string& item : opt::split_list(text)) {
        size_t dash = item.find('-');
        if (dash == std::string::npos || dash == 0)
            return Status::usage(opt::bad_value("nodecomm-regimes", text, "expected FROM-TO or FROM- per regime"));
        Result<uint64_t> from = parse_byte_count(item.substr(0, dash));
        Result<uint64_t> to =
            dash + 1 == item.size() ? Result<uint64_t>(uint64_t(0)) : parse_byte_count(item.substr(dash + 1));
        if (!from || !to || (*to != 0 && *to <= *from))
            return Status::usage(opt::bad_value("nodecomm-regimes", text, "'" + item + "' is not a range FROM-TO"));
        if (!regimes.empty() && (regimes.back().to_bytes == 0 || regimes.back().to_bytes > *from))
            return Status::usage(opt::bad_value("nodecomm-regimes", text, "regimes must be in order, not overlapping"));
        regimes.push_back({*from, *to});
    }
    return regimes;
}

std::vector<Regime> detect_regimes(const NodeCommData& data)
{
    std::vector<Regime> whole{{0, 0}};
    auto one = std::find(data.pairs.begin(), data.pairs.end(), uint64_t(1));
    if (one == data.pairs.end())
        return whole;
    const std::vector<double>& curve = data.T_us[size_t(one - data.pairs.begin())];
    std::vector<double> size, val;
    for (size_t i = 0; i < data.sizes.size(); ++i)
        if (std::isfinite(curve[i])) {
            size.push_back(double(data.sizes[i]));
            val.push_back(curve[i]);
        }
    Result<std::vector<fit::Range>> ranges = fit::detect_protocol_ranges(size, val);
    if (!ranges || ranges->size() < 2)
        return whole;
    std::vector<Regime> regimes;
    for (size_t r = 0; r < ranges->size(); ++r) {
        uint64_t from = r == 0 ? 0 : uint64_t(size[(*ranges)[r].first]);
        uint64_t to = r + 1 == ranges->size() ? 0 : uint64_t(size[(*ranges)[r + 1].first]);
        regimes.push_back({from, to});
    }
    return regimes;
}

const Json* regime_of(const Json& model, uint64_t n)
{
    if (!model.contains("ranges") || !model["ranges"].is_array())
        return nullptr;
    for (const Json& range : model["ranges"]) {
        if (!range.is_object())
            continue;
        uint64_t from = range.value("from_bytes", uint64_t(0));
        Json to = range.value("to_bytes", Json());
        bool below_end = !to.is_number() || n < to.get<uint64_t>();
        if (n >= from && below_end)
            return &range;
    }
    return nullptr;
}

double value_of(const Json& fitted, const char* key)
{
    if (!fitted.is_object() || !fitted.contains(key))
        return std::nan("");
    const Json& v = fitted[key];
    const Json number = v.is_object() ? v.value("value", Json()) : v;
    if (number.is_null() && std::string(key).starts_with("R_N"))
        return std::numeric_limits<double>::infinity(); // no network limit seen
    return number.is_number() ? number.get<double>() : std::nan("");
}

double predicted_us(const std::string& name, const Json& fitted, double k, double n)
{
    double alpha = value_of(fitted, "alpha_us");
    if (name.starts_with("postal"))
        return alpha + n / value_of(fitted, "R_Bps") * us_per_s; // T = alpha + n / R
    double rn = value_of(fitted, "R_N_Bps");
    if (name == "maxrate3")
        return alpha + k * n / std::min(rn, k * value_of(fitted, "R_C_Bps")) * us_per_s;
    if (name == "maxrate4") {
        double core = value_of(fitted, "R_Cb_Bps") + (k - 1) * value_of(fitted, "R_Ci_Bps");
        return alpha + k * n / std::min(rn, core) * us_per_s;
    }
    if (name == "modified") // T = k n / min(R_N, k n / (alpha + n / R_C))
        return std::max(k * n / rn * us_per_s, alpha + n / value_of(fitted, "R_C_Bps") * us_per_s);
    return std::nan("");
}

Json predicted_tables(const NodeCommData& data, const Json& model)
{
    Json tables = Json::object();
    for (size_t ki = 0; ki < data.pairs.size(); ++ki)
        for (size_t ni = 0; ni < data.sizes.size(); ++ni) {
            const Json* regime = regime_of(model, data.sizes[ni]);
            if (regime == nullptr || !regime->contains("models"))
                continue;
            for (const auto& [name, fitted] : (*regime)["models"].items()) {
                Json& table = tables[name];
                if (table.is_null())
                    table = Json::array();
                while (table.size() <= ki)
                    table.push_back(Json(data.sizes.size(), Json()));
                double t = fitted.is_object() && !fitted.contains("error")
                               ? predicted_us(name, fitted, double(data.pairs[ki]), double(data.sizes[ni]))
                               : nan;
                table[ki][ni] = json_number(t);
            }
        }
    return tables;
}

Json nodecomm_model(const NodeCommData& data, const std::vector<Regime>& regimes)
{
    Json ranges = Json::array();
    for (const Regime& regime : regimes)
        ranges.push_back(regime_json(data, regime));
    Json model = {{"kind", "nodecomm"}, {"nodecomm", data_json(data)}, {"ranges", std::move(ranges)}};
    model["nodecomm"]["predicted_T_us"] = predicted_tables(data, model);
    return model;
}

std::vector<Table> nodecomm_tables(const Json& model)
{
    if (!model.is_object() || !model.contains("nodecomm"))
        return {};
    Result<NodeCommData> read = data_from_json(model["nodecomm"]);
    if (!read)
        return {};
    const NodeCommData& data = *read;
    std::vector<Table> tables;
    tables.push_back(per_k_table(data, "T(k, n) us: the slowest of k pairs, half round trip (rows n, columns k)", "us",
                                 [&](size_t k, size_t n) { return data.T_us[k][n]; }));
    tables.push_back(per_k_table(data, "aggregate bandwidth k n / T(k, n) in MB/s", "MBps", [&](size_t k, size_t n) {
        return double(data.pairs[k]) * double(data.sizes[n]) / data.T_us[k][n]; // bytes/us = MB/s
    }));
    if (model.contains("ranges") && model["ranges"].is_array())
        tables.push_back(models_table(model));
    return tables;
}

} // namespace ngx::patterns
