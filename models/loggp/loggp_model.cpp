// LogGP fit results to and from JSON (see loggp_model.hpp).
#include <models/loggp/loggp_model.hpp>

#include <models/base/model_json.hpp>

#include <models/loggp/exchange_share.hpp>
#include <models/loggp/loggopsim.hpp>
#include <models/loggp/loggp_quality.hpp>
#include <ngx/json_input.hpp>
#include <ngx/sizes.hpp>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace ngx::patterns {
namespace {

// The line's intercept and slope, or the plain value when no line was fitted
// (a range of one size): the same o(s) LogGPRange::o_at gives.

// How the range's parameters were found: "joint" (models/loggp/loggp_joint.hpp) or
// "paper", the paper's and the joint mean relative errors, and the costs
// held at 0.
Json fit_json(const fit::LogGPRangeDetail& detail)
{
    Json held = Json::array();
    for (const std::string& name : detail.held_at_zero)
        held.push_back(name);
    if (!detail.joint)
        return {{"fit", "paper"}, {"held_at_zero", held}};
    const fit::JointFit& j = *detail.joint;
    for (const std::string& name : j.held_at_zero)
        if (std::find(held.begin(), held.end(), name) == held.end())
            held.push_back(name);
    return {{"fit", j.improved ? "joint" : "paper"},
            {"paper_mean_relative", json_number(j.paper_mean_rel)},
            {"joint_mean_relative", json_number(j.joint_mean_rel)},
            {"paper_max_relative", json_number(j.paper_max_rel)},
            {"joint_max_relative", json_number(j.joint_max_rel)},
            {"held_at_zero", held}};
}

} // namespace

std::string not_loggp_text(const fit::LogGPRange& range)
{
    const std::vector<std::string> negative = range.negative_parameters();
    if (negative.empty())
        return "";
    std::ostringstream out;
    out << "not LogGP: ";
    for (size_t i = 0; i < negative.size(); ++i)
        out << (i ? ", " : "") << negative[i];
    out << " < 0, which no admissible model of the range (every parameter >= 0) could replace within the goal";
    // Hoefler et al. 2007 section 3.4: o and L overlap; eq. (1) then leaves no room for L
    if (range.L.value < 0)
        out << "; L < 0: the overheads o_s + o_r exceed PRTT(1,0,s)/2 - (s-1)G here (o and L overlap, or the range "
               "is a rendezvous protocol); use L_eel_us";
    if (range.g.value < 0)
        out << "; g < 0: the stream's time per message grows faster than its size (eq. (7)'s line crosses 0 "
               "inside the range)";
    if (loggopsim_exportable(range))
        out << "; LogGOPSim's export carries its round trip with parameters >= 0 (a comment line there says how)";
    else
        out << "; LogGOPSim's export refuses it";
    return out.str();
}

namespace {

Json range_json(const fit::LogGPRange& range, const fit::LogGPRangeDetail& detail)
{
    const fit::Measured &o_s = range.send_line.at_one, &O_s = range.send_line.per_byte;
    const fit::Measured &o_r = range.recv_line.at_one, &O_r = range.recv_line.per_byte;
    Json json = {{"from_bytes", range.from_bytes},
                 {"to_bytes", range.to_bytes},
                 {"L_us", json_number(range.L.value)},
                 {"o_us", json_number(o_s.value)},
                 {"O_us_per_byte", json_number(O_s.value)},
                 {"o_r_us", json_number(o_r.value)},
                 {"O_r_us_per_byte", json_number(O_r.value)},
                 {"g_us", json_number(range.g.value)},
                 {"G_us_per_byte", json_number(range.G.value)},
                 {"o_mean_us", json_number(detail.o_mean.value)},
                 {"overlapped", range.overlapped},
                 {"intervals",
                  {{"L_us", measured_json(range.L)},
                   {"o_us", measured_json(o_s)},
                   {"O_us_per_byte", measured_json(O_s)},
                   {"o_r_us", measured_json(o_r)},
                   {"O_r_us_per_byte", measured_json(O_r)},
                   {"g_us", measured_json(range.g)},
                   {"G_us_per_byte", measured_json(range.G)}}}};
    json.update(fit_json(detail));
    if (range.overlapped)
        json["note"] = "overlapped: the per-byte costs run at once (a pipelined transfer), so eq. (1) pays "
                       "(s-1) max(O_s, O_r, G) once instead of their sum, as LogGOPSim's round trip does";
    const std::vector<std::string> negative = range.negative_parameters();
    json["admissible"] = negative.empty();
    if (!negative.empty()) {
        json["negative_parameters"] = negative;
        json["warning"] = not_loggp_text(range);
    }
    return json;
}

// Per range: the CPU share of the per-byte overheads from the measured exchanges
// (models/loggp/exchange_share.hpp), set on the range; nullopt where none was measured.
std::vector<std::optional<fit::ExchangeShareFit>> fit_exchange_shares(const std::vector<fit::PrttSample>& samples,
                                                                      fit::LogGPFit& f)
{
    std::vector<std::optional<fit::ExchangeShareFit>> shares(f.params.ranges.size());
    for (size_t i = 0; i < shares.size(); ++i) {
        const fit::Range& at = f.details[i].indices;
        shares[i] = fit::fit_exchange_share(f.params.ranges[i], std::span(samples).subspan(at.first, at.count()));
        if (shares[i])
            f.params.ranges[i].exchange_cpu_share = shares[i]->share;
    }
    return shares;
}

void add_exchange_share(Json& range, const std::optional<fit::ExchangeShareFit>& share)
{
    if (!share)
        return;
    range["exchange_cpu_share"] = json_number(share->share);
    range["intervals"]["exchange_cpu_share"] = measured_json(fit::Measured::exact(share->share));
    range["exchange"] = {{"points", share->points},
                         {"mean_relative", json_number(share->mean_rel)},
                         {"mean_relative_all_cpu", json_number(share->mean_rel_cpu)}};
    std::ostringstream note;
    note << "exchange: the CPU takes " << share->share << " of O_s and O_r while the rank sends and receives ("
         << share->points << " sizes exchanged both ways; mean error " << 100 * share->mean_rel
         << "%, with all of them as CPU time " << 100 * share->mean_rel_cpu << "%)";
    const std::string before = range.contains("note") ? range["note"].get<std::string>() + "; " : "";
    range["note"] = before + note.str();
}

std::string percent(double fraction)
{
    std::ostringstream out;
    out << std::setprecision(3) << 100 * fraction << "%";
    return out.str();
}

Json error_json(const fit::ModelError& error)
{
    return {{"mean_relative", json_number(error.mean_rel)}, {"max_relative", json_number(error.max_rel)}};
}

Json curves_json(const fit::CurveErrors& errors)
{
    return {{"prtt_1_0", error_json(errors.prtt_1_0)},
            {"prtt_n_0", error_json(errors.prtt_n_0)},
            {"prtt_n_d", error_json(errors.prtt_n_d)},
            {"all", error_json(errors.all)}};
}

Json miss_json(const fit::QualityMiss& miss)
{
    return {{"size_bytes", miss.size},
            {"curve", fit::curve_name(miss.curve)},
            {"measured_us", json_number(miss.measured)},
            {"predicted_us", json_number(miss.predicted)},
            {"relative_error", json_number(miss.rel_error)},
            {"reason", fit::reason_name(miss.reason)},
            {"switch_after_bytes", json_number(miss.switch_after_bytes)}};
}

// One line for the printed table: which sizes miss, by how much, and why.
std::string miss_summary(const fit::RangeQuality& range, const fit::QualityGoal& goal)
{
    std::ostringstream out;
    out << "fit misses the goal (mean <= " << percent(goal.mean_rel) << ", max <= " << percent(goal.max_rel)
        << "): mean " << percent(range.error.all.mean_rel) << ", max " << percent(range.error.all.max_rel) << ";";
    constexpr size_t shown = 6;
    for (size_t i = 0; i < range.misses.size() && i < shown; ++i) {
        const fit::QualityMiss& m = range.misses[i];
        out << (i ? "," : "") << " " << format_bytes(uint64_t(m.size)) << " " << fit::curve_name(m.curve) << " "
            << percent(m.rel_error) << " (" << fit::reason_name(m.reason);
        if (std::isfinite(m.switch_after_bytes))
            out << " after " << format_bytes(uint64_t(m.switch_after_bytes));
        out << ")";
    }
    if (range.misses.size() > shown)
        out << " and " << range.misses.size() - shown << " more (model.quality)";
    return out.str();
}

Json quality_json(const fit::LogGPQuality& quality)
{
    Json ranges = Json::array();
    for (const fit::RangeQuality& r : quality.ranges) {
        Json misses = Json::array();
        for (const fit::QualityMiss& m : r.misses)
            misses.push_back(miss_json(m));
        ranges.push_back({{"from_bytes", r.from_bytes},
                          {"to_bytes", r.to_bytes},
                          {"points", r.points},
                          {"meets_goal", r.meets_goal},
                          {"error", curves_json(r.error)},
                          {"misses", misses}});
    }
    return {{"goal", {{"mean_relative", quality.goal.mean_rel}, {"max_relative", quality.goal.max_rel}}},
            {"meets_goal", quality.meets_goal},
            {"overall", curves_json(quality.overall)},
            {"ranges", ranges}};
}

// Appends the quality of each range to its printed warning.
void warn_misses(Json& ranges, const fit::LogGPQuality& quality)
{
    for (size_t i = 0; i < ranges.size() && i < quality.ranges.size(); ++i) {
        if (quality.ranges[i].meets_goal)
            continue;
        std::string summary = miss_summary(quality.ranges[i], quality.goal);
        Json& range = ranges[i];
        range["warning"] = range.contains("warning") ? range["warning"].get<std::string>() + "; " + summary : summary;
    }
}

// Sizes are measured one after the other, so their medians scatter by more
// than each size's own interval shows (a burst of machine noise lands on one
// size: tcp's within-size noise was 2.8% where neighbouring sizes scattered
// by 22%, and the within-size value alone split tcp at 8 B and 1 KiB). The
// noise is therefore at least the scatter between neighbouring sizes, robustly:
// per size the relative distance of PRTT(1,0,s) from the straight line in s
// through its two neighbours (eq. (1) is a line in s within a protocol
// range, so only noise and switches leave it; the second difference of ln
// PRTT(1,0,s) also read the curvature of a line seen at geometric sizes as
// noise: 6.5% on shm, where the within-size noise was 1%, and the 56-byte
// switch then went unseen), each divided by its standard deviation under
// white noise, sqrt(1 + w_a^2 + w_c^2) for interpolation weights w_a, w_c;
// their median / 0.6745 (the median |N(0,1)|); and at least 1% (sim: 20-40
// ns steps on 20 us against 3 ns intervals, and with
// 0.1% a sim run split at 5, 10 and 4241 B; the switches to find, shm's
// inline limit and sim's rendezvous, are steps of 30% and more).
constexpr double min_relative_noise = 0.01;

double neighbour_scatter(const std::vector<fit::PrttSample>& samples)
{
    std::vector<double> off_line;
    for (size_t i = 1; i + 1 < samples.size(); ++i) {
        const fit::PrttSample &left = samples[i - 1], &mid = samples[i], &right = samples[i + 1];
        const double span = right.size - left.size;
        if (!(mid.prtt_1_0 > 0) || !(span > 0))
            continue;
        const double w_left = (right.size - mid.size) / span, w_right = (mid.size - left.size) / span;
        const double line = w_left * left.prtt_1_0 + w_right * right.prtt_1_0;
        off_line.push_back(std::fabs(mid.prtt_1_0 - line) / mid.prtt_1_0 /
                           std::sqrt(1 + w_left * w_left + w_right * w_right));
    }
    if (off_line.empty())
        return 0;
    std::nth_element(off_line.begin(), off_line.begin() + off_line.size() / 2, off_line.end());
    return off_line[off_line.size() / 2] / 0.6745;
}

double relative_noise(const std::vector<fit::PrttSample>& samples, const std::vector<double>& rel_ci)
{
    std::vector<double> finite;
    for (double width : rel_ci)
        if (std::isfinite(width) && width > 0)
            finite.push_back(width);
    if (finite.empty())
        return fit::Measured::nan; // not measured: the detector estimates it
    std::nth_element(finite.begin(), finite.begin() + finite.size() / 2, finite.end());
    double within = finite[finite.size() / 2] / (2 * 1.96); // half-width of a 95% interval / 1.96
    return std::max({within, neighbour_scatter(samples), min_relative_noise});
}

fit::LogGPOptions fit_options(const LogGPFitSettings& settings)
{
    fit::LogGPOptions options;
    options.method = settings.detector == "paper"  ? fit::ChangePointMethod::paper
                     : settings.detector == "none" ? fit::ChangePointMethod::none
                                                   : fit::ChangePointMethod::robust;
    options.paper.lookahead = std::size_t(settings.lookahead);
    options.paper.pfact = settings.pfact;
    options.robust.lookahead = std::size_t(settings.lookahead);
    options.robust.pfact = settings.pfact;
    options.weights = settings.weights == "none" ? fit::Weighting::none : fit::Weighting::relative;
    options.joint = settings.fit == "joint";
    options.split_misfits = true; // robust detector only (fit_loggp): `paper` stays as published
    options.signed_when_missing = settings.negative == "yes";
    return options;
}

Json sizes_at(const std::vector<fit::PrttSample>& samples, const std::vector<std::size_t>& indices)
{
    Json sizes = Json::array();
    for (std::size_t i : indices)
        sizes.push_back(samples[i].size);
    return sizes;
}

Result<double> field(const Json& object, const char* name)
{
    if (!object.contains(name) || !object[name].is_number())
        return Status::usage(std::string("model range without a numeric '") + name + "'");
    return object[name].get<double>();
}

Result<fit::Measured> exact_field(const Json& range, const char* name)
{
    NGX_ASSIGN_OR_RETURN(double value, field(range, name));
    return fit::Measured::exact(value);
}

bool has_number(const Json& range, const char* name)
{
    return range.contains(name) && range[name].is_number();
}

// o(s) as saved: intercept and slope when both are there, else a constant.
void read_overheads(const Json& range, fit::LogGPRange& r)
{
    if (has_number(range, "exchange_cpu_share"))
        r.exchange_cpu_share = range["exchange_cpu_share"].get<double>();
    r.overlapped = range.contains("overlapped") && range["overlapped"].is_boolean() && range["overlapped"].get<bool>();
    if (has_number(range, "O_us_per_byte"))
        r.send_line.per_byte = fit::Measured::exact(range["O_us_per_byte"].get<double>());
    if (has_number(range, "o_r_us")) {
        r.recv_line.at_one = fit::Measured::exact(range["o_r_us"].get<double>());
        if (has_number(range, "O_r_us_per_byte"))
            r.recv_line.per_byte = fit::Measured::exact(range["O_r_us_per_byte"].get<double>());
    }
}

} // namespace

Json predictions_at(const fit::LogGPParams& params, double s, double n)
{
    const fit::LogGPRange* range = params.range_for(s);
    if (range == nullptr)
        return Json::object();
    const double prtt_1_0 = params.rtt(s); // Hoefler et al. 2007, eq. (1)
    // eq. (5) with d = 0, per message: max(o_s(s), g + (s-1)G), the y(s) the pattern measures
    const double gap = n > 1 ? (params.prtt(n, 0, s) - prtt_1_0) / (n - 1) : fit::Measured::nan;
    return {{"predicted_prtt_us", json_number(prtt_1_0)},
            {"predicted_gap_us", json_number(gap)},
            {"predicted_o_s_us", json_number(range->o_at(s))},
            {"predicted_o_r_us", json_number(range->o_r_at(s))}};
}

std::vector<std::pair<std::string, double>> loggp_size_columns(const fit::PrttSample& sample, double n)
{
    std::vector<std::pair<std::string, double>> columns = {
        {"prtt_n_0_us", sample.prtt_n_0},
        {"prtt_n_d_us", sample.prtt_n_d},
        {"delay_us", sample.delay},
        {"o_s_us", (sample.prtt_n_d - sample.prtt_1_0) / (n - 1) - sample.delay}, // eq. (6)
    };
    if (sample.o_r)
        columns.emplace_back("o_r_us", *sample.o_r);
    columns.emplace_back("gap_us", (sample.prtt_n_0 - sample.prtt_1_0) / (n - 1)); // eq. (7): g + (s-1)G
    return columns;
}

namespace {

constexpr auto loggp_detector = opt::row::choice("loggp-detector", "robust", {"robust", "paper", "none"},
                                                 "protocol-change detection: robust, paper (section 3.5 as published) "
                                                 "or none");
constexpr auto loggp_lookahead =
    opt::row::whole_number("loggp-lookahead", "5", 1, 100, "x: points of look-ahead (section 3.5)");
constexpr auto loggp_pfact =
    opt::row::number("loggp-pfact", "2.0", 1.0000001, 1000, "pfact: sensitivity (section 3.5)");
constexpr auto loggp_weights =
    opt::row::choice("loggp-weights", "relative", {"relative", "none"},
                     "least-squares weights: relative (1/y^2, ngx) or none (the paper's plain fit)");
constexpr auto loggp_fit =
    opt::row::choice("loggp-fit", "joint", {"joint", "paper"},
                     "joint (ngx: all parameters of a range together, where that reproduces the measurements better) "
                     "or paper (each from its own equation)");
constexpr auto loggp_negative =
    opt::row::choice("loggp-negative", opt::no_default, {"yes", "no"},
                     "yes (default): where no model of parameters >= 0 meets the goal, one with a parameter below 0 "
                     "that does (the range then says it is not LogGP); no (the main job's; `ngx fit`: the saved "
                     "run's): every parameter >= 0, such a range misses the goal and says so");

} // namespace

opt::Table fit_options()
{
    return {"the LogGP fit", {loggp_detector, loggp_lookahead, loggp_pfact, loggp_weights, loggp_fit, loggp_negative}};
}

LogGPFitSettings read_fit_settings(opt::Reader& read, const std::string& saved_negative)
{
    LogGPFitSettings settings;
    settings.detector = read(loggp_detector);
    settings.lookahead = double(read(loggp_lookahead));
    settings.pfact = read(loggp_pfact);
    settings.weights = read(loggp_weights);
    settings.fit = read(loggp_fit);
    const std::optional<std::string> negative = read.optional(loggp_negative);
    settings.negative = negative ? *negative : !saved_negative.empty() ? saved_negative : settings.negative;
    return settings;
}

Json fit_settings_json(const LogGPFitSettings& settings)
{
    return {{"detector", settings.detector}, {"lookahead", settings.lookahead},
            {"pfact", settings.pfact},       {"weights", settings.weights},
            {"fit", settings.fit},           {"negative", settings.negative}};
}

constexpr const char* paper_method =
    "Hoefler et al. 2007: o by eq. (6), g and G by least squares over eq. (7), L by eq. (1)";
constexpr const char* joint_method =
    "Hoefler et al. 2007's estimates (o by eq. (6), g and G by eq. (7), L by eq. (1)), then per range all parameters "
    "together by weighted least squares over eqs. (1) and (5) and the measured o_r, where that reproduces the "
    "measurements better (ranges[].fit)";

Result<Json> fit_loggp_model(const std::vector<fit::PrttSample>& samples, double n, const LogGPFitSettings& settings,
                             const std::vector<double>& rel_ci)
{
    if (!rel_ci.empty() && rel_ci.size() != samples.size())
        return Status::runtime("LogGP fit: one measured spread per size expected");
    fit::LogGPOptions options = fit_options(settings);
    options.relative_noise = relative_noise(samples, rel_ci);
    // The samples come from a run (measured now or saved): a fit that fails is
    // a runtime error (exit 1) whatever kind fit/ gives it.
    Result<fit::LogGPFit> fitted = fit::fit_loggp(samples, n, options);
    if (!fitted)
        return Status::runtime("LogGP fit: " + fitted.status().message());
    fit::LogGPFit& f = *fitted;
    std::vector<std::optional<fit::ExchangeShareFit>> shares = fit_exchange_shares(samples, f);
    std::vector<double> widths = rel_ci;
    for (double& w : widths)
        if (!std::isfinite(w))
            w = 0; // unknown: no noise reason for that size
    fit::QualityOptions quality_options;
    quality_options.rel_ci = widths;
    Result<fit::LogGPQuality> quality = fit::assess_loggp(samples, n, f.params, quality_options);
    if (!quality)
        return Status::runtime("LogGP fit quality: " + quality.status().message());
    Json ranges = Json::array();
    Json change_points = Json::array();
    for (size_t i = 0; i < f.params.ranges.size(); ++i) {
        const fit::LogGPRange& range = f.params.ranges[i];
        ranges.push_back(range_json(range, f.details[i]));
        add_exchange_share(ranges.back(), shares[i]);
        if (range.from_bytes > f.params.ranges.front().from_bytes)
            change_points.push_back(range.from_bytes);
    }
    warn_misses(ranges, *quality);
    Json per_size = Json::array();
    for (size_t i = 0; i < samples.size(); ++i) {
        Json row = {{"size_bytes", samples[i].size},
                    {"o_us", json_number(f.o_per_size[i])},
                    {"gap_us", json_number(f.gap_per_size[i])},
                    {"L_us", json_number(f.L_per_size[i])}};
        row.update(predictions_at(f.params, samples[i].size, n));
        per_size.push_back(std::move(row));
    }
    return Json{{"kind", "loggp"},
                {"method", settings.fit == "joint" ? joint_method : paper_method},
                {"fit", settings.fit},
                {"n", n},
                {"detector", settings.detector},
                {"lookahead", settings.lookahead},
                {"pfact", settings.pfact},
                {"weights", settings.weights},
                {"negative", settings.negative},
                {"relative_noise", json_number(options.relative_noise)},
                {"L_eel_us", measured_json(f.params.eel)},
                {"L_eel_size_bytes", f.params.eel_size},
                {"ranges", ranges},
                {"change_points_bytes", change_points},
                {"per_size", per_size},
                {"delay_too_small_bytes", sizes_at(samples, f.delay_too_small)},
                {"overhead_above_gap_bytes", sizes_at(samples, f.overhead_above_gap)},
                {"prediction_error",
                 {{"max_relative", json_number(f.error.max_rel)},
                  {"mean_relative", json_number(f.error.mean_rel)},
                  {"rms_us", json_number(f.error.rms)}}},
                {"quality", quality_json(*quality)}};
}

Result<fit::LogGPParams> loggp_params_from_model(const Json& model)
{
    if (model.is_object() && model.contains("kind") && model["kind"] != "loggp")
        return Status::usage("the model is of kind " + model["kind"].dump() + ", not loggp");
    if (!model.is_object() || !model.contains("ranges") || !model["ranges"].is_array() || model["ranges"].empty())
        return Status::usage("no LogGP parameters: expected model.ranges with at least one range");
    fit::LogGPParams params;
    for (const Json& range : model["ranges"]) {
        fit::LogGPRange r;
        Result<double> from = field(range, "from_bytes"), to = field(range, "to_bytes");
        Result<fit::Measured> L = exact_field(range, "L_us"), o = exact_field(range, "o_us"),
                              g = exact_field(range, "g_us"), G = exact_field(range, "G_us_per_byte");
        for (const Status* s : {&from.status(), &to.status(), &L.status(), &o.status(), &g.status(), &G.status()})
            if (!s->is_ok())
                return *s;
        for (const auto& [name, bytes] : {std::pair{"from_bytes", *from}, std::pair{"to_bytes", *to}})
            if (!(bytes >= 0 && bytes <= double(max_json_bytes_field) && bytes == std::floor(bytes)))
                return Status::usage(std::string("model range: \"") + name + "\" is " + range[name].dump() +
                                     ", expected a whole number of bytes in 0..2^53");
        r.from_bytes = *from;
        r.to_bytes = *to;
        r.L = *L;
        r.send_line.at_one = *o;
        r.g = *g;
        r.G = *G;
        read_overheads(range, r);
        if (!(std::isnan(r.exchange_cpu_share) || (r.exchange_cpu_share >= 0 && r.exchange_cpu_share <= 1)))
            return Status::usage("model range: \"exchange_cpu_share\" is " + range["exchange_cpu_share"].dump() +
                                 ", expected a share of O_s and O_r in 0..1");
        if (!params.ranges.empty() && r.from_bytes <= params.ranges.back().from_bytes)
            return Status::usage("model ranges are not in increasing size order");
        params.ranges.push_back(r);
    }
    return params;
}

} // namespace ngx::patterns
