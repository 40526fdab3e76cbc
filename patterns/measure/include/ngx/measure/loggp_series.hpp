// The per-size measurement of the LogGP parameters as Hoefler et al. 2007
// assesses them, run slice by slice in interleaved passes (passes.hpp);
// the loggp pattern reports it and fits it, and the bw pattern fits it to
// predict its windows from the run's own model (--bw-fit).
//
// Per message size s and pass the driver measures:
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
// With exchanges (a module with reliable non-blocking calls) both ranks also
// run n exchanges of s bytes back to back (irecv + isend + wait, as
// MPI_Sendrecv), timed by the driver: the fit takes from them the share of
// the per-byte overheads O_s and O_r that occupies the CPU while the rank
// sends and receives at once (models/loggp/exchange_share.hpp).
// d is chosen in the size's first pass and kept for the later ones, so every
// PRTT(n,d,s) sample of a size has the same d; the medians are over the
// samples of all passes. After the last pass, finish() brings the
// responder's o_r per size to the driver, and sample() gives the fit
// (fit_loggp_model, loggp_model.hpp) a size's PrttSample.
//
//     LogGPSeries series(settings, ctx.settings.sizes.size());
//     sweep.measure = [&](const PassSlice& slice, Buffer& b) { return series.measure(ctx, slice, b); };
//     sweep.finish = [&] { return series.finish(ctx); };
//     // record (driver): pooled[0..2] are PRTT(1,0,s), PRTT(n,0,s), PRTT(n,d,s) of all passes
//     fit::PrttSample s = series.sample(last.index, last.size, median(pooled[0]), pooled[1], pooled[2]);
#ifndef NGX_MEASURE_LOGGP_SERIES_HPP
#define NGX_MEASURE_LOGGP_SERIES_HPP

#include <ngx/measure/passes.hpp>
#include <ngx/measure/prtt.hpp>

#include <models/loggp/loggp.hpp>
#include <ngx/pattern.hpp>

#include <string>
#include <vector>

namespace ngx::patterns {

struct LogGPSeriesSettings {
    uint64_t messages = 16;      // n of PRTT(n,0,s) and PRTT(n,d,s)
    std::string timing = "auto"; // per-sample, batch (fixed_batch repetitions per sample) or auto
    uint64_t fixed_batch = 16;
    bool exchanges = false; // also time n exchanges per size (needs reliable non-blocking calls)
};

class LogGPSeries {
public:
    LogGPSeries(LogGPSeriesSettings settings, size_t sizes) : settings_(std::move(settings)), sizes_(sizes) {}

    // One pass of one size, both sides: the series one after the other. The
    // driver returns PRTT(1,0,s), PRTT(n,0,s), PRTT(n,d,s); the responder an
    // empty Series.
    Result<Series> measure(PatternContext& ctx, const PassSlice& slice, Buffer& buffer);

    // After the last pass, both sides: the responder's o_r per size reaches the driver.
    Status finish(PatternContext& ctx);

    // Driver, after finish(): the fit's sample of size `index` from the
    // pooled medians' series (PRTT(1,0,s) as its median).
    fit::PrttSample sample(size_t index, uint64_t size, double prtt_1_0_us, const std::vector<double>& prtt_n_0,
                           const std::vector<double>& prtt_n_d) const;

    // Repetitions per timed sample of PRTT(1,0,s) and PRTT(n,0,s) at size `index`.
    uint64_t batch(size_t index) const { return sizes_[index].batch; }

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

    Status choose_batch(PatternContext& ctx, Buffer& buffer, uint64_t size, PerSize& state) const;
    static uint64_t series_warmup(const PerSize& state, uint64_t warmup, uint64_t messages, double delay_us);
    static Status measure_receive_overhead(PatternContext& ctx, Buffer& buffer, const PrttSpec& spec, PerSize& state);
    static Status measure_exchanges(PatternContext& ctx, Buffer& buffer, const PrttSpec& spec, PerSize& state);

    LogGPSeriesSettings settings_;
    std::vector<PerSize> sizes_; // per size of ctx.settings.sizes
};

} // namespace ngx::patterns

#endif
