// The overhead pattern's offline hooks (see overhead_offline.hpp).
#include <models/loghssp/loghssp_offline.hpp>

#include <models/base/offline.hpp>

#include <ngx/json_input.hpp>
#include <models/loghssp/loghssp.hpp>
#include <models/loghssp/protocols.hpp>
#include <ngx/sizes.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <optional>

namespace ngx::patterns {
namespace {

Result<OverheadPoint> point_of(const std::string& where, const Json& result)
{
    OverheadPoint p;
    for (const char* key : {"size_bytes", "min_us", "o_r_min_us", "half_rtt_min_us"})
        if (!result.contains(key) || !result[key].is_number())
            return Status::usage(where + ": a result has no number \"" + key +
                                 "\" (a run of -x overhead from this ngx is needed)");
    NGX_ASSIGN_OR_RETURN(uint64_t size, byte_field(result, "size_bytes", where));
    p.size = size;
    p.o_s = result["min_us"].get<double>(); // the o_s samples' minimum
    p.o_r = result["o_r_min_us"].get<double>();
    p.half_rtt = result["half_rtt_min_us"].get<double>();
    // runs before timer12 was recorded apart: o_r was timer12 in every mode
    const char* delayed = result.contains("timer12_min_us") ? "timer12_min_us" : "o_r_min_us";
    p.delayed = result[delayed].is_number() ? result[delayed].get<double>() : p.o_r;
    return p;
}

Result<OverheadRun> run_of(const std::string& path, const Json& run)
{
    OverheadRun saved;
    saved.label = run.value("variant", std::string());
    if (saved.label.empty())
        saved.label = run.value("module", std::string("run"));
    if (run.value("pattern", std::string("overhead")) != "overhead")
        return Status::usage(path + ": run '" + saved.label + "' is of pattern " + run["pattern"].dump() +
                             ", not overhead");
    if (!run.contains("results") || !run["results"].is_array() || run["results"].empty())
        return Status::usage(path + ": run '" + saved.label + "' has no results");
    for (const Json& result : run["results"]) {
        NGX_ASSIGN_OR_RETURN(OverheadPoint p, point_of(path + " (" + saved.label + ")", result));
        saved.points.push_back(p);
    }
    std::sort(saved.points.begin(), saved.points.end(),
              [](const OverheadPoint& a, const OverheadPoint& b) { return a.size < b.size; });
    return saved;
}

// Every run of a saved document (a multi-run document's "runs", or the document itself).
Result<std::vector<OverheadRun>> load_runs(const std::string& path)
{
    NGX_ASSIGN_OR_RETURN(Json document, read_json_document(path));
    std::vector<Json> runs;
    if (document.contains("runs") && document["runs"].is_array())
        runs.assign(document["runs"].begin(), document["runs"].end());
    else
        runs.push_back(document);
    std::vector<OverheadRun> out;
    for (const Json& run : runs) {
        NGX_ASSIGN_OR_RETURN(OverheadRun saved, run_of(path, run));
        out.push_back(std::move(saved));
    }
    return out;
}

// Gap per byte: the median of the slopes of the half round trip between
// consecutive sizes (0 with one size). One protocol switch adds a step to
// one slope, and a size whose every round trip stalls (the tcp BTL across
// a veth pair: 4 ms at 96 and 256 KiB) spoils one or two; the two largest
// sizes alone gave 0.03 us/byte there, 60 times the link's.
double gap_per_byte(const OverheadRun& run)
{
    std::vector<double> slopes;
    for (size_t i = 1; i < run.points.size(); ++i) {
        const OverheadPoint& a = run.points[i - 1];
        const OverheadPoint& b = run.points[i];
        slopes.push_back(std::max(0.0, (b.half_rtt - a.half_rtt) / double(b.size - a.size)));
    }
    if (slopes.empty())
        return 0.0;
    std::sort(slopes.begin(), slopes.end());
    size_t n = slopes.size();
    return n % 2 == 1 ? slopes[n / 2] : (slopes[n / 2 - 1] + slopes[n / 2]) / 2;
}

fit::ProtocolParams params_of(const OverheadRun& run)
{
    const OverheadPoint& first = run.points.front();
    fit::ProtocolParams p{first.o_s, first.o_r, 0.0, gap_per_byte(run)};
    p.L = std::max(0.0, first.half_rtt - first.o_s - first.o_r); // eq. (2) solved for L
    return p;
}

double relative_error(double predicted, double measured)
{
    return measured != 0 ? (predicted - measured) / measured : 0.0;
}

constexpr auto loghssp_row =
    opt::row::flag("loghssp", "fit LoGH{sS}P from two runs: INTRA.json (one node) INTER.json (network)");
constexpr auto base_row =
    opt::row::text("base", opt::no_default, "protocols: the run (variant) whose o_s, o_r, L, G are the transport's");

opt::Table fit_table()
{
    return {"ngx fit (overhead)", {loghssp_row, base_row}};
}

const OverheadRun* find_base(const std::vector<OverheadRun>& runs, const std::string& base)
{
    if (base.empty())
        return &runs.front();
    for (const OverheadRun& run : runs)
        if (run.label == base || run.label.ends_with("=" + base))
            return &run;
    return nullptr;
}

Json params_json(const fit::ProtocolParams& p)
{
    return {{"o_s_us", p.o_s}, {"o_r_us", p.o_r}, {"L_us", p.L}, {"G_us_per_byte", p.G}};
}

// One row of the decomposition (its table and its JSON).
Json decompose(const std::string& label, const OverheadPoint& point, const fit::ProtocolParams& p)
{
    fit::Protocol protocol = fit::infer_protocol(p, point.size, {point.o_s, point.delayed, point.half_rtt});
    fit::ProtocolTimes predicted = fit::protocol_times(protocol, p, point.size);
    double error = relative_error(predicted.end_to_end, point.half_rtt);
    return {{"run", label},
            {"size_bytes", point.size},
            {"protocol", fit::protocol_name(protocol)},
            {"predicted_end_to_end_us", predicted.end_to_end},
            {"measured_end_to_end_us", point.half_rtt},
            {"relative_error", error},
            {"predicted_sender_us", predicted.sender},
            {"measured_o_s_us", point.o_s},
            {"measured_o_r_us", point.delayed}};
}

Result<FitOutput> fit_protocols(const std::vector<std::string>& files, opt::Reader& read)
{
    if (files.size() != 1)
        return Status::usage("the protocol decomposition reads one saved overhead run, got " +
                             std::to_string(files.size()) + " files (two: add --loghssp)");
    NGX_ASSIGN_OR_RETURN(const std::vector<OverheadRun> runs, load_runs(files.front()));
    std::string base_name = read.optional(base_row).value_or("");
    const OverheadRun* base = find_base(runs, base_name);
    if (base == nullptr)
        return Status::usage("--base '" + base_name + "': no run of " + files.front() + " has that variant");
    fit::ProtocolParams p = params_of(*base);
    Json rows = Json::array();
    for (const OverheadRun& run : runs)
        for (const OverheadPoint& point : run.points)
            rows.push_back(decompose(run.label, point, p));
    std::vector<Table> tables = {
        table_of_objects("transport (from " + base->label + "): o_s, o_r, L, G; minima of the samples",
                         Json::array({params_json(p)})),
        table_of_objects("protocol decomposition (Al-Tawil and Moritz 1998 eqs. 1-7): run x size -> protocol, "
                         "T_s-r (eqs. 2, 3, 4, 7) and T_s (eqs. 1, 3, 5, 6) against the measured",
                         rows,
                         {"data waited for the receiver (delayed o_r > o_r + (k-1)G + (o_s+2L)/2) -> RTA or RAT "
                          "by T_s-r, else T or TA by T_s; minima of the samples"})};
    Json document{{"pattern", "overhead"},   {"kind", "protocols"},      {"source", files.front()},
                  {"base_run", base->label}, {"params", params_json(p)}, {"rows", rows}};
    return FitOutput{.document = std::move(document), .tables = std::move(tables)};
}

// Eqs. (8) and (9) against both runs at the sizes they share, and the ratio of the tiers.
Json compare_tiers(const fit::Tiers& t, const OverheadRun& intra, const OverheadRun& inter)
{
    Json rows = Json::array();
    for (const OverheadPoint& a : intra.points)
        for (const OverheadPoint& b : inter.points) {
            if (a.size != b.size)
                continue;
            double ratio = a.half_rtt > 0 ? b.half_rtt / a.half_rtt : 0.0;
            rows.push_back({{"size_bytes", a.size},
                            {"intra_predicted_us", fit::intra_time(t.intra, a.size)},
                            {"intra_measured_us", a.half_rtt},
                            {"inter_predicted_us", fit::inter_time(t.inter, a.size)},
                            {"inter_measured_us", b.half_rtt},
                            {"ratio", ratio}});
        }
    return rows;
}

Result<FitOutput> fit_loghssp(const std::vector<std::string>& files)
{
    if (files.size() != 2)
        return Status::usage("--loghssp needs two saved overhead runs, INTRA.json INTER.json; got " +
                             std::to_string(files.size()));
    NGX_ASSIGN_OR_RETURN(const std::vector<OverheadRun> intra, load_runs(files[0]));
    NGX_ASSIGN_OR_RETURN(const std::vector<OverheadRun> inter, load_runs(files[1]));
    fit::Tiers tiers = fit_tiers(intra.front(), inter.front());
    fit::ProtocolParams a = params_of(intra.front()), b = params_of(inter.front());
    double overhead_ratio = (b.o_s + b.o_r) / std::max(1e-9, a.o_s + a.o_r);
    double gap_ratio = a.G > 0 ? b.G / a.G : 0.0;
    Json rows = compare_tiers(tiers, intra.front(), inter.front());
    Json model{{"pattern", "overhead"}, {"kind", "loghssp"}, {"intra_source", files[0]}, {"inter_source", files[1]}};
    model.update(tiers_json(tiers));
    model["ratio"] = {{"overheads", overhead_ratio}, {"gap_per_byte", gap_ratio}, {"sizes", rows}};
    std::vector<Table> tables = {
        tier_parameters_table(model, {"intra: " + files[0], "inter: " + files[1]}), tier_ratio_table(model["ratio"]),
        table_of_objects("eqs. (8) and (9) against both runs at the sizes they share (minimum half round trips)",
                         rows)};
    return FitOutput{.document = std::move(model), .tables = std::move(tables)};
}

// A model file (ngx fit --loghssp -o) is the model; a saved -x loghssp run holds it as its "model".
Result<fit::Tiers> tiers_of(const Json& document, const std::string& path)
{
    const Json& model = document.contains("model") && document["model"].is_object() ? document["model"] : document;
    if (model.value("kind", std::string()) != "loghssp")
        return Status::usage(
            path +
            ": not a LoGH{sS}P model (make one with ngx fit --loghssp INTRA.json INTER.json, or a run of -x loghssp)");
    try {
        const Json& a = model.at("intra");
        const Json& b = model.at("inter");
        return fit::Tiers{
            {a.at("s_s_us").get<double>(), a.at("s_r_us").get<double>(), a.at("S_us_per_byte").get<double>()},
            {b.at("o_s_us").get<double>(), b.at("o_r_us").get<double>(), b.at("L_us").get<double>(),
             b.at("G_us_per_byte").get<double>()}};
    } catch (const Json::exception& e) {
        return Status::usage(path + ": the LoGH{sS}P model is incomplete: " + e.what());
    }
}

// The model alone: a model file (ngx fit --loghssp -o) is one; a saved -x
// loghssp run holds it as its "model" (checked by tiers_of when predicting).
Result<Json> load_loghssp(const std::string& path, const std::string&)
{
    Result<Json> document = read_json_document(path);
    if (!document || !document->contains("model") || !(*document)["model"].is_object())
        return document;
    return Json((*document)["model"]);
}

} // namespace

OverheadPoint overhead_point(const SizeRecord& record)
{
    auto column = [&](const char* name, double otherwise) {
        for (const auto& [key, value] : record.extra)
            if (key == name)
                return value;
        return otherwise;
    };
    OverheadPoint p;
    p.size = record.size_bytes;
    p.o_s = record.summary.min; // min_us in the saved run
    p.o_r = column("o_r_min_us", 0.0);
    p.half_rtt = column("half_rtt_min_us", 0.0);
    p.delayed = column("timer12_min_us", p.o_r);
    return p;
}

fit::Tiers fit_tiers(const OverheadRun& intra, const OverheadRun& inter)
{
    fit::ProtocolParams a = params_of(intra), b = params_of(inter);
    return {{a.o_s, a.o_r, a.G}, {b.o_s, b.o_r, b.L, b.G}};
}

Json tiers_json(const fit::Tiers& t)
{
    return {{"intra", {{"s_s_us", t.intra.s_s}, {"s_r_us", t.intra.s_r}, {"S_us_per_byte", t.intra.S}}},
            {"inter",
             {{"o_s_us", t.inter.o_s}, {"o_r_us", t.inter.o_r}, {"L_us", t.inter.L}, {"G_us_per_byte", t.inter.G}}}};
}

Table tier_parameters_table(const Json& model, std::vector<std::string> notes)
{
    Table table{.title = "LoGH{sS}P (Al-Tawil and Moritz 1998 eqs. 8-9): both tiers' parameters",
                .columns = {{"tier", false}, {"parameter", false}, {"value", true, "-"}},
                .notes = std::move(notes)};
    for (const char* tier : {"intra", "inter"}) {
        const Json parameters = model.value(tier, Json::object());
        for (const auto& [key, value] : parameters.items())
            table.rows.push_back({tier, key, value});
    }
    return table;
}

Table tier_ratio_table(const Json& ratio)
{
    return {.title = "ratio inter/intra: overheads (o_s+o_r)/(s_s+s_r), gap per byte G/S",
            .columns = {{"overheads", true, "-"}, {"gap_per_byte", true, "-"}},
            .rows = {{ratio.value("overheads", Json()), ratio.value("gap_per_byte", Json())}}};
}

Result<FitOutput> overhead_fit(const FitRequest& request)
{
    opt::Reader read(fit_table(), request.values);
    bool loghssp = read(loghssp_row);
    if (!read.ok())
        return Status::usage(read.error());
    return loghssp ? fit_loghssp(request.files) : fit_protocols(request.files, read);
}

std::vector<opt::OptionSpec> overhead_fit_options()
{
    return fit_table().specs();
}

namespace {

Result<Predictions> predict_loghssp(const Json& model, const PredictRequest& request)
{
    opt::Reader read(predict_table("ngx predict (loghssp)"), request.values);
    if (!read.given(predict_option::tier) || !read.given(predict_option::size))
        read.fail("--tier intra|inter and -s SIZE are required");
    std::string tier = read.ok() ? read(predict_option::tier) : "";
    uint64_t size = read.ok() ? read_one(read, predict_option::size, request.op, 0, max_message_bytes).value_or(0) : 0;
    if (!read.ok())
        return Status::usage(read.error());
    NGX_ASSIGN_OR_RETURN(const fit::Tiers tiers, tiers_of(model, request.params));
    bool intra = tier == "intra";
    double us = intra ? fit::intra_time(tiers.intra, size) : fit::inter_time(tiers.inter, size);
    std::ostringstream note;
    note << "p2p " << tier << " " << format_bytes(size) << ": T_s-r (Al-Tawil and Moritz 1998 eq. " << (intra ? 8 : 9)
         << "); ratio inter/intra "
         << fit::inter_time(tiers.inter, size) / std::max(1e-9, fit::intra_time(tiers.intra, size));
    return Predictions{.rows = {{.model = "loghssp", .op = "p2p", .bytes = double(size), .tier = tier, .time_us = us}},
                       .notes = {note.str()}};
}

} // namespace

ModelKind loghssp_model_kind()
{
    return {.name = "loghssp",
            .description = "LoGH{sS}P (Al-Tawil and Moritz 1998, eqs. (8) and (9)): one message within a node "
                           "(intra) and between nodes (inter); made by ngx fit --loghssp INTRA.json INTER.json or "
                           "in one run by -x loghssp",
            .parameters = {{"intra.s_s_us", "us", "send overhead within a node"},
                           {"intra.s_r_us", "us", "receive overhead within a node"},
                           {"intra.S_us_per_byte", "us/B", "gap per byte within a node"},
                           {"inter.o_s_us", "us", "send overhead between nodes"},
                           {"inter.o_r_us", "us", "receive overhead between nodes"},
                           {"inter.L_us", "us", "latency between nodes"},
                           {"inter.G_us_per_byte", "us/B", "gap per byte between nodes"}},
            .ops = {{"p2p",
                     "end-to-end time of one message of -s bytes on --tier intra (eq. (8)) or inter (eq. (9))",
                     {"tier", "size"}}},
            .load = load_loghssp,
            .predict = predict_loghssp,
            .implied_op = [](const OptionValues&) { return std::string("p2p"); }};
}

} // namespace ngx::patterns
