// Pattern "loggp": LogGP parameters exactly as Hoefler et al. 2007 assesses them.
//
// Per message size s it measures, in interleaved passes
// (ngx/measure/passes.hpp), PRTT(1,0,s), PRTT(n,0,s), PRTT(n,d,s) with
// d = PRTT(1,0,s), the responder's o_r and, with --loggp-exchange yes (a
// module with reliable non-blocking calls), n exchanges of s bytes both ways
// at once: the series of ngx/measure/loggp_series.hpp, which the bw
// pattern's own fit measures too.
// After the sweep and the ranks' meeting after the run (conclude(): local
// work, no peer waits for it) the driver fits g and G per protocol range
// (section 3.5 change detection) and reports one parameter set per range (Table 2).
#include <ngx/measure/loggp_series.hpp>
#include <ngx/measure/passes.hpp>
#include <ngx/measure/sweep.hpp>
#include <models/loggp/loggp_model.hpp>
#include <models/base/offline.hpp>
#include <models/loggp/loggp_offline.hpp>
#include <models/loggp/prtt_file.hpp>

#include <ngx/pattern_plugin.hpp>

#include <optional>

namespace ngx::patterns {
namespace {

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
        const bool exchanges = exchange_ == "yes";
        if (exchanges && !(ctx.transport.has(NGX_CAP_NONBLOCKING) && ctx.transport.has(NGX_CAP_RELIABLE)))
            return Status::usage("--loggp-exchange yes: module '" + ctx.transport.module().name() +
                                 "' has no reliable non-blocking calls (isend, irecv, wait) to exchange with");
        series_.emplace(LogGPSeriesSettings{messages_, timing_, fixed_batch_, exchanges}, ctx.settings.sizes.size());
        PassedSweep sweep;
        sweep.measure = [&](const PassSlice& slice, Buffer& buffer) { return series_->measure(ctx, slice, buffer); };
        sweep.finish = [&] { return series_->finish(ctx); };
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
    // pooled: PRTT(1,0,s), PRTT(n,0,s), PRTT(n,d,s) over all passes of the size.
    SizeRecord record(PatternContext& ctx, const PassSlice& last, Series& pooled)
    {
        // The widest relative 95% interval of the three medians: the measured noise of this size.
        double rel_ci = widest_rel_ci95(pooled);
        std::vector<double> prtt_n_0 = std::move(pooled[1]), prtt_n_d = std::move(pooled[2]);
        SizeRecord record = make_record(ctx, last.size, std::move(pooled[0]));
        fit::PrttSample sample = series_->sample(last.index, last.size, record.summary.median, prtt_n_0, prtt_n_d);
        samples_.push_back(sample);
        rel_ci_.push_back(rel_ci);
        std::vector<std::pair<std::string, double>> columns = loggp_size_columns(sample, double(messages_));
        if (sample.exchange)
            columns.emplace_back("exchange_us", *sample.exchange);
        columns.emplace_back("rel_ci95", rel_ci);
        columns.emplace_back("batch", double(series_->batch(last.index)));
        record.extra.insert(record.extra.begin(), columns.begin(), columns.end()); // loss columns stay after them
        return record;
    }

    uint64_t messages_ = 16;
    std::string timing_ = "auto";
    std::string exchange_ = "no";
    uint64_t fixed_batch_ = 16;
    LogGPFitSettings fit_settings_;
    std::vector<fit::PrttSample> samples_;
    std::vector<double> rel_ci_;        // per size: relative width of the widest 95% interval of a median
    std::optional<LogGPSeries> series_; // the run's measurement, from run()
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
    info.fit_options = loggp_fit_options();
    info.fit_usage = "Usage: ngx fit FILE [options]   (loggp: raw-PRTT CSV or a saved loggp run)";
    info.fit_reads = reads_prtt_csv;
    info.models = {loggp_model_kind()};
    info.min_message_bytes = 1;
    info.min_message_reason = "PRTT(1,0,s) of eq. (1) and eq. (7) are in s - 1";
    return info;
}

} // namespace ngx::patterns

NGX_PATTERN_EXPORT(ngx::patterns::loggp_pattern)
