// The bw pattern's own LogGP fit (--bw-fit): at every size, in the same
// passes as the windows, the series the loggp pattern measures
// (ngx/measure/loggp_series.hpp: PRTT(1,0,s), PRTT(n,0,s), PRTT(n,d,s) and the
// responder's o_r, Hoefler et al. 2007), fitted after the run by the loggp
// pattern's fit (models/loggp/loggp_model.hpp, fit_loggp_model) into the model
// whose windows each row is compared with. The fit needs every size, so the
// sizes' records wait (HeldRecords) until conclude() has it; the fit itself
// is local work after the ranks have met, as in the loggp pattern.
//
//     OwnFit fit(ctx.settings.sizes.size(), ctx.sink);
//     PatternContext held = fit.holding(ctx);            // the sweep reports into it
//     Series series = windows; fit.measure(held, slice, buffer, series);   // appends the PRTT series
//     fit.finish(held);                                  // after the last pass: o_r to the driver
//     fit.keep(last, pooled);                            // record(): pooled[1..3] are the PRTT series
//     Result<Json> model = fit.model(ctx);               // conclude(), driver: the fitted model
//     std::vector<SizeRecord> rows = fit.take_records(); // then each with its prediction, to ctx.sink
#ifndef NGX_PATTERNS_BW_OWN_FIT_HPP
#define NGX_PATTERNS_BW_OWN_FIT_HPP

#include <ngx/measure/loggp_series.hpp>

#include <ngx/pattern.hpp>

#include <vector>

namespace ngx::patterns {

// A sink that keeps the sizes' records and passes everything else on.
class HeldRecords final : public ResultSink {
public:
    explicit HeldRecords(ResultSink& sink) : sink_(sink) {}
    void size_done(SizeRecord record) override { records_.push_back(std::move(record)); }
    void set_model(Json model) override { sink_.set_model(std::move(model)); }
    void count_messages(uint64_t messages) override { sink_.count_messages(messages); }
    void pass_done(uint64_t done, uint64_t planned) override { sink_.pass_done(done, planned); }
    void set_measurement(Json measurement) override { sink_.set_measurement(std::move(measurement)); }
    std::vector<SizeRecord> take() { return std::move(records_); }

private:
    ResultSink& sink_;
    std::vector<SizeRecord> records_;
};

class OwnFit {
public:
    OwnFit(size_t sizes, ResultSink& sink) : series_(LogGPSeriesSettings{}, sizes), held_(sink) {}

    // The run's context with the records held back.
    PatternContext holding(const PatternContext& ctx)
    {
        return {ctx.transport, ctx.bootstrap, ctx.timer, ctx.settings, held_, ctx.cancel};
    }

    // Both sides, after the slice's windows: the LogGP series of the slice,
    // appended to the driver's `series` (as series 1, 2, 3).
    Status measure(PatternContext& ctx, const PassSlice& slice, Buffer& buffer, Series& series);

    // Both sides, after the last pass.
    Status finish(PatternContext& ctx) { return series_.finish(ctx); }

    // Driver, per size after its last pass: its sample for the fit.
    void keep(const PassSlice& last, Series& pooled);

    // Driver, after the run: the fitted model (kind "loggp", as the loggp
    // pattern writes it), its source named.
    Result<Json> model(const PatternContext& ctx) const;

    std::vector<SizeRecord> take_records() { return held_.take(); }

    // n of PRTT(n,0,s) and PRTT(n,d,s).
    static constexpr uint64_t messages = LogGPSeriesSettings{}.messages;

private:
    LogGPSeries series_;
    HeldRecords held_;
    std::vector<fit::PrttSample> samples_;
    std::vector<double> rel_ci_; // per size: relative width of the widest 95% interval of a PRTT median
};

} // namespace ngx::patterns

#endif
