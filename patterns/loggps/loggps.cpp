// Pattern "loggps": LogGPS parameters as Ino et al. 2001 derives them (section 4.3).
//
// The round-trip program of Figure 3: P0 sends k bytes, computes for w,
// receives the reply; P1 receives and replies. Per size the driver measures
// the RTT (median of c repetitions) at w = 0 and at w = W, where W must hide
// the communication behind the computation (the max{} terms of Table 6
// vanish). ngx takes W per size as `--loggps-w-factor` times RTT(k, 0), so
// every size is overlapped without making small sizes slow. The fit of the
// two curves to Table 6 gives o', O_s, O_r, G_s, G_l, L, the multi-packet
// threshold s and the rendezvous threshold S (models/loggps/loggps.hpp). Measured in
// passes (ngx/measure/passes.hpp): the two RTT series of a size stay
// together within a pass, and W is chosen in the size's first pass.
#include <ngx/pattern_plugin.hpp>

#include <ngx/measure/passes.hpp>
#include <ngx/measure/prtt.hpp>
#include <ngx/measure/sweep.hpp>

#include <models/loggps/loggps_model.hpp>
#include <models/loggps/loggps_offline.hpp>

#include <cmath>

namespace ngx::patterns {
namespace {

constexpr auto loggps_w_factor =
    opt::row::number("loggps-w-factor", "3", 1, 100, "W per size as this multiple of RTT(k, 0)");

opt::Table loggps_options()
{
    return {"loggps", {loggps_w_factor}};
}

class LogGPS final : public Pattern {
public:
    Status configure(const OptionValues& values) override
    {
        opt::Reader read(loggps_options(), values);
        factor_ = read(loggps_w_factor);
        return read.ok() ? Status::ok() : Status::usage(read.error());
    }

    Json options_json() const override { return {{"w_factor", factor_}}; }

    Status run(PatternContext& ctx) override
    {
        w_us_.assign(ctx.settings.sizes.size(), 0.0);
        PassedSweep sweep;
        sweep.measure = [&](const PassSlice& slice, Buffer& buffer) { return measure_slice(ctx, slice, buffer); };
        sweep.record = [&](const PassSlice& last, Series& pooled) -> Result<SizeRecord> {
            return record(ctx, last, pooled);
        };
        NGX_TRY(sweep_passes(ctx, sweep));
        if (!ctx.bootstrap.is_driver())
            return Status::ok();
        NGX_ASSIGN_OR_RETURN(Json model, fit_loggps_model(points_, factor_));
        ctx.sink.set_model(std::move(model));
        return Status::ok();
    }

private:
    // One pass of one size: RTT(k, 0), then RTT(k, W).
    Result<Series> measure_slice(PatternContext& ctx, const PassSlice& slice, Buffer& buffer)
    {
        PrttSpec plain{slice.size, 1, 0.0, slice.samples, slice.warmup};
        NGX_ASSIGN_OR_RETURN(std::vector<double> rtt_0, run_prtt(ctx, buffer, plain));
        // W for this size, from its first pass: only the driver computes, so only it needs to know W.
        if (slice.first && ctx.bootstrap.is_driver())
            w_us_[slice.index] = factor_ * median(rtt_0);
        PrttSpec imbalanced = plain;
        imbalanced.compute_us = w_us_[slice.index];
        NGX_ASSIGN_OR_RETURN(std::vector<double> rtt_w, run_prtt(ctx, buffer, imbalanced));
        ctx.sink.count_messages(2 * prtt_message_count(plain));
        if (!ctx.bootstrap.is_driver())
            return Series{};
        return Series{std::move(rtt_0), std::move(rtt_w)};
    }

    // pooled: RTT(k, 0) and RTT(k, W) over all passes of the size.
    SizeRecord record(PatternContext& ctx, const PassSlice& last, Series& pooled)
    {
        double w = w_us_[last.index];
        double rtt_w_median = median(pooled[1]);
        SizeRecord record = make_record(ctx, last.size, std::move(pooled[0]));
        double size = double(last.size);
        points_.push_back({size, 0.0, record.summary.median});
        points_.push_back({size, w, rtt_w_median});
        record.extra.insert(record.extra.begin(), // before make_record's loss columns, if any
                            {{"w_us", w}, {"rtt_w_us", rtt_w_median}, {"rtt_w_minus_w_us", rtt_w_median - w}});
        return record;
    }

    double factor_ = 3.0;
    std::vector<fit::RttPoint> points_;
    std::vector<double> w_us_; // W per size, from its first pass (driver)
};

} // namespace

PatternInfo loggps_pattern()
{
    PatternInfo info;
    info.name = "loggps";
    info.description =
        "LogGPS parameters (o', O_s, O_r, G_s, G_l, L, s, S) from RTT with imbalance w (Ino et al. 2001)";
    info.metric = "RTT(k, w=0)";
    info.default_sizes = "1-256Ki";
    info.options = loggps_options().specs();
    info.create = [] { return std::make_unique<LogGPS>(); };
    info.default_count = 200;
    info.default_warmup = 20;
    info.fit = loggps_fit_offline;
    info.fit_options = loggps_fit_options();
    info.fit_usage = "Usage: ngx fit RUN.json [options]   (loggps: a saved loggps run)";
    info.models = {loggps_model_kind()};
    return info;
}

} // namespace ngx::patterns

NGX_PATTERN_EXPORT(ngx::patterns::loggps_pattern)
