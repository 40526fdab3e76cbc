// The LogGP series of Hoefler et al. 2007 per size and pass (loggp_series.hpp).
#include <ngx/measure/loggp_series.hpp>

#include <ngx/progress.hpp>
#include <ngx/sizes.hpp>
#include <ngx/statistics.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ngx::patterns {
namespace {

// The batch of a size with timing auto: enough repetitions per timed sample
// that a PRTT(1,0,s) sample spans at least auto_batch_steps timer steps.
constexpr double auto_batch_steps = 100;
constexpr uint64_t auto_batch_pilot = 16, auto_batch_max = 256;
// The warm-up of a series fits in this budget at the pilot's pace (series_warmup).
constexpr double warmup_budget_us = 20000;
constexpr uint64_t min_warmup = 2;

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

} // namespace

// One pass of one size: the series one after the other (driver samples:
// PRTT(1,0,s), PRTT(n,0,s), PRTT(n,d,s)).
Result<Series> LogGPSeries::measure(PatternContext& ctx, const PassSlice& slice, Buffer& buffer)
{
    PerSize& state = sizes_[slice.index];
    const uint64_t n = settings_.messages;
    if (slice.first)
        NGX_TRY(choose_batch(ctx, buffer, slice.size, state));
    PrttSpec single{slice.size, 1, 0.0, slice.samples, series_warmup(state, slice.warmup, 1, 0)};
    PrttSpec burst{slice.size, n, 0.0, slice.samples, series_warmup(state, slice.warmup, n, 0)};
    single.batch = burst.batch = state.batch;
    NGX_ASSIGN_OR_RETURN(std::vector<double> prtt_1_0, run_prtt(ctx, buffer, single));
    NGX_ASSIGN_OR_RETURN(std::vector<double> prtt_n_0, run_prtt(ctx, buffer, burst));
    if (slice.first) { // d = PRTT(1,0,s) (section 3.2), chosen by the driver, used by both sides
        NGX_ASSIGN_OR_RETURN(std::vector<double> delay,
                             swap_values(ctx.bootstrap, {ctx.bootstrap.is_driver() ? median(prtt_1_0) : 0.0},
                                         "d at " + format_bytes(slice.size)));
        state.d = ctx.bootstrap.is_driver() ? median(prtt_1_0) : delay.front();
    }
    PrttSpec delayed{slice.size, n, state.d, slice.samples, series_warmup(state, slice.warmup, n, state.d)};
    double d_spent = state.d; // what wait(d) really took, measured by the driver
    delayed.delay_spent_us = &d_spent;
    NGX_ASSIGN_OR_RETURN(std::vector<double> prtt_n_d, run_prtt(ctx, buffer, delayed));
    ctx.sink.count_messages(2 * prtt_message_count(single) + 2 * prtt_message_count(burst));
    single.batch = 1; // o_r times each receive, after a wait of 2d
    single.warmup = series_warmup(state, slice.warmup, 1, 2 * state.d);
    NGX_TRY(measure_receive_overhead(ctx, buffer, single, state));
    if (settings_.exchanges)
        NGX_TRY(measure_exchanges(ctx, buffer, burst, state));
    if (!ctx.bootstrap.is_driver())
        return Series{};
    state.d_spent.push_back(d_spent);
    return Series{std::move(prtt_1_0), std::move(prtt_n_0), std::move(prtt_n_d)};
}

// The batch of a size: with timing auto, enough repetitions per timed sample
// that a PRTT(1,0,s) sample spans at least `auto_batch_steps` timer steps,
// so the timer's step (10 ns on a KVM guest's TSC, a tenth of a
// shared-memory round trip) no longer quantizes the medians the fit works
// on. The driver decides it from a short per-sample pilot series and both
// sides use it.
Status LogGPSeries::choose_batch(PatternContext& ctx, Buffer& buffer, uint64_t size, PerSize& state) const
{
    if (settings_.timing != "auto") {
        state.batch = settings_.timing == "batch" ? settings_.fixed_batch : 1;
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

// The warm-up of one series of a size's pass: --warmup repetitions (or the
// later passes' re-warm), but no more than fit in warmup_budget_us at the
// pilot's pace, and at least min_warmup. The pilot has made the first
// contact with the size (its code path, its buffer's pages: the costly
// repetitions the warm-up is for, passes.hpp), after which the first
// repetition costs a few times the median and the second about 1.2 times;
// so the cap binds only where one repetition takes milliseconds (large
// messages over slow links: 10 warm-ups of PRTT(16,d,1 MiB) over 400 Mbit/s
// were 7 s) and leaves the microsecond sizes their --warmup. Both sides know
// pilot_us, so they agree on the count.
uint64_t LogGPSeries::series_warmup(const PerSize& state, uint64_t warmup, uint64_t messages, double delay_us)
{
    if (!(state.pilot_us > 0))
        return warmup;
    const double repetition_us = double(messages) * state.pilot_us + delay_us;
    const double fitting = std::ceil(warmup_budget_us / repetition_us);
    return std::min(warmup, std::max(min_warmup, uint64_t(std::min(fitting, double(warmup)))));
}

// o_r on the responder: wait 2d, then time recv(). The driver sends the next
// message as soon as the reply reaches it, so that message arrives about d
// after the responder's last send; waiting 2d makes sure it is there and
// only the receive call is timed. The responder keeps the samples of every
// pass (their medians reach the driver after the last pass, finish()).
Status LogGPSeries::measure_receive_overhead(PatternContext& ctx, Buffer& buffer, const PrttSpec& spec, PerSize& state)
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

// Both ranks run n exchanges back to back per repetition: irecv, isend, wait
// for both (MPI_Sendrecv's order), into a second buffer; the driver times
// each repetition and keeps its time per exchange (models/loggp/exchange_share.hpp).
Status LogGPSeries::measure_exchanges(PatternContext& ctx, Buffer& buffer, const PrttSpec& spec, PerSize& state)
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

// After the last pass: the responder's o_r per size (the central mean of all
// its passes' samples; NaN where none) reaches the driver.
Status LogGPSeries::finish(PatternContext& ctx)
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

// Eq. (6) subtracts the d that was really waited (the median over the
// passes), so o holds no cost of the delay loop.
fit::PrttSample LogGPSeries::sample(size_t index, uint64_t size, double prtt_1_0_us,
                                    const std::vector<double>& prtt_n_0, const std::vector<double>& prtt_n_d) const
{
    const PerSize& state = sizes_[index];
    double d_spent = state.d_spent.empty() ? state.d : median(state.d_spent);
    fit::PrttSample sample{double(size), prtt_1_0_us, median(prtt_n_0), median(prtt_n_d),
                           d_spent,      state.o_r,   std::nullopt};
    if (!state.exchange_us.empty())
        sample.exchange = median(state.exchange_us);
    return sample;
}

} // namespace ngx::patterns
