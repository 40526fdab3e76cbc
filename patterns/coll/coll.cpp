// Pattern "coll": a collective operation measured over P ranks as IMB and
// OSU measure it, with the prediction of its model next to each point.
//
// For a pairwise module (sim, tcp, ...; per-peer links, NGX_CAP_PEER_LINKS)
// it runs ngx's own implementation of each algorithm: the message schedule
// models/collectives/collective_schedule.hpp lists for the algorithm, rank by rank, played
// over the module's send and receive (schedule_run.hpp), the reductions a
// real sum of doubles. The schedule is the one `ngx predict` and `ngx export
// --goal` are made of, so the measurement, the prediction and LogGOPSim's
// run look at the same messages.
//
// Over a module with the library's own collectives (mpi: ABI 1.6
// collective, NGX_CAP_LIBRARY_COLLECTIVES), --coll-algorithm library
// measures MPI_Bcast, MPI_Allreduce, ... themselves; their prediction is that
// of the algorithm Open MPI's tuned component would choose
// (models/collectives/ompi_decision.hpp), named in the row.
//
// Each repetition starts at a barrier; each rank times its own part, and a
// repetition lasts as long as its slowest rank: the row's samples are those
// maxima (gathered on rank 0). Over the ranks, min/avg/max of each rank's
// mean time (IMB's t_min, t_avg, t_max). With --coll-params FILE (a saved
// LogGP or LogGPS model) each row gets the prediction: the event-by-event
// evaluation of the same schedule under the model (collective_schedule.hpp;
// the closed form of `ngx predict` as well), and the error of the median
// slowest-rank time against it.
//
// With --coll-contention FILE (a congestion run across a shared uplink, its
// max-rate fit) and --coll-switches (each rank's switch, "0,0,1,1") each row
// also gets the prediction with contention: the LogGP prediction plus the
// delay the uplink adds where a round's messages cross it together
// (models/contention/contention.hpp: LoGPC, Moritz and Frank 1998/2001,
// priced with max-rate, Gropp et al. 2016), and its error beside the other.
#include <models/collectives/collective_schedule.hpp>
#include <models/collectives/ompi_decision.hpp>
#include <ngx/pattern_plugin.hpp>
#include <ngx/sizes.hpp>

#include <ngx/measure/sweep.hpp>
#include <models/collectives/collective_predict.hpp>
#include <models/loggp/loggp_model.hpp>
#include <models/loggps/loggps_model.hpp>
#include <models/base/offline.hpp>
#include <models/contention/contention_model.hpp>
#include "schedule_run.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <numeric>
#include <optional>

namespace ngx::patterns {
namespace {

// Whether ngx runs its own implementation of `a`: Open MPI's linear alltoall
// (every receive and send posted at once) is priced for the library rows, but
// its schedule, played one blocking call after another, would deadlock.
bool runs_own(fit::CollectiveOp op, fit::Algorithm a)
{
    return !(op == fit::CollectiveOp::alltoall && a == fit::Algorithm::linear);
}

constexpr double unknown = std::numeric_limits<double>::quiet_NaN();

constexpr auto coll_op = opt::row::text(
    "coll-op", "allreduce", "the collective: bcast, reduce, allreduce, allgather, alltoall, gather, scatter, barrier");
constexpr auto coll_algorithm =
    opt::row::text("coll-algorithm", "all",
                   "one algorithm of the op (ngx predict's names), all, or library: the module's own collective (mpi: "
                   "MPI_Allreduce, ...; predicted as Open MPI's tuned choice)");
constexpr auto coll_params = opt::row::text(
    "coll-params", "", "a saved LogGP or LogGPS model (-x loggp/loggps -o FILE): the prediction and its error");
constexpr auto coll_gamma =
    opt::row::number("coll-gamma", opt::no_default, 0, 1e6,
                     "reduction cost for the prediction, us per byte (default: the model's gamma_us_per_byte, else 0)");
constexpr auto coll_segment =
    opt::row::byte_count("coll-segment", "64Ki", 1, max_message_bytes, "pipeline segment of bcast pipeline");
constexpr auto coll_extrapolate = opt::row::choice("coll-extrapolate", "no", {"no", "yes"},
                                                   "yes: predict sizes beyond the largest the parameters cover");

constexpr auto coll_contention = opt::row::text(
    "coll-contention", "",
    "a congestion run across a shared uplink (-x congestion -o FILE): its max-rate fit prices the messages that "
    "cross the uplink together (with --coll-switches, --coll-params)");
constexpr auto coll_switches = opt::row::text("coll-switches", "",
                                              "each rank's switch, 0 or 1, in rank order (\"0,0,1,1\"): which messages "
                                              "cross the uplink (with --coll-contention)");

opt::Table coll_options()
{
    return {"coll",
            {coll_op, coll_algorithm, coll_params, coll_gamma, coll_segment, coll_extrapolate, coll_contention,
             coll_switches}};
}
// The module ABI's operations (module.h, collective) in fit's order.
static_assert(int(fit::CollectiveOp::bcast) == NGX_COLL_BCAST && int(fit::CollectiveOp::reduce) == NGX_COLL_REDUCE &&
              int(fit::CollectiveOp::allreduce) == NGX_COLL_ALLREDUCE &&
              int(fit::CollectiveOp::allgather) == NGX_COLL_ALLGATHER &&
              int(fit::CollectiveOp::alltoall) == NGX_COLL_ALLTOALL &&
              int(fit::CollectiveOp::gather) == NGX_COLL_GATHER &&
              int(fit::CollectiveOp::scatter) == NGX_COLL_SCATTER &&
              int(fit::CollectiveOp::barrier) == NGX_COLL_BARRIER);

struct Settings {
    fit::CollectiveOp op = fit::CollectiveOp::allreduce;
    std::vector<fit::Algorithm> algorithms; // one, or every one of the op (none: library)
    bool library = false;                   // the module's own collective (MPI's)
    std::string params;                     // a saved model, "" for none
    double gamma = 0;                       // us per byte reduced, for the prediction
    bool gamma_given = false;
    double segment = 65536;
    bool extrapolate = false;
    std::string contention; // a congestion run, "" for none
    std::string switches;   // each rank's switch
};

// What one (algorithm, size) measured, on rank 0.
struct Point {
    fit::Algorithm algorithm = fit::Algorithm::ring; // ngx's, or the one predicted for the library's
    bool library = false;
    bool modeled = true; // library: Open MPI's choice has a model
    uint64_t bytes = 0;
    std::vector<double> slowest;               // per repetition, the slowest rank's time
    double min_us = 0, avg_us = 0, max_us = 0; // over ranks, of each rank's mean
    double predicted_us = unknown;             // the schedule evaluated under the model
    double closed_form_us = unknown;           // `ngx predict`'s closed form
    double segment = 0;                        // library: the segment its prediction uses (0: --coll-segment)
    double contention_us = unknown;            // predicted_us plus the uplink's delay
    Json contention;                           // the delay per round (contention_json)
};

Result<CollectiveModel> load_model(const std::string& path)
{
    Result<Json> model = saved_model(path);
    if (!model)
        return Status::usage("--coll-params " + path + ": " + model.status().message());
    if (model->value("kind", std::string()) == "loggps") {
        Result<fit::LogGPSParams> p = loggps_params_from_model(*model);
        if (!p)
            return Status::usage("--coll-params " + path + ": " + p.status().message());
        return loggps_collective_model(*p, *model);
    }
    Result<fit::LogGPParams> p = loggp_params_from_model(*model);
    if (!p)
        return Status::usage("--coll-params " + path + ": " + p.status().message());
    return loggp_collective_model(*p, *model);
}

class Coll final : public Pattern {
public:
    Status configure(const OptionValues& values) override;
    Json options_json() const override;
    Status run(PatternContext& ctx) override;

private:
    fit::Collective collective(fit::Algorithm a, long long P, uint64_t bytes, double gamma) const
    {
        return fit::Collective{settings_.op, a, P, double(bytes), gamma, settings_.segment};
    }
    Status check(PatternContext& ctx) const;
    Status check_contention(const PatternContext& ctx, long long P) const;
    Result<Point> measure(PatternContext& ctx, PeerLinks& links, fit::Algorithm a, uint64_t bytes);
    Result<Point> measure_library(PatternContext& ctx, uint64_t bytes);
    Status predict(Point& point, long long P, const fit::ScheduleRules& rules) const;
    void report(PatternContext& ctx, const Point& point, int P);
    Status run_library(PatternContext& ctx);

    Settings settings_;
    std::optional<CollectiveModel> model_;
    std::optional<fit::MaxRateParams> link_; // the shared uplink's max-rate fit
    Json rows_ = Json::array();
};

Status Coll::configure(const OptionValues& values)
{
    opt::Reader read(coll_options(), values);
    const std::string op = read(coll_op);
    const std::optional<fit::CollectiveOp> parsed = fit::op_from_name(op);
    if (!parsed)
        return Status::usage("--coll-op " + op + ": not a collective (" + collective_op_names() + ")");
    settings_.op = *parsed;
    const std::string algorithm = read(coll_algorithm);
    const std::vector<fit::Algorithm> known = fit::algorithms_of(settings_.op);
    const std::optional<fit::Algorithm> a = fit::algorithm_from_name(algorithm);
    if (a && !runs_own(settings_.op, *a))
        return Status::usage("--coll-algorithm " + algorithm + ": " + op + " " + algorithm +
                             " posts every receive before any send, which the modules' blocking "
                             "calls would deadlock: ngx prices it where Open MPI chooses it (--coll-algorithm "
                             "library) and does not run it");
    if (algorithm == "all")
        std::copy_if(known.begin(), known.end(), std::back_inserter(settings_.algorithms),
                     [&](fit::Algorithm each) { return runs_own(settings_.op, each); });
    else if (algorithm == "library")
        settings_.library = true;
    else if (a && std::find(known.begin(), known.end(), *a) != known.end())
        settings_.algorithms = {*a};
    else
        return Status::usage("--coll-algorithm " + algorithm + ": " + op + " has " + fit::algorithm_list(*parsed) +
                             " (or all, library)");
    settings_.params = read(coll_params);
    settings_.gamma_given = read.given(coll_gamma);
    settings_.gamma = read.optional(coll_gamma).value_or(0);
    settings_.segment = double(read(coll_segment));
    settings_.extrapolate = read(coll_extrapolate) == "yes";
    settings_.contention = read(coll_contention);
    settings_.switches = read(coll_switches);
    if (!read.ok())
        return Status::usage(read.error());
    if (settings_.contention.empty() != settings_.switches.empty())
        return Status::usage("--coll-contention and --coll-switches go together: the uplink's fit and which rank "
                             "sits on which switch");
    if (!settings_.contention.empty()) {
        if (settings_.params.empty())
            return Status::usage("--coll-contention adds to a LogGP or LogGPS prediction: give --coll-params too");
        NGX_ASSIGN_OR_RETURN(link_, shared_link_from_file(settings_.contention, "--coll-contention"));
    }
    if (settings_.params.empty())
        return Status::ok();
    NGX_ASSIGN_OR_RETURN(CollectiveModel model, load_model(settings_.params));
    model_ = std::move(model);
    if (!settings_.gamma_given)
        settings_.gamma = model_->gamma_us_per_byte;
    return Status::ok();
}

Json Coll::options_json() const
{
    Json algorithms = settings_.library ? Json::array({"library"}) : Json::array();
    for (fit::Algorithm a : settings_.algorithms)
        algorithms.push_back(std::string(fit::algorithm_name(a)));
    return {{"op", std::string(fit::op_name(settings_.op))},
            {"algorithms", algorithms},
            {"params", settings_.params},
            {"gamma_us_per_byte", settings_.gamma},
            {"segment_bytes", settings_.segment},
            {"extrapolate", settings_.extrapolate},
            {"contention", settings_.contention},
            {"switches", settings_.switches}};
}

// How ScheduleRunner plays a schedule over this module: one blocking call
// after the other, exchanges with one peer overlapped where the module has
// non-blocking calls.
fit::ScheduleRules own_rules(const Transport& transport)
{
    return {.program_order = true, .nonblocking = transport.has(NGX_CAP_NONBLOCKING)};
}

// Every (algorithm, size) must be valid for P, and predictable when a model
// is given: checked on every rank before anything is measured (usage errors).
Status Coll::check(PatternContext& ctx) const
{
    const long long P = ctx.bootstrap.nranks();
    if (link_)
        NGX_TRY(check_contention(ctx, P));
    if (settings_.library && !ctx.transport.has(NGX_CAP_LIBRARY_COLLECTIVES))
        return Status::usage("--coll-algorithm library: module " + ctx.transport.module().name() +
                             " has no collectives of its own (NGX_CAP_LIBRARY_COLLECTIVES, module ABI 1.6: mpi)");
    for (fit::Algorithm a : settings_.algorithms)
        for (uint64_t bytes : ctx.settings.sizes) {
            const fit::Collective c = collective(a, P, bytes, settings_.gamma);
            if (std::string why = fit::check_collective(c); !why.empty())
                return Status::usage(std::string(fit::op_name(c.op)) + " " + std::string(fit::algorithm_name(a)) +
                                     " over P = " + std::to_string(P) + ": " + why);
            if (model_)
                NGX_TRY(checked_prediction(c, *model_, settings_.extrapolate, CollectiveCost::schedule,
                                           own_rules(ctx.transport))
                            .status());
        }
    return Status::ok();
}

// --coll-switches names every rank, and every schedule the rows will price
// (the library's: Open MPI's choice where ngx models it) has rounds.
Status Coll::check_contention(const PatternContext& ctx, long long P) const
{
    const Result<std::vector<int>> at = fit::parse_switches(settings_.switches, P);
    if (!at)
        return at.status().with_context("--coll-switches");
    for (uint64_t bytes : ctx.settings.sizes) {
        std::vector<fit::Algorithm> priced = settings_.algorithms;
        if (settings_.library)
            if (const fit::OmpiChoice choice = fit::ompi_tuned_choice(settings_.op, P, double(bytes)); choice.modeled)
                priced.push_back(*choice.modeled);
        for (fit::Algorithm a : priced) {
            const fit::Collective c = collective(a, P, bytes, settings_.gamma);
            if (!fit::check_collective(c).empty())
                continue; // refused below, with its reason
            NGX_TRY(fit::price_contention(fit::collective_schedule(c), *at, *link_)
                        .status()
                        .with_context("--coll-contention: " + std::string(fit::op_name(c.op)) + " " +
                                      std::string(fit::algorithm_name(a))));
        }
    }
    return Status::ok();
}

// The links every rank's part of the schedule needs, as one round.
Round links_round(const fit::Schedule& schedule)
{
    Round round;
    for (size_t rank = 0; rank < schedule.ranks.size(); ++rank)
        for (int peer : coll::peers_of(schedule.ranks[rank]))
            if (int(rank) < peer)
                round.transfers.push_back({int(rank), peer});
    return round;
}

// Each rank's times, gathered on rank 0: per repetition the slowest rank's,
// and min/avg/max over ranks of each rank's mean.
Status gather_times(PatternContext& ctx, const std::vector<double>& mine, Point& point)
{
    Bytes bytes(mine.size() * sizeof(double));
    std::memcpy(bytes.data(), mine.data(), bytes.size());
    std::vector<Bytes> all;
    NGX_TRY(ctx.bootstrap.gather(bytes, all, "gathering the ranks' times"));
    if (ctx.bootstrap.rank() != 0)
        return Status::ok();
    point.slowest.assign(mine.size(), 0);
    std::vector<double> means;
    for (const Bytes& rank : all) {
        if (rank.size() != bytes.size())
            return Status::runtime("a rank sent " + std::to_string(rank.size()) + " bytes of times, expected " +
                                   std::to_string(bytes.size()));
        double sum = 0;
        for (size_t i = 0; i < mine.size(); ++i) {
            double t = 0;
            std::memcpy(&t, rank.data() + i * sizeof t, sizeof t);
            point.slowest[i] = std::max(point.slowest[i], t);
            sum += t;
        }
        means.push_back(sum / double(std::max<size_t>(1, mine.size())));
    }
    point.min_us = *std::min_element(means.begin(), means.end());
    point.max_us = *std::max_element(means.begin(), means.end());
    point.avg_us = std::accumulate(means.begin(), means.end(), 0.0) / double(means.size());
    return Status::ok();
}

Result<Point> Coll::measure(PatternContext& ctx, PeerLinks& links, fit::Algorithm a, uint64_t bytes)
{
    const int P = ctx.bootstrap.nranks(), me = ctx.bootstrap.rank();
    // The schedule with its reductions (a calc after each reducing receive):
    // any gamma > 0 makes the schedule list them.
    const fit::Schedule schedule = fit::collective_schedule(collective(a, P, bytes, 1.0));
    NGX_TRY(links.open_for(links_round(schedule)));
    coll::ScheduleRunner runner(ctx.transport, links, me, schedule.ranks[size_t(me)]);
    NGX_TRY(runner.prepare());
    const std::string what = std::string(fit::op_name(settings_.op)) + " " + std::string(fit::algorithm_name(a)) +
                             " of " + format_bytes(bytes);
    std::vector<double> mine;
    mine.reserve(ctx.settings.count);
    for (uint64_t rep = 0; rep < ctx.settings.warmup + ctx.settings.count; ++rep) {
        if (ctx.interrupted())
            return Status::interrupted(what + ": interrupted");
        NGX_TRY(ctx.bootstrap.barrier(what + ": barrier"));
        const uint64_t t0 = ctx.timer.now();
        NGX_TRY(runner.run().with_context(what));
        const uint64_t t1 = ctx.timer.now();
        if (rep >= ctx.settings.warmup)
            mine.push_back(ctx.timer.to_us(t1 - t0));
    }
    ctx.sink.count_messages(runner.sends() * (ctx.settings.warmup + ctx.settings.count));
    Point point;
    point.algorithm = a;
    point.bytes = bytes;
    NGX_TRY(gather_times(ctx, mine, point));
    return point;
}

// The library's own collective (MPI_Allreduce, ...), timed as measure() does.
Result<Point> Coll::measure_library(PatternContext& ctx, uint64_t bytes)
{
    const int P = ctx.bootstrap.nranks();
    const std::string what = "the library's " + std::string(fit::op_name(settings_.op)) + " of " + format_bytes(bytes);
    const size_t span = std::max<size_t>(1, bytes) * size_t(P);
    NGX_ASSIGN_OR_RETURN(Buffer send, ctx.transport.alloc(span));
    NGX_ASSIGN_OR_RETURN(Buffer recv, ctx.transport.alloc(span));
    std::vector<double> ones(span / sizeof(double), 1.0);
    std::memcpy(send.data(), ones.data(), ones.size() * sizeof(double));
    const auto op =
        ngx_collective_op(int(settings_.op)); // the same order (module.h, models/collectives/collectives.hpp)
    std::vector<double> mine;
    for (uint64_t rep = 0; rep < ctx.settings.warmup + ctx.settings.count; ++rep) {
        if (ctx.interrupted())
            return Status::interrupted(what + ": interrupted");
        NGX_TRY(ctx.bootstrap.barrier(what + ": barrier"));
        const uint64_t t0 = ctx.timer.now();
        NGX_TRY(ctx.transport.collective(op, send.data(), recv.data(), bytes).with_context(what));
        const uint64_t t1 = ctx.timer.now();
        if (rep >= ctx.settings.warmup)
            mine.push_back(ctx.timer.to_us(t1 - t0));
    }
    Point point;
    point.library = true;
    point.bytes = bytes;
    const fit::OmpiChoice choice = fit::ompi_tuned_choice(settings_.op, P, double(bytes));
    point.modeled = choice.modeled.has_value();
    point.algorithm = choice.modeled.value_or(fit::algorithms_of(settings_.op).front());
    point.segment = choice.segment_bytes; // as Open MPI runs it: unsegmented
    NGX_TRY(gather_times(ctx, mine, point));
    return point;
}

Status Coll::predict(Point& point, long long P, const fit::ScheduleRules& rules) const
{
    if (!model_ || !point.modeled)
        return Status::ok();
    fit::Collective c = collective(point.algorithm, P, point.bytes, settings_.gamma);
    if (point.segment > 0)
        c.segment_bytes = point.segment;
    NGX_ASSIGN_OR_RETURN(double events,
                         checked_prediction(c, *model_, settings_.extrapolate, CollectiveCost::schedule, rules));
    Result<double> closed = checked_prediction(c, *model_, settings_.extrapolate, CollectiveCost::closed_form);
    point.predicted_us = events;
    point.closed_form_us = closed ? *closed : unknown;
    if (!link_)
        return Status::ok();
    NGX_ASSIGN_OR_RETURN(const std::vector<int> at, fit::parse_switches(settings_.switches, P));
    NGX_ASSIGN_OR_RETURN(const fit::ContentionPrice price,
                         fit::price_contention(fit::collective_schedule(c), at, *link_));
    point.contention_us = events + price.delay_us;
    point.contention = contention_json(price);
    return Status::ok();
}

void Coll::report(PatternContext& ctx, const Point& point, int P)
{
    SizeRecord record = make_record(ctx, point.bytes, point.slowest);
    const std::vector<fit::Algorithm> known = fit::algorithms_of(settings_.op);
    const double index =
        point.library ? -1.0 : double(std::find(known.begin(), known.end(), point.algorithm) - known.begin());
    const double error = (record.summary.median - point.predicted_us) / point.predicted_us;
    // Over ranks, IMB's t_min/t_avg/t_max (the result's own min_us is over repetitions).
    record.extra = {{"processes", double(P)},
                    {"algorithm", index},
                    {"rank_min_us", point.min_us},
                    {"rank_avg_us", point.avg_us},
                    {"rank_max_us", point.max_us}};
    if (model_) {
        record.extra.emplace_back("predicted_us", point.predicted_us);
        record.extra.emplace_back("error_pct", 100 * error);
    }
    const double error_c = (record.summary.median - point.contention_us) / point.contention_us;
    if (link_) {
        record.extra.emplace_back("contention_us", point.contention_us);
        record.extra.emplace_back("error_contention_pct", 100 * error_c);
    }
    rows_.push_back(
        {{"op", std::string(fit::op_name(settings_.op))},
         {"algorithm", point.library ? std::string("library") : std::string(fit::algorithm_name(point.algorithm))},
         {"P", P},
         {"bytes", point.bytes},
         {"median_us", record.summary.median},
         {"min_us", point.min_us},
         {"avg_us", point.avg_us},
         {"max_us", point.max_us},
         {"predicted_us", json_number(point.predicted_us)},
         {"closed_form_us", json_number(point.closed_form_us)},
         {"error", json_number(error)}});
    if (link_) {
        rows_.back()["predicted_contention_us"] = json_number(point.contention_us);
        rows_.back()["error_contention"] = json_number(error_c);
        rows_.back()["contention"] = point.contention;
    }
    if (point.library)
        rows_.back()["predicted_algorithm"] =
            point.modeled ? Json(std::string(fit::algorithm_name(point.algorithm))) : Json();
    ctx.sink.size_done(std::move(record));
    Json model = {{"kind", "coll"}, {"rows", rows_}};
    if (model_)
        model["predicted_from"] = settings_.params;
    if (link_)
        model["contention_from"] = {{"run", settings_.contention},
                                    {"switches", settings_.switches},
                                    {"alpha_us", link_->s},
                                    {"R_C_MBps", link_->R_Cb},
                                    {"R_N_MBps", json_number(link_->R_N)}};
    ctx.sink.set_model(std::move(model));
}

Status Coll::run_library(PatternContext& ctx)
{
    for (uint64_t bytes : ctx.settings.sizes) {
        mark_step(ctx.settings.progress, "coll library", bytes);
        NGX_ASSIGN_OR_RETURN(Point point, measure_library(ctx, bytes));
        if (ctx.bootstrap.rank() != 0)
            continue;
        // The MPI library's own: LogGOPSim's rules (it progresses messages
        // while it waits in a call).
        NGX_TRY(predict(point, ctx.bootstrap.nranks(), fit::ScheduleRules{}));
        report(ctx, point, ctx.bootstrap.nranks());
    }
    return Status::ok();
}

Status Coll::run(PatternContext& ctx)
{
    NGX_TRY(check(ctx));
    const int P = ctx.bootstrap.nranks();
    if (settings_.library)
        return run_library(ctx);
    NGX_TRY(PeerLinks::check_module(
        ctx.transport.module(), LayoutKind::group,
        {links_round(fit::collective_schedule(collective(settings_.algorithms.front(), P, 1, 0)))}, P));
    NGX_ASSIGN_OR_RETURN(PeerLinks links, PeerLinks::create(ctx.transport, ctx.bootstrap, LayoutKind::group));
    for (fit::Algorithm a : settings_.algorithms)
        for (uint64_t bytes : ctx.settings.sizes) {
            mark_step(ctx.settings.progress, "coll", bytes);
            NGX_ASSIGN_OR_RETURN(Point point, measure(ctx, links, a, bytes));
            if (ctx.bootstrap.rank() != 0)
                continue;
            NGX_TRY(predict(point, P, own_rules(ctx.transport)));
            report(ctx, point, P);
        }
    return Status::ok();
}

} // namespace

PatternInfo coll_pattern()
{
    PatternInfo info;
    info.name = "coll";
    info.description = "a collective over P ranks, ngx's own algorithms over the module's send/recv (per-peer links: "
                       "sim, tcp, mpi), slowest rank per repetition, with the model's prediction (--coll-params)";
    info.metric = "collective time (slowest rank)";
    info.default_sizes = "8,1Ki,64Ki";
    info.default_count = 50;
    info.default_warmup = 5;
    info.options = coll_options().specs();
    info.create = [] { return std::make_unique<Coll>(); };
    info.ranks = RankGrouping::group;
    info.layouts = {LayoutKind::group};
    return info;
}

} // namespace ngx::patterns

NGX_PATTERN_EXPORT(ngx::patterns::coll_pattern)
