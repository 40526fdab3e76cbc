// Collective predictions from a saved model (see collective_predict.hpp).
#include <models/collectives/collective_predict.hpp>

#include <ngx/model_kind.hpp>

#include <models/collectives/collective_schedule.hpp>
#include <models/collectives/ompi_decision.hpp>
#include <models/contention/contention_model.hpp>
#include <ngx/record.hpp>
#include <ngx/sizes.hpp>

#include <cmath>
#include <limits>
#include <optional>
#include <sstream>

namespace ngx::patterns {
namespace {

constexpr double unknown = std::numeric_limits<double>::quiet_NaN();
const std::vector<fit::CollectiveOp> every_op{
    fit::CollectiveOp::bcast,    fit::CollectiveOp::reduce, fit::CollectiveOp::allreduce, fit::CollectiveOp::allgather,
    fit::CollectiveOp::alltoall, fit::CollectiveOp::gather, fit::CollectiveOp::scatter,   fit::CollectiveOp::barrier};

struct Request {
    fit::CollectiveOp op = fit::CollectiveOp::allreduce;
    std::vector<uint64_t> sizes, ranks;
    std::string algorithm = "all"; // all, auto, or one algorithm's name
    double gamma = 0, segment = 65536, element = 8;
    bool extrapolate = false;
    std::optional<fit::MaxRateParams> link; // --contention: the shared uplink's max-rate fit
    std::string switches;                   // --switches
};

std::string bytes_text(double bytes)
{
    if (bytes >= 1 && bytes == std::floor(bytes))
        return format_bytes(uint64_t(bytes));
    std::ostringstream out;
    out << bytes << " B";
    return out.str();
}

Result<Request> read_request(opt::Reader& read, const CollectiveModel& model)
{
    namespace common = predict_option;
    Request r;
    const std::string op_name = read(common::op);
    r.op = *fit::op_from_name(op_name);
    if (!read.given(common::size) && r.op != fit::CollectiveOp::barrier)
        return Status::usage("-s/--size is required (a size, a range 8-1Mi or a list)");
    r.sizes = read.optional(common::size).value_or(std::vector<uint64_t>{1});
    r.ranks = read.optional(common::processes).value_or(std::vector<uint64_t>{2});
    if (!read.ok())
        return Status::usage(read.error());
    if (r.sizes.back() > max_message_bytes)
        return Status::usage(opt::bad_value("size", read.text_of(common::size), "must be in 0..1Gi"));
    if (r.ranks.front() < 2)
        return Status::usage("-P " + std::to_string(r.ranks.front()) + ": " + op_name + " needs at least 2 processes");
    if (r.ranks.back() > (uint64_t(1) << 30))
        return Status::usage("-P " + std::to_string(r.ranks.back()) + ": at most 2^30 processes");
    if (std::optional<std::string> chosen = read.optional(common::algorithm)) {
        r.algorithm = *chosen;
        const std::optional<fit::Algorithm> a = fit::algorithm_from_name(r.algorithm);
        const std::vector<fit::Algorithm> known = fit::algorithms_of(r.op);
        if (r.algorithm != "all" && r.algorithm != "auto" &&
            (!a || std::find(known.begin(), known.end(), *a) == known.end()))
            return Status::usage("--algorithm " + r.algorithm + ": " + fit::op_name(r.op).data() + " has " +
                                 fit::algorithm_list(r.op) + " (or auto, all)");
    }
    r.gamma = read.optional(common::gamma).value_or(model.gamma_us_per_byte);
    r.segment = double(read.optional(common::segment).value_or(64 * 1024));
    r.element = double(read.optional(common::element).value_or(8));
    r.extrapolate = read(common::extrapolate);
    const std::optional<std::string> contention = read.optional(common::contention);
    r.switches = read.optional(common::switches).value_or("");
    if (!read.ok())
        return Status::usage(read.error());
    if (contention.has_value() != read.given(common::switches))
        return Status::usage("--contention and --switches go together: the uplink's fit and which rank sits on which "
                             "switch");
    if (contention) {
        NGX_ASSIGN_OR_RETURN(r.link, shared_link_from_file(*contention, "--contention"));
        for (uint64_t P : r.ranks)
            if (Result<std::vector<int>> at = fit::parse_switches(r.switches, (long long)P); !at)
                return at.status().with_context("--switches (-P " + std::to_string(P) + ")");
    }
    return r;
}

// One prediction, or why the model cannot make it (the largest message it
// needs beyond the parameters' sizes, or a size it has no finite cost for).
} // namespace

Result<double> checked_prediction(const fit::Collective& c, const CollectiveModel& model, bool extrapolate,
                                  CollectiveCost how, const fit::ScheduleRules& rules)
{
    if (std::string why = fit::check_collective(c); !why.empty())
        return Status::usage(why);
    double largest = 0, unpriced = unknown;
    const fit::MessageCostFn watched = [&](double bytes) {
        const fit::MessageCost m = model.p2p(bytes);
        largest = std::max(largest, bytes);
        if (!std::isfinite(m.send_cpu + m.send_gap + m.arrival + m.recv_cpu + m.recv_gap + m.handshake()))
            unpriced = bytes;
        return m;
    };
    const double t = how == CollectiveCost::closed_form
                         ? fit::predict_collective(c, watched)
                         : fit::evaluate_schedule(fit::collective_schedule(c), watched, rules);
    const std::string what = std::string(fit::op_name(c.op)) + " " + std::string(fit::algorithm_name(c.algorithm)) +
                             " of " + bytes_text(c.bytes) + " over P = " + std::to_string(c.ranks);
    if (std::isfinite(unpriced))
        return Status::usage(what + " sends " + bytes_text(unpriced) +
                             " messages, which the model has no finite cost for (a parameter it needs is unknown)");
    if (largest > model.largest_bytes && !extrapolate)
        return Status::usage(what + " sends messages of " + bytes_text(largest) +
                             ", beyond the largest size the parameters cover (" + bytes_text(model.largest_bytes) +
                             "); measure larger sizes or pass --extrapolate");
    if (!std::isfinite(t))
        return Status::usage(what + ": no prediction (the parameters give no finite cost)");
    return t;
}

namespace {

struct Row {
    long long P = 2;
    double bytes = 1;
    std::vector<std::pair<fit::Algorithm, double>> times; // the algorithms asked for (NaN: skipped)
    std::vector<double> contended;                        // --contention: times[i] plus the uplink's delay
    std::vector<std::string> skipped;                     // why, for each skipped one
    std::pair<fit::Algorithm, double> best{fit::Algorithm::ring, unknown};
    fit::OmpiChoice ompi;
    double ompi_time = unknown; // NaN: Open MPI's choice is not modeled
};

// --contention: each asked algorithm's time plus the delay of the messages
// that cross the uplink together (models/contention/contention.hpp: LoGPC,
// Moritz and Frank 1998/2001, priced with max-rate, Gropp et al. 2016). A
// schedule without rounds is the error when its algorithm was asked for by
// name, else skipped with the reason.
Status price_contention_of(const Request& r, long long P, double bytes, Row& row)
{
    const Result<std::vector<int>> at = fit::parse_switches(r.switches, P); // checked in read_request
    for (const auto& [a, t] : row.times) {
        row.contended.push_back(unknown);
        if (!at || !std::isfinite(t))
            continue;
        const Result<fit::ContentionPrice> c = fit::price_contention(
            fit::collective_schedule(fit::Collective{r.op, a, P, bytes, r.gamma, r.segment}), *at, *r.link);
        const std::string what = "--contention: " + std::string(fit::algorithm_name(a));
        if (!c && r.algorithm == fit::algorithm_name(a))
            return c.status().with_context(what);
        if (!c)
            row.skipped.push_back(what + ": " + c.status().message());
        else
            row.contended.back() = t + c->delay_us;
    }
    return Status::ok();
}

Result<Row> price_row(const Request& r, const CollectiveModel& model, long long P, double bytes)
{
    Row row;
    row.P = P;
    row.bytes = bytes;
    row.ompi = fit::ompi_tuned_choice(r.op, P, bytes, r.element);
    for (fit::Algorithm a : fit::algorithms_of(r.op)) {
        const bool asked = r.algorithm == "all" || r.algorithm == fit::algorithm_name(a) ||
                           (r.algorithm == "auto" && row.ompi.modeled == a);
        if (!asked && r.algorithm != "auto")
            continue;
        Result<double> t =
            checked_prediction(fit::Collective{r.op, a, P, bytes, r.gamma, r.segment}, model, r.extrapolate);
        // Asked for one algorithm, what stops it is the error; among several,
        // the others are still worth showing (an error only if none is left).
        if (!t && r.algorithm == fit::algorithm_name(a))
            return t.status();
        if (!t) {
            row.skipped.push_back(t.status().message());
            if (asked)
                row.times.emplace_back(a, unknown);
            continue;
        }
        if (asked)
            row.times.emplace_back(a, *t);
        if (!(*t >= row.best.second))
            row.best = {a, *t};
    }
    if (r.link)
        NGX_TRY(price_contention_of(r, P, bytes, row));
    // Open MPI's choice costed as Open MPI runs it: unsegmented (see
    // OmpiChoice::segment_bytes), whatever --segment the columns use.
    if (row.ompi.modeled) {
        const fit::Collective c{r.op, *row.ompi.modeled, P, bytes, r.gamma, row.ompi.segment_bytes};
        if (Result<double> t = checked_prediction(c, model, r.extrapolate))
            row.ompi_time = *t;
    }
    if (!std::isfinite(row.best.second))
        return Status::usage(row.skipped.empty() ? "no algorithm to predict" : row.skipped.front());
    return row;
}

std::string ompi_text(const Row& row)
{
    std::string text = row.ompi.name + " (" + std::to_string(row.ompi.id) + ")";
    if (!row.ompi.modeled)
        return text + ", not modeled by ngx";
    if (std::string(fit::algorithm_name(*row.ompi.modeled)) != row.ompi.name)
        text += " as ngx's " + std::string(fit::algorithm_name(*row.ompi.modeled));
    return text;
}

// What the rows show beside the predictions: the best algorithm, Open MPI's
// choice and why an algorithm was skipped, one line each.
std::vector<std::string> row_notes(const Row& row, bool several)
{
    std::ostringstream best, ompi;
    const std::string at = several ? "P = " + std::to_string(row.P) + ", " + bytes_text(row.bytes) + ": " : "";
    best << at << "best: " << fit::algorithm_name(row.best.first) << " (" << row.best.second << " us)";
    ompi << at << "Open MPI 4.1 tuned (fixed rules) runs: " << ompi_text(row);
    if (std::isfinite(row.ompi_time))
        ompi << ", predicted " << row.ompi_time << " us";
    else if (row.ompi.modeled)
        ompi << ", not predicted (skipped)";
    if (!row.ompi.note.empty())
        ompi << " [" << row.ompi.note << "]";
    std::vector<std::string> notes = {best.str(), ompi.str()};
    for (const std::string& why : row.skipped)
        notes.push_back(at + "skipped: " + why);
    return notes;
}

Predictions rows_predictions(const Request& r, const CollectiveModel& model, const std::vector<Row>& rows)
{
    Predictions out;
    std::ostringstream header;
    header << fit::op_name(r.op) << ", " << model.description << ", gamma = " << r.gamma << " us/B";
    out.notes.push_back(header.str());
    if (r.link)
        out.notes.push_back("model " + model.kind + "+contention: the same plus the delay of messages crossing the " +
                            "uplink together (switches " + r.switches + "; LoGPC priced with max-rate)");
    Json best = Json::array(), ompi = Json::array(), skipped = Json::array();
    const std::string op(fit::op_name(r.op));
    for (const Row& row : rows) {
        for (const auto& [a, t] : row.times)
            out.rows.push_back({.model = model.kind,
                                .op = op,
                                .bytes = row.bytes,
                                .processes = double(row.P),
                                .algorithm = std::string(fit::algorithm_name(a)),
                                .time_us = std::isfinite(t) ? t : unknown});
        for (size_t i = 0; i < row.contended.size(); ++i) // --contention: the same with the uplink's delay
            out.rows.push_back({.model = model.kind + "+contention",
                                .op = op,
                                .bytes = row.bytes,
                                .processes = double(row.P),
                                .algorithm = std::string(fit::algorithm_name(row.times[i].first)),
                                .time_us = row.contended[i]});
        for (const std::string& note : row_notes(row, rows.size() > 1))
            out.notes.push_back(note);
        for (const std::string& why : row.skipped)
            skipped.push_back(why);
        best.push_back({{"P", row.P},
                        {"bytes", row.bytes},
                        {"algorithm", fit::algorithm_name(row.best.first)},
                        {"time_us", row.best.second}});
        Json choice = {{"P", row.P},
                       {"bytes", row.bytes},
                       {"id", row.ompi.id},
                       {"algorithm", row.ompi.name},
                       {"modeled_by", nullptr},
                       {"time_us", nullptr}};
        if (row.ompi.modeled) {
            choice["modeled_by"] = fit::algorithm_name(*row.ompi.modeled);
            choice["time_us"] = row.ompi_time;
        }
        ompi.push_back(choice);
    }
    out.about = {{"description", model.description}, {"gamma_us_per_byte", r.gamma}};
    out.summary = {{"skipped", skipped}, {"best", best}, {"open_mpi_4_1_tuned", ompi}};
    return out;
}

double saved_gamma(const Json& model)
{
    const auto it = model.find("gamma_us_per_byte");
    return it != model.end() && it->is_number() && it->get<double>() >= 0 ? it->get<double>() : 0;
}

} // namespace

CollectiveModel loggp_collective_model(const fit::LogGPParams& params, const Json& model)
{
    const double largest = params.ranges.empty() ? 0 : params.ranges.back().to_bytes;
    return {fit::loggp_message_cost(params),
            "LogGP, " + std::to_string(params.ranges.size()) + " protocol range(s) up to " + bytes_text(largest),
            largest, saved_gamma(model), "loggp"};
}

CollectiveModel loggps_collective_model(const fit::LogGPSParams& params, const Json& model)
{
    const std::string S = std::isfinite(params.S) ? bytes_text(params.S) : "none";
    return {fit::loggps_message_cost(params), "LogGPS, rendezvous above S = " + S,
            std::numeric_limits<double>::infinity(), saved_gamma(model), "loggps"};
}

bool is_collective_op(const std::string& op)
{
    return fit::op_from_name(op).has_value();
}

std::string collective_op_names()
{
    std::string names;
    for (fit::CollectiveOp op : every_op)
        names += (names.empty() ? "" : ", ") + std::string(fit::op_name(op));
    return names;
}

Result<Predictions> predict_collectives(opt::Reader& read, const CollectiveModel& model)
{
    NGX_ASSIGN_OR_RETURN(const Request request, read_request(read, model));
    std::vector<Row> rows;
    for (uint64_t P : request.ranks)
        for (uint64_t bytes : request.sizes) {
            NGX_ASSIGN_OR_RETURN(Row row, price_row(request, model, (long long)P, double(bytes)));
            rows.push_back(std::move(row));
        }
    return rows_predictions(request, model, rows);
}

} // namespace ngx::patterns
