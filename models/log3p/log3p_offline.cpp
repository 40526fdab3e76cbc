// log3P predictions and their check against measured broadcasts (see predict.hpp).
#include <models/log3p/log3p_offline.hpp>

#include <models/log3p/log3p_model.hpp>

#include <models/loggp/loggp_model.hpp>
#include <models/base/offline.hpp>
#include <models/loggps/loggps_model.hpp>

#include <ngx/saved_run.hpp>
#include <ngx/sizes.hpp>

#include <cmath>
#include <iomanip>
#include <iostream>
#include <optional>

namespace ngx::patterns {
namespace {

// One model's three predictions of a transfer (NaN where it has none).
struct Prediction {
    double p2p = NAN, linear = NAN, tree = NAN;
};

struct Models {
    std::optional<fit::Log3PParams> log3p;
    size_t element = 8;
    std::optional<fit::LogGPParams> loggp;
    std::optional<fit::LogGPSParams> loggps;
};

Prediction log3p_prediction(const Models& m, double s, double d, double P)
{
    const double d_bytes = d * double(m.element);
    return {m.log3p->time(s, d_bytes), m.log3p->linear_bcast(P, s, d_bytes), m.log3p->tree_bcast(P, s, d_bytes)};
}

// LogGP and LogGPS see no stride: the same prediction for every d.
Prediction loggp_prediction(const Models& m, double s, double P)
{
    return {m.loggp->half_rtt(s), m.loggp->linear_bcast(P, s), m.loggp->tree_bcast(P, s)};
}

Prediction loggps_prediction(const Models& m, double s, double P)
{
    return {m.loggps->half_rtt(s), m.loggps->linear_bcast(P, s), m.loggps->tree_bcast(P, s)};
}

constexpr auto loggp_row =
    opt::row::text("loggp", opt::no_default, "a saved loggp run: LogGP's predictions beside log3P's");
constexpr auto loggps_row =
    opt::row::text("loggps", opt::no_default, "a saved loggps run: LogGPS's predictions beside log3P's");
constexpr auto compare_to_row =
    opt::row::text("compare-to", opt::no_default, "saved bcast runs (comma-separated): predicted vs measured");

opt::Table log3p_options()
{
    opt::Table table = predict_table("ngx predict (log3p)");
    for (const opt::Row& own : {loggp_row, loggps_row, compare_to_row, saved_module_row})
        table.add(own);
    return table;
}

Status load_models(opt::Reader& read, const Json& strided, const std::string& params, Models& m)
{
    const std::string module = saved_module(read);
    Result<fit::Log3PParams> log3p = log3p_from_json(strided);
    if (!log3p)
        return log3p.status().with_context(params);
    m.log3p = std::move(*log3p);
    m.element = size_t(strided["models"]["log3p"].value("element_bytes", 8.0));
    if (std::optional<std::string> path = read.optional(loggp_row)) {
        Result<Json> model = saved_model(*path, module);
        if (!model)
            return model.status();
        Result<fit::LogGPParams> p = loggp_params_from_model(*model);
        if (!p)
            return p.status().with_context(*path);
        m.loggp = std::move(*p);
    }
    if (std::optional<std::string> path = read.optional(loggps_row)) {
        Result<Json> model = saved_model(*path, module);
        if (!model)
            return model.status();
        Result<fit::LogGPSParams> p = loggps_params_from_model(*model);
        if (!p)
            return p.status().with_context(*path);
        m.loggps = std::move(*p);
    }
    return Status::ok();
}

// The three predictions of one model as rows (LogGP and LogGPS: no stride).
void add_rows(std::vector<ngx::Prediction>& rows, const char* model, const Prediction& p, double s, double d, double P)
{
    const bool strided = std::string(model) == "log3p";
    for (const auto& [op, time] : {std::pair{"pingpong", p.p2p}, {"bcast-linear", p.linear}, {"bcast-tree", p.tree}})
        rows.push_back({.model = model,
                        .op = op,
                        .bytes = s,
                        .processes = std::string(op) == "pingpong" ? NAN : P,
                        .stride = strided ? d : NAN,
                        .time_us = time});
}

// --op table with -s: log3P's three predictions, LogGP's and LogGPS's beside.
Predictions table_predictions(const Models& m, double s, double d, double P)
{
    Predictions out;
    std::ostringstream about, terms;
    about << std::setprecision(4) << format_bytes(uint64_t(s)) << " of " << m.element << "-byte elements, stride " << d
          << " (" << d * double(m.element) << " B), P = " << P << "; microseconds";
    terms << std::setprecision(4) << "log3P: o_mw " << m.log3p->o_mw_at(s) << ", l_mw "
          << m.log3p->l_mw_at(s, d * double(m.element)) << ", o_net " << m.log3p->o_net_at(s)
          << " (Cameron et al. 2007, eq. (6))";
    out.notes = {about.str(), terms.str()};
    add_rows(out.rows, "log3p", log3p_prediction(m, s, d, P), s, d, P);
    if (m.loggp)
        add_rows(out.rows, "loggp", loggp_prediction(m, s, P), s, d, P);
    if (m.loggps)
        add_rows(out.rows, "loggps", loggps_prediction(m, s, P), s, d, P);
    if (d > 1 && (m.loggp || m.loggps))
        out.notes.push_back("LogGP and LogGPS cannot see the stride: their numbers are those of contiguous data");
    return out;
}

// A measured broadcast: size, stride, P and its median.
struct Measured {
    double size = 0, stride = 1, processes = 0, median = 0;
    bool oversubscribed = false;
};

Result<std::vector<Measured>> read_bcast(const std::string& path)
{
    NGX_ASSIGN_OR_RETURN(Json document, read_json_document(path));
    std::vector<Measured> rows;
    const Json runs = document.contains("runs") ? document["runs"] : Json::array({document});
    for (const Json& run : runs) {
        if (run.value("pattern", std::string()) != "bcast")
            continue;
        for (const Json& result : run.value("results", Json::array())) {
            Measured m;
            m.size = result.value("size_bytes", 0.0);
            m.median = result.value("median_us", NAN);
            m.stride = result.value("stride", 1.0);
            m.processes = result.value("processes", 0.0);
            m.oversubscribed = result.value("oversubscribed", 0.0) != 0;
            rows.push_back(m);
        }
    }
    if (rows.empty())
        return Status::usage(path + ": holds no bcast run (run -x bcast under mpirun)");
    return rows;
}

// A broadcast's two predictions by one model beside the measured median.
void add_compared(std::vector<ngx::Prediction>& rows, const char* model, const Prediction& p, const Measured& r)
{
    const bool strided = std::string(model) == "log3p";
    for (const auto& [op, time] : {std::pair{"bcast-tree", p.tree}, {"bcast-linear", p.linear}})
        rows.push_back({.model = model,
                        .op = op,
                        .bytes = r.size,
                        .processes = r.processes,
                        .stride = strided ? r.stride : NAN,
                        .time_us = time,
                        .measured_us = r.median});
}

// --compare-to: each measured broadcast against log3P's (and LogGP's, LogGPS's) predictions.
Result<Predictions> compare(const Models& m, const std::string& files)
{
    Predictions out{.rows = {}, .notes = {"measured broadcasts vs predictions, microseconds"}};
    for (const std::string& path : opt::split_list(files)) {
        NGX_ASSIGN_OR_RETURN(const std::vector<Measured> rows, read_bcast(path));
        for (const Measured& r : rows) {
            add_compared(out.rows, "log3p", log3p_prediction(m, r.size, r.stride, r.processes), r);
            if (m.loggp)
                add_compared(out.rows, "loggp", loggp_prediction(m, r.size, r.processes), r);
            if (m.loggps)
                add_compared(out.rows, "loggps", loggps_prediction(m, r.size, r.processes), r);
            if (r.oversubscribed)
                out.notes.push_back(path + ": P = " + opt::number_text(r.processes) + ", " +
                                    format_bytes(uint64_t(r.size)) +
                                    ": P ranks on fewer CPUs (oversubscribed): correct, but the ranks took turns "
                                    "on the cores");
        }
    }
    return out;
}

// The run's own grid: measured T_0,1(s,d) against log3P and LogGP's line.
Result<Predictions> grid(const Json& model, const Models& m)
{
    if (!model.contains("strided") || !model["strided"].contains("points"))
        return Status::usage("the file holds no measured grid (give -s SIZE or --compare-to)");
    const Json loggp = model["models"].value("loggp", Json());
    const bool has_loggp = loggp.is_object() && loggp["two_o_plus_L_us"].is_number();
    Predictions out{.rows = {}, .notes = {"T_0,1(s,d) measured vs predicted, microseconds; LogGP: 2o + L + (s-1)G"}};
    for (const Json& point : model["strided"]["points"]) {
        const double s = point.value("size", 0.0), d = point.value("stride", 1.0);
        const double measured = point.value("t01_us", NAN);
        out.rows.push_back({.model = "log3p",
                            .op = "pingpong",
                            .bytes = s,
                            .stride = d,
                            .time_us = m.log3p->time(s, d * double(m.element)),
                            .measured_us = measured});
        if (has_loggp)
            out.rows.push_back(
                {.model = "loggp",
                 .op = "pingpong",
                 .bytes = s,
                 .stride = d,
                 .time_us = loggp["two_o_plus_L_us"].get<double>() + (s - 1) * loggp["G_us_per_byte"].get<double>(),
                 .measured_us = measured});
    }
    return out;
}

} // namespace

namespace {

// log3P's prediction of one operation: pingpong, bcast-linear or bcast-tree.
ngx::Prediction log3p_row(const Models& m, const std::string& op, double s, double d, double P)
{
    const Prediction all = log3p_prediction(m, s, d, P);
    ngx::Prediction row{.model = "log3p", .op = op, .bytes = s, .stride = d};
    row.time_us = op == "pingpong" ? all.p2p : op == "bcast-linear" ? all.linear : all.tree;
    if (op != "pingpong")
        row.processes = P;
    return row;
}

// One log3P number (--op pingpong, bcast-linear, bcast-tree).
Predictions predict_one(const Models& m, const PredictRequest& request, double s, double d, double P)
{
    const std::string note = request.op + " of " + format_bytes(uint64_t(s)) + ", stride " + opt::number_text(d) +
                             (request.op == "pingpong" ? "" : ", P = " + opt::number_text(P)) +
                             " with log3P (Cameron et al. 2007, section 4.3.3)";
    return Predictions{.rows = {log3p_row(m, request.op, s, d, P)}, .notes = {note}};
}

Result<Predictions> predict_log3p(const Json& model, const PredictRequest& request)
{
    opt::Reader read(log3p_options(), request.values);
    const double stride = double(read.optional(predict_option::stride).value_or(1));
    const double processes = double(read_one(read, predict_option::processes, request.op, 2, 1u << 24).value_or(2));
    if (!read.ok())
        return Status::usage(read.error());
    Models m;
    NGX_TRY(load_models(read, model, request.params, m));
    if (std::optional<std::string> runs = read.optional(compare_to_row))
        return compare(m, *runs);
    if (!read.given(predict_option::size)) {
        if (request.op != "table")
            return Status::usage("-s/--size is required");
        return grid(model, m);
    }
    const double size = double(read_one(read, predict_option::size, request.op, 1, max_message_bytes).value_or(0));
    if (!read.ok())
        return Status::usage(read.error());
    if (request.op != "table")
        return predict_one(m, request, size, stride, processes);
    return table_predictions(m, size, stride, processes);
}

} // namespace

ModelKind log3p_model_kind()
{
    const std::vector<std::string> one = {"size", "stride"}, bcast = {"size", "stride", "processes"};
    return {.name = "log3p",
            .description = "log3P (Cameron et al. 2007): T = o_mw + l_mw + o_net for s bytes at stride d, fitted "
                           "over the strided run's grid",
            .parameters = {{"o_mw_us", "us", "middleware overhead (send to self), per size"},
                           {"l_mw_us", "us", "middleware latency of strided data, per size and stride"},
                           {"o_net_us", "us", "network overhead (remote minus send to self), per size"},
                           {"element_bytes", "B", "the element of the run's type; --stride counts elements"}},
            .ops = {{"table",
                     "point-to-point, linear and tree broadcast of -s (LogGP and LogGPS beside with "
                     "--loggp, --loggps); without -s the run's grid, measured vs predicted; with "
                     "--compare-to, measured broadcasts vs predictions",
                     {"size", "stride", "processes", "loggp", "loggps", "compare-to"}},
                    {"pingpong", "T_0,1(s, d): one message of -s bytes at --stride", one},
                    {"bcast-linear", "P (o_mw/2 + l_mw/2) + o_net (section 4.3.3)", bcast},
                    {"bcast-tree", "(o_mw + l_mw + o_net) ceil(log2 P) (section 4.3.3)", bcast}},
            // --module picks the run of the --loggp and --loggps files, as before the registry.
            .load = [](const std::string& path, const std::string&) { return saved_model(path); },
            .predict = predict_log3p,
            .options = {opt::spec_of(loggp_row), opt::spec_of(loggps_row), opt::spec_of(compare_to_row)},
            .implied_op = [](const OptionValues&) { return std::string("table"); }};
}

} // namespace ngx::patterns
