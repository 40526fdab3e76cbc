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

constexpr const char* command = "predict";

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

void print_row(const char* name, const Prediction& p)
{
    std::cout << std::left << std::setw(8) << name << std::right << std::setw(14) << p.p2p << std::setw(16) << p.linear
              << std::setw(14) << p.tree << "\n";
}

int print_predictions(const Models& m, double s, double d, double P)
{
    std::cout << std::setprecision(4) << "# " << format_bytes(uint64_t(s)) << " of " << m.element
              << "-byte elements, stride " << d << " (" << d * double(m.element) << " B), P = " << P
              << "; microseconds\n";
    std::cout << "# log3P: o_mw " << m.log3p->o_mw_at(s) << ", l_mw " << m.log3p->l_mw_at(s, d * double(m.element))
              << ", o_net " << m.log3p->o_net_at(s) << " (Cameron et al. 2007, eq. (6))\n";
    std::cout << std::left << std::setw(8) << "model" << std::right << std::setw(14) << "point-to-point"
              << std::setw(16) << "linear bcast" << std::setw(14) << "tree bcast"
              << "\n";
    print_row("log3p", log3p_prediction(m, s, d, P));
    if (m.loggp)
        print_row("loggp", loggp_prediction(m, s, P));
    if (m.loggps)
        print_row("loggps", loggps_prediction(m, s, P));
    if (d > 1 && (m.loggp || m.loggps))
        std::cout << "# LogGP and LogGPS cannot see the stride: their numbers are those of contiguous data\n";
    return 0;
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

// "predicted (+error%)", with a leading space so that the columns never run
// together, whatever the width of the numbers.
std::string cell(double predicted, double measured)
{
    std::ostringstream out;
    out << ' ' << std::setprecision(4) << predicted;
    if (std::isfinite(predicted) && measured > 0)
        out << " (" << std::showpos << std::setprecision(2) << 100 * (predicted - measured) / measured << "%)";
    return out.str();
}

int compare(const Models& m, const std::string& files)
{
    std::cout << "# measured broadcasts vs predictions, microseconds (relative error of each prediction)\n";
    std::cout << std::setw(4) << "P" << std::setw(10) << "size" << std::setw(8) << "stride" << std::setw(11)
              << "measured" << std::setw(22) << "log3p tree" << std::setw(22) << "log3p linear";
    if (m.loggp)
        std::cout << std::setw(22) << "loggp tree" << std::setw(22) << "loggp linear";
    if (m.loggps)
        std::cout << std::setw(22) << "loggps tree" << std::setw(22) << "loggps linear";
    std::cout << "\n";
    for (const std::string& path : opt::split_list(files)) {
        Result<std::vector<Measured>> rows = read_bcast(path);
        if (!rows)
            return fail(command, rows.status());
        for (const Measured& r : *rows) {
            std::cout << std::setprecision(4) << std::setw(4) << r.processes << std::setw(10)
                      << format_bytes(uint64_t(r.size)) << std::setw(8) << r.stride << std::setw(11) << r.median;
            const Prediction l = log3p_prediction(m, r.size, r.stride, r.processes);
            std::cout << std::setw(22) << cell(l.tree, r.median) << std::setw(22) << cell(l.linear, r.median);
            if (m.loggp) {
                const Prediction g = loggp_prediction(m, r.size, r.processes);
                std::cout << std::setw(22) << cell(g.tree, r.median) << std::setw(22) << cell(g.linear, r.median);
            }
            if (m.loggps) {
                const Prediction g = loggps_prediction(m, r.size, r.processes);
                std::cout << std::setw(22) << cell(g.tree, r.median) << std::setw(22) << cell(g.linear, r.median);
            }
            std::cout << (r.oversubscribed ? "  *" : "") << "\n";
        }
    }
    std::cout << "# *: P ranks on fewer CPUs (oversubscribed): correct, but the ranks took turns on the cores\n";
    return 0;
}

// The run's own grid: measured T_0,1(s,d) against log3P and LogGP's line.
int print_grid(const Json& model, const Models& m)
{
    if (!model.contains("strided") || !model["strided"].contains("points"))
        return fail(command, Status::usage("the file holds no measured grid (give -s SIZE or --compare-to)"));
    const Json loggp = model["models"].value("loggp", Json());
    const bool has_loggp = loggp.is_object() && loggp["two_o_plus_L_us"].is_number();
    std::cout << "# T_0,1(s,d) measured vs predicted, microseconds (relative error); LogGP: 2o + L + (s-1)G\n";
    std::cout << std::setw(10) << "size" << std::setw(8) << "stride" << std::setw(11) << "measured" << std::setw(22)
              << "log3p" << std::setw(22) << "loggp"
              << "\n";
    for (const Json& point : model["strided"]["points"]) {
        const double s = point.value("size", 0.0), d = point.value("stride", 1.0);
        const double measured = point.value("t01_us", NAN);
        std::cout << std::setw(10) << format_bytes(uint64_t(s)) << std::setw(8) << d << std::setw(11)
                  << std::setprecision(4) << measured << std::setw(22)
                  << cell(m.log3p->time(s, d * double(m.element)), measured);
        if (has_loggp)
            std::cout << std::setw(22)
                      << cell(loggp["two_o_plus_L_us"].get<double>() + (s - 1) * loggp["G_us_per_byte"].get<double>(),
                              measured);
        std::cout << "\n";
    }
    return 0;
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
int predict_one(const Models& m, const PredictRequest& request, double s, double d, double P)
{
    const ngx::Prediction row = log3p_row(m, request.op, s, d, P);
    if (request.json) {
        std::cout << predictions_json("log3p", request.op, {row}).dump(2) << "\n";
        return 0;
    }
    std::cout << "# " << request.op << " of " << format_bytes(uint64_t(s)) << ", stride " << d
              << (request.op == "pingpong" ? "" : ", P = " + opt::number_text(P))
              << " with log3P (Cameron et al. 2007, section 4.3.3)\nprediction: " << row.time_us << " us\n";
    return 0;
}

int predict_log3p(const Json& model, const PredictRequest& request)
{
    opt::Reader read(log3p_options(), request.values);
    const double stride = double(read.optional(predict_option::stride).value_or(1));
    const double processes = double(read_one(read, predict_option::processes, request.op, 2, 1u << 24).value_or(2));
    if (!read.ok())
        return fail(command, Status::usage(read.error()));
    Models m;
    if (Status loaded = load_models(read, model, request.params, m); !loaded)
        return fail(command, loaded);
    if (std::optional<std::string> runs = read.optional(compare_to_row))
        return compare(m, *runs);
    if (!read.given(predict_option::size)) {
        if (request.op != "table")
            return fail(command, Status::usage("-s/--size is required"));
        return print_grid(model, m);
    }
    const double size = double(read_one(read, predict_option::size, request.op, 1, max_message_bytes).value_or(0));
    if (!read.ok())
        return fail(command, Status::usage(read.error()));
    if (request.op != "table")
        return predict_one(m, request, size, stride, processes);
    if (request.json) {
        std::vector<ngx::Prediction> rows;
        for (const char* op : {"pingpong", "bcast-linear", "bcast-tree"})
            rows.push_back(log3p_row(m, op, size, stride, processes));
        std::cout << predictions_json("log3p", "table", rows).dump(2) << "\n";
        return 0;
    }
    return print_predictions(m, size, stride, processes);
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
