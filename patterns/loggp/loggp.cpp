// Pattern "loggp": LogGP parameters exactly as paper 001 assesses them.
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
// After the sweep the driver fits g and G per protocol range (section 3.5
// change detection) and reports one parameter set per range (Table 2).
#include "../common/prtt.hpp"
#include "../common/sweep.hpp"
#include "loggp_model.hpp"
#include "offline.hpp"
#include "prtt_file.hpp"

#include <ngx/pattern_plugin.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ngx::patterns {
namespace {

Bytes encode(double value)
{
    Bytes bytes(sizeof value);
    std::memcpy(bytes.data(), &value, sizeof value);
    return bytes;
}

Result<double> decode(const Bytes& bytes)
{
    if (bytes.size() != sizeof(double))
        return Status::runtime("loggp: the peer sent a malformed value through the bootstrap");
    double value;
    std::memcpy(&value, bytes.data(), sizeof value);
    return value;
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

// The driver's value of d reaches the responder; the responder's o_r comes back.
Result<double> swap_value(Bootstrap& boot, double mine)
{
    Bytes theirs;
    NGX_TRY(boot.exchange(encode(mine), theirs));
    return decode(theirs);
}

class LogGP final : public Pattern {
public:
    Status configure(const OptionValues& values) override
    {
        opt::OptionReader read(values);
        messages_ = read.whole_number("loggp-n", 2, 10000);
        fit_settings_ = read_fit_settings(read);
        return read.ok() ? Status::ok() : Status::usage(read.error());
    }

    Json options_json() const override
    {
        Json options = fit_settings_json(fit_settings_);
        options["n"] = messages_;
        return options;
    }

    Status run(PatternContext& ctx) override
    {
        for (uint64_t size : ctx.settings.sizes)
            if (size == 0) // checked before measuring: eq. (1) and (7) are in s - 1
                return Status::usage("loggp: message sizes must be >= 1 byte (PRTT(1,0,s) and eq. (7) are in s - 1); "
                                     "-s includes 0");
        NGX_TRY(sweep_sizes(ctx, [&](uint64_t size, Buffer& buffer) { return measure_size(ctx, size, buffer); }));
        if (!ctx.bootstrap.is_driver())
            return Status::ok();
        if (samples_.size() < 3)
            return Status::usage("loggp needs at least three message sizes to fit g and G (eq. (7))");
        Result<Json> model = fit_loggp_model(samples_, double(messages_), fit_settings_, rel_ci_);
        if (!model)
            return model.status();
        ctx.sink.set_model(std::move(*model));
        return Status::ok();
    }

private:
    Result<SizeRecord> measure_size(PatternContext& ctx, uint64_t size, Buffer& buffer)
    {
        const RunSettings& settings = ctx.settings;
        PrttSpec single{size, 1, 0.0, settings.count, settings.warmup};
        PrttSpec burst{size, messages_, 0.0, settings.count, settings.warmup};
        Result<std::vector<double>> prtt_1_0 = run_prtt(ctx, buffer, single);
        if (!prtt_1_0)
            return prtt_1_0.status();
        Result<std::vector<double>> prtt_n_0 = run_prtt(ctx, buffer, burst);
        if (!prtt_n_0)
            return prtt_n_0.status();
        // d = PRTT(1,0,s) (section 3.2), chosen by the driver, used by both sides.
        Result<double> delay = swap_value(ctx.bootstrap, ctx.bootstrap.is_driver() ? median(*prtt_1_0) : 0.0);
        if (!delay)
            return delay.status();
        double d = ctx.bootstrap.is_driver() ? median(*prtt_1_0) : *delay;
        PrttSpec delayed{size, messages_, d, settings.count, settings.warmup};
        double d_spent = d; // what wait(d) really took, measured by the driver (issue 9 item 3)
        delayed.delay_spent_us = &d_spent;
        Result<std::vector<double>> prtt_n_d = run_prtt(ctx, buffer, delayed);
        if (!prtt_n_d)
            return prtt_n_d.status();
        Result<double> o_r = measure_receive_overhead(ctx, buffer, single, d);
        if (!o_r)
            return o_r.status();
        ctx.sink.count_messages(2 * prtt_message_count(single) + 2 * prtt_message_count(burst));
        if (!ctx.bootstrap.is_driver())
            return SizeRecord{};
        // The widest relative 95% interval of the three medians: the measured noise of this size.
        double rel_ci = std::max({median_rel_ci95(*prtt_1_0), median_rel_ci95(*prtt_n_0), median_rel_ci95(*prtt_n_d)});
        // Eq. (6) subtracts the d that was really waited, so o holds no cost of the delay loop.
        return record(ctx, size, d_spent, *o_r, rel_ci, std::move(*prtt_1_0), median(*prtt_n_0), median(*prtt_n_d));
    }

    // o_r on the responder: wait 2d, then time recv(). The driver sends the
    // next message as soon as the reply reaches it, so that message arrives
    // about d after the responder's last send; waiting 2d makes sure it is
    // there and only the receive call is timed.
    Result<double> measure_receive_overhead(PatternContext& ctx, Buffer& buffer, const PrttSpec& spec, double d)
    {
        if (ctx.bootstrap.is_driver()) {
            Result<std::vector<double>> round_trips = run_prtt(ctx, buffer, spec);
            if (!round_trips)
                return round_trips.status();
            return swap_value(ctx.bootstrap, 0.0);
        }
        Transport& transport = ctx.transport;
        const Timer& timer = ctx.timer;
        std::vector<double> receive_us(spec.samples);
        const double read_us = timer_read_cost_us(timer);
        // A repetition lost to a dropped message is retried after the resync (answer_series).
        Status status = answer_series(ctx, spec, [&](uint64_t rep, const char*& operation) {
            timer.busy_wait_us(2 * d);
            uint64_t start = timer.now();
            ngx_status code = transport.recv_code(buffer.data(), spec.size);
            uint64_t end = timer.now();
            if (code != NGX_OK)
                return code;
            operation = "send";
            code = transport.send_code(buffer.data(), spec.size);
            if (code == NGX_OK && rep >= spec.warmup) // less the one timer read inside the interval
                receive_us[rep - spec.warmup] = timer.to_us(end - start) - read_us;
            return code;
        });
        if (!status)
            return status.with_context("o_r");
        return swap_value(ctx.bootstrap, central_mean(std::move(receive_us), timer.info().resolution_ns / 1000.0));
    }

    SizeRecord record(PatternContext& ctx, uint64_t size, double d, double o_r, double rel_ci,
                      std::vector<double> prtt_1_0, double prtt_n_0, double prtt_n_d)
    {
        SizeRecord record = make_record(ctx, size, std::move(prtt_1_0));
        fit::PrttSample sample{double(size), record.summary.median, prtt_n_0, prtt_n_d, d, o_r};
        samples_.push_back(sample);
        rel_ci_.push_back(rel_ci);
        std::vector<std::pair<std::string, double>> columns = loggp_size_columns(sample, double(messages_));
        columns.emplace_back("rel_ci95", rel_ci);
        record.extra.insert(record.extra.begin(), columns.begin(), columns.end()); // loss columns stay after them
        return record;
    }

    uint64_t messages_ = 16;
    LogGPFitSettings fit_settings_;
    std::vector<fit::PrttSample> samples_;
    std::vector<double> rel_ci_; // per size: relative width of the widest 95% interval of a median
};

std::vector<opt::OptionSpec> loggp_options()
{
    std::vector<opt::OptionSpec> options = {{"loggp-n", "16", "messages n of PRTT(n,0,s) and PRTT(n,d,s)"}};
    for (opt::OptionSpec& spec : fit_option_specs())
        options.push_back(std::move(spec));
    options.push_back(opt::optional_value("raw-prtt", "write the per-size PRTT medians to this CSV (for ngx fit)",
                                          opt::OptionKind::output_file));
    return options;
}

std::vector<std::unique_ptr<Reporter>> loggp_reporters(const OptionValues& values)
{
    std::vector<std::unique_ptr<Reporter>> reporters;
    if (const std::string* path = opt::find(values, "raw-prtt"))
        reporters.push_back(make_prtt_csv_reporter(*path));
    return reporters;
}

} // namespace

PatternInfo loggp_pattern()
{
    PatternInfo info;
    info.name = "loggp";
    info.description = "LogGP parameters per protocol range from PRTT(n,d,s) (paper 001)";
    info.metric = "PRTT(1,0,s)";
    info.default_sizes = "1-128Ki";
    info.options = loggp_options();
    info.create = [] { return std::make_unique<LogGP>(); };
    info.default_count = 100;
    info.default_warmup = 10;
    info.reporters = loggp_reporters;
    info.fit = fit_offline;
    info.fit_reads = reads_prtt_csv;
    info.predict = predict_offline;
    return info;
}

} // namespace ngx::patterns

NGX_PATTERN_EXPORT(ngx::patterns::loggp_pattern)
