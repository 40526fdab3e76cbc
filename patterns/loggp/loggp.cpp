// Pattern "loggp": LogGP parameters exactly as Hoefler et al. 2007 assesses them.
//
// Per message size s the driver measures, each the median of c repetitions:
//   PRTT(1,0,s)                  eq. (1): 2 (L + 2o + (s-1)G)
//   PRTT(n,0,s)                  for g and G by eq. (7)
//   PRTT(n,d,s), d = PRTT(1,0,s) for o by eq. (6), which needs d > G_all;
//                                eq. (6) subtracts the d the delay loop
//                                really took (its overshoot and timer reads
//                                timed), recorded as delay_us
// and the responder measures the receive overhead o_r: it busy-waits 2d (d
// sent to it through the bootstrap, so both ranks use one d) before each
// receive, so the message has arrived and only the receive call is timed
// (less the one timer read that falls inside the interval).
// With --loggp-exchange yes (a module with reliable non-blocking calls)
// both ranks also run n exchanges of s bytes back to back (irecv + isend +
// wait, as MPI_Sendrecv), timed by the driver: from them the fit takes the
// share of the per-byte overheads O_s and O_r that occupies the CPU while
// the rank sends and receives at once
// (fit/exchange_share.hpp), which blocking calls cannot show.
// The sizes are measured in passes (patterns/common/passes.hpp): in each pass
// a size runs its series one after the other (PRTT(1,0,s), PRTT(n,0,s),
// PRTT(n,d,s), o_r), and the sizes take turns. d is chosen in the size's
// first pass and kept for the later ones, so every PRTT(n,d,s) sample of a
// size has the same d; the medians are over the samples of all passes.
// After the sweep and the ranks' meeting after the run (conclude(): local
// work, no peer waits for it) the driver fits g and G per protocol range
// (section 3.5 change detection) and reports one parameter set per range (Table 2).
#include "../common/passes.hpp"
#include "../common/prtt.hpp"
#include "../common/sweep.hpp"
#include "../shared/loggp_model.hpp"
#include "../shared/offline.hpp"
#include "../shared/prtt_file.hpp"

#include <ngx/pattern_plugin.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ngx::patterns {
namespace {

Bytes encode(const std::vector<double>& values)
{
    Bytes bytes(values.size() * sizeof(double));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

Result<std::vector<double>> decode(const Bytes& bytes, size_t count)
{
    if (bytes.size() != count * sizeof(double))
        return Status::runtime("loggp: the peer sent a malformed value through the bootstrap");
    std::vector<double> values(count);
    std::memcpy(values.data(), bytes.data(), bytes.size());
    return values;
}

// The mean of the samples near their median (within 3 timer steps or 5% of
// it): a single receive is a few timer steps long (the TSC of a KVM guest
// moves in 10 ns steps), and its median is one of two neighbouring steps
// while their mean resolves the time between them; samples far from the
// median (an interrupt, a preemption) stay out.
double central_mean(std::vector<double> samples, double step_us)
{
    const double mid = median(samples);
    const double reach = std::max(3 * step_us, 0.05 * std::fabs(mid));
    double sum = 0;
    size_t n = 0;
    for (double x : samples)
        if (std::fabs(x - mid) <= reach)
            sum += x, ++n;
    return n == 0 ? mid : sum / double(n);
}

// Each side's values reach the other: the driver's d, the responder's o_r per size.
Result<std::vector<double>> swap_values(Bootstrap& boot, const std::vector<double>& mine, const std::string& step)
{
    Bytes theirs;
    NGX_TRY(boot.exchange(encode(mine), theirs, "loggp: " + step));
    return decode(theirs, mine.size());
}

constexpr auto loggp_n = opt::row::whole_number("loggp-n", "16", 2, 10000, "messages n of PRTT(n,0,s) and PRTT(n,d,s)");
constexpr auto loggp_timing = opt::row::choice(
    "loggp-timing", "auto", {"auto", "per-sample", "batch"},
    "PRTT(1,0,s) and PRTT(n,0,s): per-sample (timer read around every repetition, as Hoefler et al. 2007), batch "
    "(once per --loggp-batch repetitions; statistics over batch means) or auto (a batch where a round trip is "
    "shorter than 100 timer steps)");
constexpr auto loggp_batch =
    opt::row::whole_number("loggp-batch", "16", 1, 4096, "repetitions per timed sample with --loggp-timing batch");
constexpr auto loggp_exchange = opt::row::choice(
    "loggp-exchange", "no", {"no", "yes"},
    "yes: also time n exchanges of s bytes both ways at once (irecv + isend + wait on both ranks) per size, for "
    "the CPU share of O_s and O_r (exchange_cpu_share); needs a module with reliable non-blocking calls (mpi, "
    "sim)");
constexpr auto raw_prtt =
    opt::row::output_file("raw-prtt", "write the per-size PRTT medians to this CSV (for ngx fit)");

opt::Table loggp_options()
{
    opt::Table table("loggp", {loggp_n, loggp_timing, loggp_batch, loggp_exchange});
    table.add(fit_options());
    table.add(raw_prtt);
    return table;
}

class LogGP final : public Pattern {
public:
    Status configure(const OptionValues& values) override
    {
        opt::Reader read(loggp_options(), values);
        messages_ = read(loggp_n);
        timing_ = read(loggp_timing);
        fixed_batch_ = read(loggp_batch);
        exchange_ = read(loggp_exchange);
        fit_settings_ = read_fit_settings(read);
        return read.ok() ? Status::ok() : Status::usage(read.error());
    }

    Json options_json() const override
    {
        Json options = fit_settings_json(fit_settings_);
        options["n"] = messages_;
        options["timing"] = timing_;
        options["exchange"] = exchange_;
        if (timing_ == "batch")
            options["batch"] = fixed_batch_;
        if (timing_ != "per-sample")
            options["statistics"] = "PRTT(1,0,s) and PRTT(n,0,s) over batch means where the batch column is > 1";
        return options;
    }

    Status run(PatternContext& ctx) override
    {
        sizes_.assign(ctx.settings.sizes.size(), PerSize{});
        exchanges_ = exchange_ == "yes";
        if (exchanges_ && !(ctx.transport.has(NGX_CAP_NONBLOCKING) && ctx.transport.has(NGX_CAP_RELIABLE)))
            return Status::usage("--loggp-exchange yes: module '" + ctx.transport.module().name() +
                                 "' has no reliable non-blocking calls (isend, irecv, wait) to exchange with");
        PassedSweep sweep;
        sweep.measure = [&](const PassSlice& slice, Buffer& buffer) { return measure_slice(ctx, slice, buffer); };
        sweep.finish = [&] { return exchange_receive_overheads(ctx); };
        sweep.record = [&](const PassSlice& last, Series& pooled) -> Result<SizeRecord> {
            return record(ctx, last, pooled);
        };
        return sweep_passes(ctx, sweep);
    }

    // The fit, after the ranks have met: it waits for no peer (under TCG
    // emulation it took 100 s, past the responder's deadline at the barrier).
    Status conclude(PatternContext& ctx) override
    {
        if (!ctx.bootstrap.is_driver())
            return Status::ok();
        if (samples_.size() < 3)
            return Status::usage("loggp needs at least three message sizes to fit g and G (eq. (7))");
        mark_local_work(ctx.settings.progress, "fitting the LogGP model");
        NGX_ASSIGN_OR_RETURN(Json model, fit_loggp_model(samples_, double(messages_), fit_settings_, rel_ci_));
        ctx.sink.set_model(std::move(model));
        return Status::ok();
    }

private:
    // What a size keeps from pass to pass besides its samples.
    struct PerSize {
        double d = 0;       // d of PRTT(n,d,s), from the first pass (both sides)
        uint64_t batch = 1; // repetitions per timed sample of PRTT(1,0,s) and PRTT(n,0,s) (both sides)
        double pilot_us = fit::Measured::nan; // the batch pilot's median PRTT(1,0,s) (both sides; NaN: no pilot)
        std::vector<double> d_spent;          // per pass: what wait(d) really took (driver)
        double o_r = fit::Measured::nan;      // the responder's median over all passes (driver, at the end)
        std::vector<double> receive_us;       // responder: the o_r samples of all passes
        std::vector<double> exchange_us;      // driver: per exchange, the samples of all passes
    };

    // One pass of one size: the series one after the other (driver samples:
    // PRTT(1,0,s), PRTT(n,0,s), PRTT(n,d,s)).
    Result<Series> measure_slice(PatternContext& ctx, const PassSlice& slice, Buffer& buffer)
    {
        PerSize& state = sizes_[slice.index];
        if (slice.first)
            NGX_TRY(choose_batch(ctx, buffer, slice.size, state));
        PrttSpec single{slice.size, 1, 0.0, slice.samples, series_warmup(state, slice.warmup, 1, 0)};
        PrttSpec burst{slice.size, messages_, 0.0, slice.samples, series_warmup(state, slice.warmup, messages_, 0)};
        single.batch = burst.batch = state.batch;
        NGX_ASSIGN_OR_RETURN(std::vector<double> prtt_1_0, run_prtt(ctx, buffer, single));
        NGX_ASSIGN_OR_RETURN(std::vector<double> prtt_n_0, run_prtt(ctx, buffer, burst));
        if (slice.first) { // d = PRTT(1,0,s) (section 3.2), chosen by the driver, used by both sides
            NGX_ASSIGN_OR_RETURN(std::vector<double> delay,
                                 swap_values(ctx.bootstrap, {ctx.bootstrap.is_driver() ? median(prtt_1_0) : 0.0},
                                             "d at " + format_bytes(slice.size)));
            state.d = ctx.bootstrap.is_driver() ? median(prtt_1_0) : delay.front();
        }
        PrttSpec delayed{slice.size, messages_, state.d, slice.samples,
                         series_warmup(state, slice.warmup, messages_, state.d)};
        double d_spent = state.d; // what wait(d) really took, measured by the driver
        delayed.delay_spent_us = &d_spent;
        NGX_ASSIGN_OR_RETURN(std::vector<double> prtt_n_d, run_prtt(ctx, buffer, delayed));
        ctx.sink.count_messages(2 * prtt_message_count(single) + 2 * prtt_message_count(burst));
        single.batch = 1; // o_r times each receive, after a wait of 2d
        single.warmup = series_warmup(state, slice.warmup, 1, 2 * state.d);
        NGX_TRY(measure_receive_overhead(ctx, buffer, single, state));
        if (exchanges_)
            NGX_TRY(measure_exchanges(ctx, buffer, burst, state));
        if (!ctx.bootstrap.is_driver())
            return Series{};
        state.d_spent.push_back(d_spent);
        return Series{std::move(prtt_1_0), std::move(prtt_n_0), std::move(prtt_n_d)};
    }

    // The batch of a size: with --loggp-timing
    // auto, enough repetitions per timed sample that a PRTT(1,0,s) sample
    // spans at least `auto_batch_steps` timer steps, so the timer's step (10
    // ns on a KVM guest's TSC, a tenth of a shared-memory round trip) no
    // longer quantizes the medians the fit works on. The driver decides it
    // from a short per-sample pilot series and both sides use it.
    Status choose_batch(PatternContext& ctx, Buffer& buffer, uint64_t size, PerSize& state)
    {
        if (timing_ != "auto") {
            state.batch = timing_ == "batch" ? fixed_batch_ : 1;
            return Status::ok();
        }
        PrttSpec pilot{size, 1, 0.0, auto_batch_pilot, auto_batch_pilot / 4};
        Result<std::vector<double>> times = run_prtt(ctx, buffer, pilot);
        if (!times)
            return times.status().with_context("batch pilot");
        ctx.sink.count_messages(2 * prtt_message_count(pilot));
        double wanted = 1, typical = 0;
        if (ctx.bootstrap.is_driver()) {
            const double step_us = std::max(ctx.timer.info().resolution_ns, 1.0) / 1000.0;
            typical = std::max(median(*times), step_us);
            wanted = std::clamp(std::ceil(auto_batch_steps * step_us / typical), 1.0, double(auto_batch_max));
        }
        Result<std::vector<double>> agreed =
            swap_values(ctx.bootstrap, {wanted, typical}, "batch at " + format_bytes(size));
        if (!agreed || agreed->size() != 2)
            return agreed ? Status::runtime("batch: the peer sent " + std::to_string(agreed->size()) + " values, not 2")
                          : agreed.status().with_context("batch");
        state.batch = uint64_t(ctx.bootstrap.is_driver() ? wanted : agreed->front());
        state.pilot_us = ctx.bootstrap.is_driver() ? typical : agreed->back();
        return Status::ok();
    }

    // The warm-up of one series of a size's pass: --warmup repetitions (or
    // the later passes' re-warm), but no more than fit in warmup_budget_us at
    // the pilot's pace, and at least min_warmup. The pilot has made the first
    // contact with the size (its code path, its buffer's pages: the costly
    // repetitions the warm-up is for, passes.hpp), after which the first
    // repetition costs a few times the median and the second about 1.2
    // times; so the cap binds only where one repetition takes milliseconds
    // (large messages over slow links: 10 warm-ups of PRTT(16,d,1 MiB) over
    // 400 Mbit/s were 7 s) and leaves the microsecond sizes their --warmup.
    // Both sides know pilot_us, so they agree on the count.
    static uint64_t series_warmup(const PerSize& state, uint64_t warmup, uint64_t messages, double delay_us)
    {
        if (!(state.pilot_us > 0))
            return warmup;
        const double repetition_us = double(messages) * state.pilot_us + delay_us;
        const double fitting = std::ceil(warmup_budget_us / repetition_us);
        return std::min(warmup, std::max(min_warmup, uint64_t(std::min(fitting, double(warmup)))));
    }

    // o_r on the responder: wait 2d, then time recv(). The driver sends the
    // next message as soon as the reply reaches it, so that message arrives
    // about d after the responder's last send; waiting 2d makes sure it is
    // there and only the receive call is timed.
    // The responder keeps the samples of every pass (their medians reach the
    // driver after the last pass, exchange_receive_overheads()).
    Status measure_receive_overhead(PatternContext& ctx, Buffer& buffer, const PrttSpec& spec, PerSize& state)
    {
        const double d = state.d;
        if (ctx.bootstrap.is_driver())
            return run_prtt(ctx, buffer, spec).status();
        Transport& transport = ctx.transport;
        const Timer& timer = ctx.timer;
        std::vector<double> receive_us(spec.samples);
        const double read_us = timer_read_cost_us(timer);
        // A repetition lost to a dropped message is retried after the resync (answer_series).
        Status status = answer_series(ctx, spec, [&](uint64_t rep) {
            timer.busy_wait_us(2 * d);
            uint64_t start = timer.now();
            ngx_status code = transport.recv_code(buffer.data(), spec.size);
            uint64_t end = timer.now();
            if (code != NGX_OK)
                return transport.failure("recv", code);
            code = transport.send_code(buffer.data(), spec.size);
            if (code != NGX_OK)
                return transport.failure("send", code);
            if (rep >= spec.warmup) // less the one timer read inside the interval
                receive_us[rep - spec.warmup] = timer.to_us(end - start) - read_us;
            return Status::ok();
        });
        if (!status)
            return status.with_context("o_r");
        state.receive_us.insert(state.receive_us.end(), receive_us.begin(), receive_us.end());
        return Status::ok();
    }

    // Both ranks run n exchanges back to back per repetition: irecv, isend,
    // wait for both (MPI_Sendrecv's order), into a second buffer; the driver
    // times each repetition and keeps its time per exchange
    // (fit/exchange_share.hpp).
    Status measure_exchanges(PatternContext& ctx, Buffer& buffer, const PrttSpec& spec, PerSize& state)
    {
        Transport& transport = ctx.transport;
        NGX_ASSIGN_OR_RETURN(Buffer incoming, transport.alloc(spec.size));
        const uint64_t repetitions = spec.warmup + spec.samples;
        std::vector<double> per_exchange;
        per_exchange.reserve(spec.samples);
        for (uint64_t rep = 0; rep < repetitions; ++rep) {
            const uint64_t start = ctx.timer.now();
            for (uint64_t k = 0; k < spec.messages; ++k) {
                ngx_request sent = 0, received = 0;
                Status status = transport.irecv(incoming.data(), spec.size, received);
                status = status ? transport.isend(buffer.data(), spec.size, sent) : status;
                status = status ? transport.wait(sent) : status;
                status = status ? transport.wait(received) : status;
                if (!status)
                    return status.with_context("exchange, " + where(spec.size, rep));
            }
            const uint64_t end = ctx.timer.now();
            if (rep >= spec.warmup)
                per_exchange.push_back(ctx.timer.to_us(end - start) / double(spec.messages));
        }
        ctx.sink.count_messages(2 * repetitions * spec.messages);
        if (ctx.bootstrap.is_driver())
            state.exchange_us.insert(state.exchange_us.end(), per_exchange.begin(), per_exchange.end());
        return Status::ok();
    }

    // After the last pass: the responder's o_r per size (the central mean of
    // all its passes' samples; NaN where none) reaches the driver.
    Status exchange_receive_overheads(PatternContext& ctx)
    {
        std::vector<double> medians(sizes_.size(), fit::Measured::nan);
        const double step_us = ctx.timer.info().resolution_ns / 1000.0;
        for (size_t i = 0; i < sizes_.size(); ++i)
            if (!sizes_[i].receive_us.empty())
                medians[i] = central_mean(sizes_[i].receive_us, step_us);
        mark_step(ctx.settings.progress, "receiving o_r from the peer", 0);
        Result<std::vector<double>> theirs = swap_values(ctx.bootstrap, medians, "o_r per size");
        if (!theirs)
            return theirs.status().with_context("o_r");
        if (ctx.bootstrap.is_driver())
            for (size_t i = 0; i < sizes_.size(); ++i)
                sizes_[i].o_r = (*theirs)[i];
        return Status::ok();
    }

    // pooled: PRTT(1,0,s), PRTT(n,0,s), PRTT(n,d,s) over all passes of the size.
    SizeRecord record(PatternContext& ctx, const PassSlice& last, Series& pooled)
    {
        const PerSize& state = sizes_[last.index];
        // The widest relative 95% interval of the three medians: the measured noise of this size.
        double rel_ci = widest_rel_ci95(pooled);
        // Eq. (6) subtracts the d that was really waited (the median over the passes), so o holds no cost of
        // the delay loop.
        double d_spent = state.d_spent.empty() ? state.d : median(state.d_spent);
        double prtt_n_0 = median(pooled[1]);
        double prtt_n_d = median(pooled[2]);
        SizeRecord record = make_record(ctx, last.size, std::move(pooled[0]));
        fit::PrttSample sample{double(last.size), record.summary.median, prtt_n_0, prtt_n_d, d_spent,
                               state.o_r,         std::nullopt};
        if (!state.exchange_us.empty())
            sample.exchange = median(state.exchange_us);
        samples_.push_back(sample);
        rel_ci_.push_back(rel_ci);
        std::vector<std::pair<std::string, double>> columns = loggp_size_columns(sample, double(messages_));
        if (sample.exchange)
            columns.emplace_back("exchange_us", *sample.exchange);
        columns.emplace_back("rel_ci95", rel_ci);
        columns.emplace_back("batch", double(state.batch));
        record.extra.insert(record.extra.begin(), columns.begin(), columns.end()); // loss columns stay after them
        return record;
    }

    static constexpr double auto_batch_steps = 100;
    static constexpr uint64_t auto_batch_pilot = 16, auto_batch_max = 256;
    static constexpr double warmup_budget_us = 20000;
    static constexpr uint64_t min_warmup = 2;

    uint64_t messages_ = 16;
    std::string timing_ = "auto";
    std::string exchange_ = "no";
    bool exchanges_ = false; // this run measures exchanges (--loggp-exchange yes)
    uint64_t fixed_batch_ = 16;
    LogGPFitSettings fit_settings_;
    std::vector<fit::PrttSample> samples_;
    std::vector<double> rel_ci_; // per size: relative width of the widest 95% interval of a median
    std::vector<PerSize> sizes_; // per size of ctx.settings.sizes
};

std::vector<std::unique_ptr<Reporter>> loggp_reporters(const OptionValues& values)
{
    std::vector<std::unique_ptr<Reporter>> reporters;
    opt::Reader read(loggp_options(), values);
    if (std::optional<std::string> path = read.optional(raw_prtt))
        reporters.push_back(make_prtt_csv_reporter(*path));
    return reporters;
}

} // namespace

PatternInfo loggp_pattern()
{
    PatternInfo info;
    info.name = "loggp";
    info.description = "LogGP parameters per protocol range from PRTT(n,d,s) (Hoefler et al. 2007)";
    info.metric = "PRTT(1,0,s)";
    // Two sizes an octave (2^k and 3 * 2^(k-1)), 34 in all: a protocol range
    // between two switches a factor 4 apart still has the points to fit
    // eq. (1)-(7) with the slopes of o(s), and the detector sees where it ends.
    info.default_sizes = "1,2,3,4,6,8,12,16,24,32,48,64,96,128,192,256,384,512,768,1Ki,1536,2Ki,3Ki,4Ki,6Ki,8Ki,"
                         "12Ki,16Ki,24Ki,32Ki,48Ki,64Ki,96Ki,128Ki";
    info.options = loggp_options().specs();
    info.create = [] { return std::make_unique<LogGP>(); };
    info.default_count = 100;
    info.default_warmup = 10;
    info.reporters = loggp_reporters;
    info.fit = fit_offline;
    info.fit_reads = reads_prtt_csv;
    info.models = {loggp_model_kind()};
    info.min_message_bytes = 1;
    info.min_message_reason = "PRTT(1,0,s) of eq. (1) and eq. (7) are in s - 1";
    return info;
}

} // namespace ngx::patterns

NGX_PATTERN_EXPORT(ngx::patterns::loggp_pattern)
