// The CPU share of a send's per-byte overhead, from measured exchanges
// (see exchange_share.hpp).
#include <models/loggp/exchange_share.hpp>

#include <algorithm>
#include <cmath>

namespace ngx::fit {
namespace {

// Mean relative error of X_f over the samples with an exchange.
double mean_relative_error(const LogGPRange& range, std::span<const PrttSample> samples, double share)
{
    double sum = 0;
    std::size_t n = 0;
    for (const PrttSample& s : samples)
        if (s.exchange && *s.exchange > 0) {
            sum += std::fabs(exchange_time(range, s.size, share) - *s.exchange) / *s.exchange;
            ++n;
        }
    return n == 0 ? Measured::nan : sum / double(n);
}

// Sum of squared relative residuals of X_f (the fit's objective).
double squared_relative_error(const LogGPRange& range, std::span<const PrttSample> samples, double share)
{
    double sum = 0;
    for (const PrttSample& s : samples)
        if (s.exchange && *s.exchange > 0) {
            const double r = (exchange_time(range, s.size, share) - *s.exchange) / *s.exchange;
            sum += r * r;
        }
    return sum;
}

} // namespace

double exchange_time(const LogGPRange& r, double s, double share) noexcept
{
    const double x = s > 1 ? s - 1 : 0;
    const double per_byte = std::max(r.send_slope(), 0.0) + std::max(r.recv_slope(), 0.0);
    const double cpu = r.o_at(1) + r.recv_at_one() + share * x * per_byte;
    return std::max(r.g.value + x * r.G.value, cpu + r.L.value + x * r.G.value);
}

std::optional<ExchangeShareFit> fit_exchange_share(const LogGPRange& range, std::span<const PrttSample> samples)
{
    ExchangeShareFit f;
    f.points = std::size_t(std::count_if(samples.begin(), samples.end(),
                                         [](const PrttSample& s) { return s.exchange && *s.exchange > 0; }));
    if (f.points == 0 || !(range.send_slope() > 0 || range.recv_slope() > 0))
        return std::nullopt;
    constexpr int steps = 1000;
    double best = squared_relative_error(range, samples, 1.0);
    f.share = 1.0;
    for (int k = steps - 1; k >= 0; --k) { // from f = 1 down: a tie keeps the larger share
        const double share = double(k) / steps, err = squared_relative_error(range, samples, share);
        if (err < best)
            best = err, f.share = share;
    }
    f.mean_rel = mean_relative_error(range, samples, f.share);
    f.mean_rel_cpu = mean_relative_error(range, samples, 1.0);
    return f;
}

} // namespace ngx::fit
