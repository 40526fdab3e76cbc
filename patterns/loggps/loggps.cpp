// Pattern "loggps": LogGPS parameters as paper 004 derives them (section 4.3).
//
// The round-trip program of Figure 3: P0 sends k bytes, computes for w,
// receives the reply; P1 receives and replies. Per size the driver measures
// the RTT (median of c repetitions) at w = 0 and at w = W, where W must hide
// the communication behind the computation (the max{} terms of Table 6
// vanish). ngx takes W per size as `--loggps-w-factor` times RTT(k, 0), so
// every size is overlapped without making small sizes slow. The fit of the
// two curves to Table 6 gives o', O_s, O_r, G_s, G_l, L, the multi-packet
// threshold s and the rendezvous threshold S (fit/loggps.hpp).
#include <ngx/pattern_plugin.hpp>

#include "../common/prtt.hpp"
#include "../common/sweep.hpp"

#include "loggps_model.hpp"
#include "loggps_offline.hpp"

#include <cmath>

namespace ngx::patterns {
namespace {

class LogGPS final : public Pattern {
public:
    Status configure(const OptionValues& values) override
    {
        opt::OptionReader read(values);
        factor_ = read.number("loggps-w-factor", 1, 100);
        return read.ok() ? Status::ok() : Status::usage(read.error());
    }

    Json options_json() const override { return {{"w_factor", factor_}}; }

    Status run(PatternContext& ctx) override
    {
        NGX_TRY(sweep_sizes(ctx, [&](uint64_t size, Buffer& buffer) { return measure_size(ctx, size, buffer); }));
        if (!ctx.bootstrap.is_driver())
            return Status::ok();
        Result<Json> model = fit_loggps_model(points_, factor_);
        if (!model)
            return model.status();
        ctx.sink.set_model(std::move(*model));
        return Status::ok();
    }

private:
    Result<SizeRecord> measure_size(PatternContext& ctx, uint64_t size, Buffer& buffer)
    {
        PrttSpec plain{size, 1, 0.0, ctx.settings.count, ctx.settings.warmup};
        Result<std::vector<double>> rtt_0 = run_prtt(ctx, buffer, plain);
        if (!rtt_0)
            return rtt_0.status();
        // W for this size: only the driver computes, so only it needs to know W.
        double w = ctx.bootstrap.is_driver() ? factor_ * median(*rtt_0) : 0.0;
        PrttSpec imbalanced = plain;
        imbalanced.compute_us = w;
        Result<std::vector<double>> rtt_w = run_prtt(ctx, buffer, imbalanced);
        if (!rtt_w)
            return rtt_w.status();
        ctx.sink.count_messages(2 * prtt_message_count(plain));
        if (!ctx.bootstrap.is_driver())
            return SizeRecord{};
        double rtt_w_median = median(*rtt_w);
        SizeRecord record = make_record(ctx, size, std::move(*rtt_0));
        points_.push_back({double(size), 0.0, record.summary.median});
        points_.push_back({double(size), w, rtt_w_median});
        record.extra.insert(record.extra.begin(), // before make_record's loss columns, if any
                            {{"w_us", w}, {"rtt_w_us", rtt_w_median}, {"rtt_w_minus_w_us", rtt_w_median - w}});
        return record;
    }

    double factor_ = 3.0;
    std::vector<fit::RttPoint> points_;
};

} // namespace

PatternInfo loggps_pattern()
{
    PatternInfo info;
    info.name = "loggps";
    info.description = "LogGPS parameters (o', O_s, O_r, G_s, G_l, L, s, S) from RTT with imbalance w (paper 004)";
    info.metric = "RTT(k, w=0)";
    info.default_sizes = "1-256Ki";
    info.options = {{"loggps-w-factor", "3", "W per size as this multiple of RTT(k, 0)"}};
    info.create = [] { return std::make_unique<LogGPS>(); };
    info.default_count = 200;
    info.default_warmup = 20;
    info.fit = loggps_fit_offline;
    info.predict = loggps_predict_offline;
    return info;
}

} // namespace ngx::patterns

NGX_PATTERN_EXPORT(ngx::patterns::loggps_pattern)
