// Pattern "bw": streaming bandwidth and message rate per message size, as
// OSU's osu_bw, osu_bibw and osu_mbw_mr and NetPIPE measure them.
//
// A sample is one window, timed on the driver from the first call to the
// receipt of the acknowledgement that ends it:
//   uni: the driver sends W messages of s bytes back to back (blocking
//        sends, every module has them), the responder receives them and
//        answers the window with one 1-byte acknowledgement
//        (ngx/measure/pair_streams.hpp, stream_window);
//   bi:  both ranks stream W messages at once: each posts W non-blocking
//        receives, then W non-blocking sends, and waits for them all; the
//        responder then acknowledges. A module without non-blocking calls
//        (NGX_CAP_NONBLOCKING) cannot have both sides send at once without
//        one of them blocking in a send the other does not drain: refused
//        (exit 2) naming the module.
// Bandwidth is W s / T (both ways: 2 W s / T) in MB/s (10^6 bytes per
// second, as OSU) and MiB/s, from the median window time and its 95%
// interval; the message rate is W / T (both ways 2 W / T) messages per second.
//
// --bw-pairs K (or a list) with 2K ranks (ngx --pairs K, mpirun -np 2K):
// k concurrent pairs (rank i with rank K + i, as nodecomm, ngx/measure/pair_counts.hpp)
// stream at once after a barrier of all ranks, as osu_mbw_mr; rank 0 gathers
// every pair's windows and reports the slowest pair's samples, the rate per
// pair (mean of the pairs' rates) and the total rate (their sum).
//
// --bw-params FILE (a saved loggp run or model; in a file of several runs,
// -m a,b -x loggp -o FILE, each module's rows take its own run's model):
// each row carries the LogGP
// prediction of the window (models/loggp/loggp.hpp: stream_window and
// exchange_window, Hoefler et al. 2007 eqs. (1), (2), (5)) and the error of
// the measured bandwidth against it; over sim in virtual time they agree exactly.
// --bw-fit instead predicts from this run's own fit: two ranks also measure
// the loggp pattern's series at every size in the same passes (own_fit.hpp),
// fitted after the run; the run's JSON carries the model either way, its
// "source" naming the fit or the file.
//
// --verify (the core's payload validation, as OSU's -c): every message of a
// window gets its own slot of the buffer and its own pattern, filled before
// and checked after the timed window; a corrupted, stale or reordered
// message fails the run naming size, window and offset. One-sided, the
// responder checks the puts before its acknowledgement (no put of the next
// window overwrites them), and fills its window before it tells the driver
// (untimed) that the gets may start.
#include <models/loggp/loggp.hpp>
#include <ngx/pattern_plugin.hpp>
#include <ngx/saved_run.hpp>
#include <ngx/sizes.hpp>
#include <ngx/statistics.hpp>

#include <ngx/measure/pair_counts.hpp>
#include <ngx/measure/pair_streams.hpp>
#include <ngx/measure/passes.hpp>
#include <ngx/measure/sweep.hpp>
#include <ngx/measure/verify.hpp>
#include "own_fit.hpp"
#include <models/loggp/loggp_model.hpp>
#include <models/base/offline.hpp>
#include <models/loggp/loggp_offline.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

namespace ngx::patterns {
namespace {

constexpr double unknown = std::numeric_limits<double>::quiet_NaN();
constexpr double bytes_per_mib = 1048576.0;

constexpr auto bw_window = opt::row::whole_number("bw-window", "64", 1, 1u << 16,
                                                  "messages W in flight per window, answered by one acknowledgement");
constexpr auto bw_direction = opt::row::choice(
    "bw-direction", "uni", {"uni", "bi"},
    "uni: the driver streams, the responder acknowledges; bi: both stream at once (needs non-blocking calls)");
constexpr auto bw_op = opt::row::choice(
    "bw-op", "send", {"send", "put", "get"},
    "send: two-sided messages; put, get: one-sided writes or reads into the peer's exposed buffer, a window ended by "
    "one flush (modules with one-sided operations: sim, shm, mpi, ibv); --bw-window 1 gives the latency of put or get "
    "+ "
    "flush");
constexpr auto bw_pairs = opt::row::text(
    "bw-pairs", opt::no_default,
    "concurrent pairs for the message rate: K for 1..K, or a list (1,2,4); default: every pair of the ranks (2K "
    "ranks: rank i with rank K+i), or the list of --pairs LIST");
constexpr auto bw_params = opt::row::text(
    "bw-params", "",
    "a saved LogGP run or model (-x loggp -o FILE): each row's prediction and its error; a file of several modules' "
    "runs (-m a,b -x loggp) gives each module its own run's model");
constexpr auto bw_fit = opt::row::flag(
    "bw-fit", "predict each row from this run's own LogGP fit: at every size the loggp pattern's series "
              "(PRTT(1,0,s), PRTT(n,0,s), PRTT(n,d,s), o_r) are measured in the same passes and fitted after the "
              "run (two ranks; not with --bw-params)");

opt::Table bw_options()
{
    return {"bw", {bw_window, bw_direction, bw_op, bw_pairs, bw_params, bw_fit}};
}

enum class Op { send, put, get };

struct Settings {
    uint64_t window = 64;
    bool both_ways = false;
    Op op = Op::send;
    std::vector<uint64_t> pairs; // empty until run(): every pair the ranks allow
    std::string params;
    bool own_fit = false; // --bw-fit
};

// The windows of one pair at one size: buffers, request slots, and the count
// of windows both sides have run (the payloads' iteration).
class Streamer {
public:
    Streamer(const Settings& settings, bool verify) : settings_(settings), verify_(verify) {}

    // One way, the driver only sends and the responder only receives (the
    // acknowledgement uses the same buffer); both ways each does both.
    Status allocate(Transport& transport, uint64_t max_bytes, bool driver)
    {
        size_t bytes = std::max<size_t>((verify_ ? size_t(settings_.window) : 1) * size_t(max_bytes), stream_ack_bytes);
        bool one_sided = settings_.op != Op::send;
        if (settings_.both_ways || one_sided || driver) {
            NGX_ASSIGN_OR_RETURN(send_, transport.alloc(bytes));
        }
        if (settings_.both_ways || one_sided || !driver) {
            NGX_ASSIGN_OR_RETURN(recv_, transport.alloc(bytes));
        }
        requests_.assign(settings_.both_ways ? 2 * settings_.window : 0, 0);
        return Status::ok();
    }

    // One-sided: both sides expose the buffer the peer's puts write (their
    // receive buffer) or gets read (their send buffer); a control buffer
    // carries the untimed notice and acknowledgement after each flush.
    Status expose(Transport& transport, Bootstrap& boot)
    {
        if (settings_.op == Op::send)
            return Status::ok();
        NGX_ASSIGN_OR_RETURN(control_, transport.alloc(stream_ack_bytes));
        return transport.expose(boot, settings_.op == Op::put ? recv_ : send_);
    }

    // One window of `bytes`, timed on the driver (us); the responder returns 0.
    Result<double> window(PatternContext& ctx, uint64_t bytes, uint64_t& iteration)
    {
        bool driver = ctx.bootstrap.is_driver();
        size_t slot = verify_ ? size_t(bytes) : 0;
        bool one_sided_op = settings_.op != Op::send;
        if (verify_)
            fill(bytes, iteration, driver);
        if (one_sided_op && verify_ && settings_.op == Op::get)
            NGX_TRY(announce_filled(ctx.transport, driver));
        uint64_t start = ctx.timer.now();
        if (one_sided_op)
            NGX_TRY(one_sided(ctx.transport, bytes, slot, driver));
        else if (settings_.both_ways)
            NGX_TRY(exchange(ctx.transport, bytes, slot, driver));
        else
            NGX_TRY(
                stream_window(ctx.transport, (driver ? send_ : recv_).data(), bytes, settings_.window, slot, driver));
        uint64_t end = ctx.timer.now();
        if (one_sided_op)
            NGX_TRY(settle(ctx, bytes, iteration, driver));
        else if (verify_)
            NGX_TRY(check(ctx, bytes, iteration, driver));
        ++iteration;
        return driver ? ctx.timer.to_us(end - start) : 0.0;
    }

    // Messages both sides send in one window.
    uint64_t messages_per_window() const
    {
        return (settings_.both_ways ? 2 : 1) * settings_.window + (settings_.op == Op::send ? 1 : 2);
    }

private:
    // One-sided, timed on the driver: W puts or gets at offset m * slot of
    // the peer's window, then one flush. The responder starts nothing; it
    // calls flush() once at the same step, which is its part of the epoch
    // where the module's synchronization needs the target (mpi
    // --mpi-rma-sync fence, pscw) and returns at once elsewhere (module.h).
    Status one_sided(Transport& t, uint64_t bytes, size_t slot, bool driver)
    {
        if (driver)
            for (uint64_t m = 0; m < settings_.window; ++m)
                NGX_TRY(settings_.op == Op::put ? t.put(send_.data() + m * slot, m * slot, bytes)
                                                : t.get(recv_.data() + m * slot, m * slot, bytes));
        return t.flush();
    }

    // --verify with gets, untimed: the responder's notice that its window
    // holds this window's payloads, so that no get reads them half written.
    Status announce_filled(Transport& t, bool driver)
    {
        uint8_t* c = control_.data();
        return driver ? t.recv(c, stream_ack_bytes) : t.send(c, stream_ack_bytes);
    }

    // Untimed, after a one-sided window: the driver's notice that the flush
    // is done, the responder's check of the puts (it sees them once it has
    // the notice) and its acknowledgement, which the next window waits for
    // (so no put overwrites a payload being checked); the driver checks its
    // gets.
    Status settle(const PatternContext& ctx, uint64_t bytes, uint64_t iteration, bool driver)
    {
        Transport& t = ctx.transport;
        uint8_t* c = control_.data();
        if (driver) {
            NGX_TRY(t.send(c, stream_ack_bytes));
            NGX_TRY(t.recv(c, stream_ack_bytes));
        } else {
            NGX_TRY(t.recv(c, stream_ack_bytes));
        }
        if (verify_)
            NGX_TRY(check(ctx, bytes, iteration, driver));
        return driver ? Status::ok() : t.send(c, stream_ack_bytes);
    }

    // Who writes the payloads (into its send buffer) and who checks them (in its receive buffer).
    bool fills(bool driver) const { return settings_.both_ways || (settings_.op == Op::get ? !driver : driver); }
    bool checks(bool driver) const { return settings_.both_ways || (settings_.op == Op::get ? driver : !driver); }

    // Both ways: W receives posted, W sends, all waited for; the responder acknowledges.
    Status exchange(Transport& t, uint64_t bytes, size_t slot, bool driver)
    {
        uint64_t W = settings_.window;
        for (uint64_t m = 0; m < W; ++m)
            NGX_TRY(t.irecv(recv_.data() + m * slot, bytes, requests_[m]));
        for (uint64_t m = 0; m < W; ++m)
            NGX_TRY(t.isend(send_.data() + m * slot, bytes, requests_[W + m]));
        for (uint64_t m = W; m < 2 * W; ++m)
            NGX_TRY(t.wait(requests_[m]));
        for (uint64_t m = 0; m < W; ++m)
            NGX_TRY(t.wait(requests_[m]));
        return driver ? t.recv(recv_.data(), stream_ack_bytes) : t.send(send_.data(), stream_ack_bytes);
    }

    // The payload of message m of window `iteration` from `side`.
    uint64_t payload_iteration(uint64_t iteration, uint64_t m) const { return iteration * settings_.window + m; }

    void fill(uint64_t bytes, uint64_t iteration, bool driver)
    {
        if (!fills(driver))
            return;
        for (uint64_t m = 0; m < settings_.window; ++m)
            fill_payload(send_.data() + m * bytes, bytes, payload_iteration(iteration, m),
                         driver ? Side::driver : Side::responder);
    }

    Status check(const PatternContext& ctx, uint64_t bytes, uint64_t iteration, bool driver) const
    {
        if (!checks(driver))
            return Status::ok();
        for (uint64_t m = 0; m < settings_.window; ++m)
            NGX_TRY(check_payload(ctx, recv_.data() + m * bytes, bytes, payload_iteration(iteration, m),
                                  driver ? Side::responder : Side::driver));
        return Status::ok();
    }

    const Settings& settings_;
    bool verify_;
    Buffer send_, recv_, control_;
    std::vector<ngx_request> requests_;
};

// A model the rows are compared with, and its JSON for the run's output.
struct LoadedModel {
    Json json;
    fit::LogGPParams params;
};

class Bw final : public Pattern {
public:
    Status configure(const OptionValues& values) override
    {
        opt::Reader read(bw_options(), values);
        settings_.window = read(bw_window);
        settings_.both_ways = read(bw_direction) == "bi";
        std::string op = read(bw_op);
        settings_.op = op == "put" ? Op::put : op == "get" ? Op::get : Op::send;
        settings_.params = read(bw_params);
        settings_.own_fit = read(bw_fit);
        std::optional<std::string> pairs = read.optional(bw_pairs);
        if (!read.ok())
            return Status::usage(read.error());
        if (settings_.own_fit && !settings_.params.empty())
            return Status::usage("--bw-fit predicts from this run's own fit and --bw-params " + settings_.params +
                                 " from a saved one: give one of them");
        if (settings_.both_ways && settings_.op != Op::send)
            return Status::usage("--bw-direction bi streams two-sided messages both ways; --bw-op " + op +
                                 " is one way (use --bw-direction uni)");
        if (pairs) {
            NGX_ASSIGN_OR_RETURN(settings_.pairs, parse_pair_counts("bw-pairs", *pairs));
        }
        if (settings_.params.empty())
            return Status::ok();
        Result<Json> document = read_json_document(settings_.params);
        if (!document)
            return Status::usage("--bw-params: " + document.status().message());
        const Json* runs = json_member(*document, "runs");
        models_per_module_ = runs != nullptr && runs->is_array() && runs->size() > 1;
        if (models_per_module_) // -m a,b -x loggp -o FILE: each module's run, chosen in run()
            return Status::ok();
        NGX_ASSIGN_OR_RETURN(fixed_model_, read_model(""));
        return Status::ok();
    }

    Json options_json() const override
    {
        const char* op = settings_.op == Op::put ? "put" : settings_.op == Op::get ? "get" : "send";
        const char* calls = settings_.op != Op::send ? "one-sided (W put or get, one flush; untimed notice and ack)"
                            : settings_.both_ways
                                ? "non-blocking (W irecv, W isend, wait all; blocking acknowledgement)"
                                : "blocking (W send, one recv of the acknowledgement)";
        return {{"window", settings_.window},
                {"direction", settings_.both_ways ? "bi" : "uni"},
                {"op", op},
                {"calls", calls},
                {"pairs", settings_.pairs},
                {"params", settings_.params},
                {"model", settings_.own_fit          ? "this run's fit (--bw-fit)"
                          : settings_.params.empty() ? "none"
                                                     : "--bw-params file"}};
    }

    Status run(PatternContext& ctx) override
    {
        own_fit_.reset();
        if (models_per_module_) {
            NGX_ASSIGN_OR_RETURN(model_, read_model(ctx.transport.module().name()));
        } else {
            model_ = fixed_model_;
        }
        if (model_ && ctx.bootstrap.is_driver()) // the run's JSON names the model it was compared with
            ctx.sink.set_model(model_->json);
        if (settings_.both_ways && !ctx.transport.has(NGX_CAP_NONBLOCKING))
            return Status::usage("--bw-direction bi: module " + ctx.transport.module().name() +
                                 " has only blocking calls (no isend/irecv), so both sides cannot stream at once "
                                 "(each would block in a send the other does not drain); use --bw-direction uni, or a "
                                 "module with non-blocking calls (mpi, ibv, sim)");
        if (!settings_.pairs.empty() || ctx.bootstrap.nranks() > 2)
            NGX_TRY(resolve_pair_counts(settings_.pairs, ctx.bootstrap, "--bw-pairs"));
        if (settings_.op != Op::send && !ctx.transport.has(NGX_CAP_ONE_SIDED))
            return Status::usage("--bw-op " + std::string(settings_.op == Op::put ? "put" : "get") + ": module " +
                                 ctx.transport.module().name() +
                                 " has no one-sided operations (put, get, flush; NGX_CAP_ONE_SIDED); use --bw-op send");
        if (settings_.own_fit)
            NGX_TRY(check_own_fit(ctx));
        Streamer streamer(settings_, ctx.settings.verify);
        NGX_TRY(streamer.allocate(ctx.transport, ctx.settings.sizes.back(), ctx.bootstrap.is_driver()));
        NGX_TRY(streamer.expose(ctx.transport, ctx.bootstrap));
        if (ctx.bootstrap.nranks() > 2)
            return run_pairs(ctx, streamer);
        return run_one_pair(ctx, streamer);
    }

    // --bw-fit, after the ranks have met (driver): the fit of the run's
    // series, then every held record with its prediction.
    Status conclude(PatternContext& ctx) override
    {
        if (!own_fit_ || !ctx.bootstrap.is_driver())
            return Status::ok();
        Status fitted = adopt_own_fit(ctx);
        release_records(ctx);
        return fitted;
    }

private:
    // --bw-fit: what the own fit needs of the run.
    Status check_own_fit(const PatternContext& ctx) const
    {
        if (ctx.bootstrap.nranks() > 2)
            return Status::usage("--bw-fit measures its LogGP series between two ranks, this run has " +
                                 std::to_string(ctx.bootstrap.nranks()) +
                                 "; fit with two ranks (-x bw --bw-fit -o FILE, or -x loggp -o FILE) and give the "
                                 "pairs run --bw-params FILE");
        if (ctx.settings.sizes.size() < 3)
            return Status::usage("--bw-fit: the fit of g and G (Hoefler et al. 2007 eq. (7)) needs at least three "
                                 "message sizes, -s gives " +
                                 std::to_string(ctx.settings.sizes.size()));
        return Status::ok();
    }

    // Two ranks: the usual interleaved passes (adaptive stopping included);
    // with --bw-fit each slice also measures the LogGP series and the
    // records wait for the fit (conclude()).
    Status run_one_pair(PatternContext& ctx, Streamer& streamer)
    {
        if (settings_.own_fit)
            own_fit_.emplace(ctx.settings.sizes.size(), ctx.sink);
        PatternContext swept = own_fit_ ? own_fit_->holding(ctx) : ctx;
        std::vector<uint64_t> windows_run(ctx.settings.sizes.size(), 0);
        PassedSweep sweep;
        sweep.measure = [&](const PassSlice& slice, Buffer& buffer) -> Result<Series> {
            std::vector<double> times;
            for (uint64_t rep = 0; rep < slice.warmup + slice.samples; ++rep) {
                NGX_ASSIGN_OR_RETURN(double us, streamer.window(swept, slice.size, windows_run[slice.index]));
                if (rep >= slice.warmup)
                    times.push_back(us);
                if (swept.interrupted())
                    return Status::interrupted();
            }
            swept.sink.count_messages((slice.warmup + slice.samples) * streamer.messages_per_window());
            Series series;
            if (swept.bootstrap.is_driver())
                series.push_back(std::move(times));
            if (own_fit_)
                NGX_TRY(own_fit_->measure(swept, slice, buffer, series));
            return series;
        };
        if (own_fit_)
            sweep.finish = [&] { return own_fit_->finish(swept); };
        sweep.record = [&](const PassSlice& last, Series& pooled) -> Result<SizeRecord> {
            if (own_fit_)
                own_fit_->keep(last, pooled);
            SizeRecord record = make_record(swept, last.size, std::move(pooled[0]));
            add_columns(record, 1, {});
            return record;
        };
        Status status = sweep_passes(swept, sweep);
        if (!status && own_fit_ && ctx.bootstrap.is_driver())
            release_records(ctx); // the sizes measured, without a fit
        return status;
    }

    // --bw-fit (driver): the fitted model becomes the run's.
    Status adopt_own_fit(PatternContext& ctx)
    {
        Result<Json> model = own_fit_->model(ctx);
        if (!model)
            return model.status();
        Result<fit::LogGPParams> params = loggp_params_from_model(*model);
        if (!params)
            return params.status().with_context("--bw-fit");
        model_ = LoadedModel{*model, std::move(*params)};
        ctx.sink.set_model(std::move(*model));
        return Status::ok();
    }

    // --bw-fit (driver): the held records, each with its prediction where there is a model.
    void release_records(PatternContext& ctx)
    {
        for (SizeRecord& record : own_fit_->take_records()) {
            add_prediction(record, 1, false);
            ctx.sink.size_done(std::move(record));
        }
        own_fit_.reset();
    }

    // 2K ranks: for each k and size, k pairs stream at once (osu_mbw_mr).
    Status run_pairs(PatternContext& ctx, Streamer& streamer)
    {
        const RunSettings& run = ctx.settings;
        std::vector<uint64_t> windows_run(run.sizes.size(), 0);
        for (uint64_t k : settings_.pairs)
            for (size_t index = 0; index < run.sizes.size(); ++index) {
                uint64_t size = run.sizes[index];
                std::string where = "bw k=" + std::to_string(k) + " size " + format_bytes(size);
                mark_step(run.progress, "waiting for the other pairs", size);
                NGX_TRY(ctx.bootstrap.barrier(where + ": waiting for the other pairs"));
                std::vector<double> times;
                if (pair_index(ctx.bootstrap) < k)
                    for (uint64_t rep = 0; rep < run.warmup + run.count; ++rep) {
                        Result<double> us = streamer.window(ctx, size, windows_run[index]);
                        if (!us)
                            return us.status().with_context(where);
                        if (rep >= run.warmup && ctx.bootstrap.is_driver())
                            times.push_back(*us);
                        if (ctx.interrupted())
                            return Status::interrupted();
                    }
                std::vector<std::vector<double>> by_rank;
                NGX_TRY(
                    gather_cells(ctx.bootstrap, times, by_rank).with_context(where + ": gathering the pairs' times"));
                if (ctx.bootstrap.rank() != 0)
                    continue;
                ctx.sink.count_messages((run.warmup + run.count) * streamer.messages_per_window() * k);
                ctx.sink.size_done(pairs_record(ctx, size, k, by_rank));
            }
        return Status::ok();
    }

    // Rank 0: the slowest pair's samples; the rate per pair and in total.
    SizeRecord pairs_record(const PatternContext& ctx, uint64_t size, uint64_t k,
                            std::vector<std::vector<double>>& by_rank) const
    {
        std::vector<double> slowest, pair_rates;
        double worst = -1;
        for (size_t pair = 0; pair < k; ++pair) {
            double pair_median = median(by_rank[pair]);
            pair_rates.push_back(messages_per_window() * 1e6 / pair_median);
            if (pair_median > worst) {
                worst = pair_median;
                slowest = by_rank[pair];
            }
        }
        SizeRecord record = make_record(ctx, size, std::move(slowest));
        add_columns(record, k, pair_rates);
        return record;
    }

    // Data messages a window carries (both directions with bi).
    double messages_per_window() const { return double(settings_.window) * (settings_.both_ways ? 2 : 1); }

    static double column(const SizeRecord& record, const std::string& name)
    {
        for (const auto& [key, value] : record.extra)
            if (key == name)
                return value;
        return unknown;
    }

    // Bandwidth and rate from the median window time and its interval; the
    // prediction and its error when a model is loaded (with --bw-fit, after
    // the run). k pairs: per pair and total.
    void add_columns(SizeRecord& record, uint64_t k, const std::vector<double>& pair_rates) const
    {
        double moved = messages_per_window() * double(record.size_bytes); // bytes per window
        double T = record.summary.median;
        double per_us = T > 0 ? moved / T : unknown;
        auto& extra = record.extra;
        extra.emplace_back("window", double(settings_.window));
        extra.emplace_back("bandwidth_MBps", per_us); // bytes per microsecond = 10^6 bytes per second
        extra.emplace_back("bandwidth_ci95_lo_MBps", moved / column(record, "median_ci95_hi_us"));
        extra.emplace_back("bandwidth_ci95_hi_MBps", moved / column(record, "median_ci95_lo_us"));
        extra.emplace_back("bandwidth_MiBps", per_us * 1e6 / bytes_per_mib);
        extra.emplace_back("message_rate_per_s", T > 0 ? messages_per_window() * 1e6 / T : unknown);
        if (k > 1 || !pair_rates.empty()) {
            double total = 0;
            for (double rate : pair_rates)
                total += rate;
            extra.emplace_back("pairs", double(k));
            extra.emplace_back("message_rate_per_pair_per_s", total / double(pair_rates.size()));
            extra.emplace_back("message_rate_total_per_s", total);
        }
        add_prediction(record, k, !pair_rates.empty());
    }

    // The model's window at the record's size (models/loggp/loggp.hpp, Hoefler et al.
    // 2007 eqs. (1), (2), (5)) and the error of the measured bandwidth
    // against it; with pairs, the total rate of k.
    void add_prediction(SizeRecord& record, uint64_t k, bool pairs) const
    {
        if (!model_)
            return;
        const fit::LogGPParams& model = model_->params;
        double moved = messages_per_window() * double(record.size_bytes); // bytes per window
        double T = record.summary.median;
        double per_us = T > 0 ? moved / T : unknown;
        double s = double(record.size_bytes), W = double(settings_.window);
        double predicted = settings_.op == Op::put   ? model.put_window(W, s)
                           : settings_.op == Op::get ? model.get_window(W, s)
                           : settings_.both_ways     ? model.exchange_window(W, s)
                                                     : model.stream_window(W, s);
        auto& extra = record.extra;
        double predicted_bw = predicted > 0 ? moved / predicted : unknown;
        extra.emplace_back("predicted_us", predicted);
        extra.emplace_back("predicted_MBps", predicted_bw);
        extra.emplace_back("predicted_message_rate_per_s", messages_per_window() * 1e6 / predicted);
        if (pairs) // LogGP's pairs share nothing: k times one pair's rate
            extra.emplace_back("predicted_message_rate_total_per_s",
                               double(k) * messages_per_window() * 1e6 / predicted);
        extra.emplace_back("error_pct", 100.0 * (per_us - predicted_bw) / predicted_bw);
    }

    // The LogGP model of --bw-params: the file's one model, or that of
    // `module`'s run in a file of several. Its JSON names the file as its
    // source and leaves out the prediction error of the run it was fitted in.
    Result<std::optional<LoadedModel>> read_model(const std::string& module) const
    {
        Result<Json> model = saved_model(settings_.params, module);
        if (!model)
            return Status::usage("--bw-params " + settings_.params + ": " + model.status().message());
        Result<fit::LogGPParams> params = loggp_params_from_model(*model);
        if (!params)
            return Status::usage("--bw-params " + settings_.params + ": " + params.status().message());
        Json json = *model;
        json.erase("prediction_error");
        json["source"] = "--bw-params " + settings_.params;
        return std::optional<LoadedModel>(LoadedModel{std::move(json), std::move(*params)});
    }

    Settings settings_;
    bool models_per_module_ = false;         // --bw-params holds several runs
    std::optional<LoadedModel> fixed_model_; // its one model otherwise
    std::optional<LoadedModel> model_;       // this run's
    std::optional<OwnFit> own_fit_;          // --bw-fit: its series and held records, from run() to conclude()
};

} // namespace

PatternInfo bw_pattern()
{
    PatternInfo info;
    info.name = "bw";
    info.description = "streaming bandwidth, bidirectional bandwidth and message rate per size (osu_bw, osu_bibw, "
                       "osu_mbw_mr), with the LogGP prediction of each window";
    info.metric = "time of a window of W messages and its acknowledgement";
    info.default_sizes = "1-4Mi";
    info.default_count = 50;
    info.default_warmup = 4;
    info.options = bw_options().specs();
    info.create = [] { return std::make_unique<Bw>(); };
    info.models = {loggp_model_kind()};   // a run's model (--bw-fit's, or --bw-params's) predicts as a loggp run's
    info.pair_counts_option = "bw-pairs"; // --pairs 1,2,4: 4 pairs started, k = 1, 2, 4 measured
    info.min_message_bytes = 1;
    info.min_message_reason = "the LogGP window equations are in s - 1, and a window of empty messages moves nothing";
    return info;
}

} // namespace ngx::patterns

NGX_PATTERN_EXPORT(ngx::patterns::bw_pattern)
