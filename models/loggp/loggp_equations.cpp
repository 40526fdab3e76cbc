// LogGP's equations (loggp.hpp): the range a size falls in, the predictions
// of Hoefler et al. 2007 (PRTT(1,0,s), PRTT(n,d,s)), the broadcasts, the
// windows of messages (stream, exchange, put, get), and the model's error
// over one range.
#include <models/loggp/loggp.hpp>

#include <models/base/rounds.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ngx::fit {

namespace {

constexpr double nan_v = Measured::nan;

} // namespace

const LogGPRange* LogGPParams::range_for(double s) const noexcept
{
    if (ranges.empty())
        return nullptr;
    const LogGPRange* r = &ranges.front();
    for (const LogGPRange& candidate : ranges)
        if (candidate.from_bytes <= s)
            r = &candidate;
    return r;
}

std::vector<std::string> LogGPRange::negative_parameters() const
{
    std::vector<std::string> out;
    for (const auto& [name, value] :
         {std::pair{"L_us", L.value}, std::pair{"o_us", send_line.at_one.value},
          std::pair{"O_us_per_byte", send_line.per_byte.value}, std::pair{"o_r_us", recv_line.at_one.value},
          std::pair{"O_r_us_per_byte", recv_line.per_byte.value}, std::pair{"g_us", g.value},
          std::pair{"G_us_per_byte", G.value}})
        if (value < 0)
            out.push_back(name);
    return out;
}

double LogGPRange::overheads_at(double s) const noexcept
{
    const double o_r_s = o_r_at(s);
    return std::isfinite(o_r_s) ? o_at(s) + o_r_s : 2 * o_at(s);
}

double LogGPRange::transfer_at(double s) const noexcept
{
    const double x = s - 1;
    if (!overlapped)
        return overheads_at(s) + x * G.value; // eq. (1): 2o + (s-1)G
    // LogGOPSim's one message: 2o + L + (s-1) max(O, G), with o_s + o_r for 2o.
    return o_at(1) + recv_at_one() + x * std::max({send_slope(), recv_slope(), G.value});
}

double LogGPParams::rtt(double s) const noexcept
{
    const LogGPRange* r = range_for(s);
    if (!r || !(s >= 1))
        return nan_v;
    // Hoefler et al. 2007, eq. (1): PRTT(1,0,s) = 2 (L + 2o + (s-1)G), with o_s + o_r for 2o when o_r was measured.
    return 2 * (r->L.value + r->transfer_at(s));
}

double LogGPParams::half_rtt(double s) const noexcept
{
    return rtt(s) / 2;
}

double LogGPParams::prtt(double n, double d, double s) const noexcept
{
    const LogGPRange* r = range_for(s);
    if (!r || !(s >= 1) || !(n >= 1))
        return nan_v;
    const double g_all = r->g.value + (s - 1) * r->G.value; // Hoefler et al. 2007, eq. (2)
    // Hoefler et al. 2007, eq. (5): PRTT(n,d,s) = PRTT(1,0,s) + (n-1) max{o + d, G_all}.
    return rtt(s) + (n - 1) * std::max(r->o_at(s) + d, g_all);
}

double LogGPParams::linear_bcast(double P, double s) const noexcept
{
    const LogGPRange* r = range_for(s);
    if (!r || !(s >= 1) || !(P >= 1))
        return nan_v;
    if (P < 2)
        return 0;
    const double o = r->o_at(s);
    const double g_all = r->g.value + (s - 1) * r->G.value; // Hoefler et al. 2007, eq. (2)
    // Send starts spaced by max{o, G_all} (eq. (5), d = 0); the last message
    // is one o + (s-1)G + L + o transfer (eq. (1) halved).
    return (P - 2) * std::max(g_all, o) + r->transfer_at(s) + r->L.value;
}

double LogGPParams::tree_bcast(double P, double s) const noexcept
{
    const LogGPRange* r = range_for(s);
    if (!r || !(s >= 1) || !(P >= 1))
        return nan_v;
    const double h = detail::binomial_rounds(P);
    if (h == 0)
        return 0;
    // Cameron et al. 2007 section 4.3.3: h (2o + L + kG) + (h-1) g with k = s - 1,
    // 2o + L + kG = half_rtt(s) (eq. (1) of Hoefler et al. 2007, o_s + o_r for 2o).
    return h * half_rtt(s) + (h - 1) * r->g.value;
}

namespace {

// The terms of a window of messages of s bytes (stream_window, exchange_window).
struct WindowTerms {
    double o_s = 0;    // o_s(s)
    double o_r = 0;    // o_r(s), or o_s(s) where the receive overhead was not measured (eq. (1)'s 2o)
    double g_all = 0;  // g + (s-1)G, Hoefler et al. 2007, eq. (2)
    double first = 0;  // L + o_s(s) + (s-1)G + o_r(s): one message, eq. (1) halved
    double flight = 0; // L + (s-1)G: the first without its two overheads
    double ack = 0;    // the 1-byte acknowledgement, eq. (1) halved at s = 1
};

std::optional<WindowTerms> window_terms(const LogGPParams& p, double W, double s) noexcept
{
    const LogGPRange* r = p.range_for(s);
    const LogGPRange* ack = p.range_for(1);
    if (!r || !(s >= 1) || !(W >= 1))
        return std::nullopt;
    WindowTerms t;
    t.o_s = r->o_at(s);
    t.o_r = std::isfinite(r->o_r_at(s)) ? r->o_r_at(s) : t.o_s;
    t.g_all = r->g.value + (s - 1) * r->G.value;
    t.first = r->L.value + r->transfer_at(s);
    t.flight = t.first - t.o_s - t.o_r;
    t.ack = ack->L.value + ack->transfer_at(1);
    return t;
}

} // namespace

double LogGPParams::stream_window(double W, double s) const noexcept
{
    const std::optional<WindowTerms> t = window_terms(*this, W, s);
    if (!t)
        return nan_v;
    // The first message, W - 1 periods of the busiest of sender, wire and receiver, the acknowledgement.
    return t->first + (W - 1) * std::max({t->o_s, t->o_r, t->g_all}) + t->ack;
}

double LogGPParams::exchange_window(double W, double s) const noexcept
{
    const std::optional<WindowTerms> t = window_terms(*this, W, s);
    if (!t)
        return nan_v;
    // W receives posted, then W sends spaced by max(o_s, G_all): the last one leaves here.
    const double last_injection = W * t->o_r + t->o_s + (W - 1) * std::max(t->o_s, t->g_all);
    return last_injection + t->flight + t->ack;
}

double LogGPParams::put_window(double W, double s) const noexcept
{
    const std::optional<WindowTerms> t = window_terms(*this, W, s);
    if (!t)
        return nan_v;
    // The last put leaves after W - 1 periods, lands a flight later; the target's NIC acknowledges it.
    return t->o_s + (W - 1) * std::max(t->o_s, t->g_all) + t->flight + range_for(1)->L.value;
}

double LogGPParams::get_window(double W, double s) const noexcept
{
    const std::optional<WindowTerms> t = window_terms(*this, W, s);
    if (!t)
        return nan_v;
    // The first request reaches the target after o_s(1) + L, its NIC answers one per period.
    const double request = range_for(1)->o_at(1);
    return request + range_for(1)->L.value + (W - 1) * std::max(request, t->g_all) + t->flight;
}

ModelError range_error(std::span<const PrttSample> samples, double n, const LogGPRange& range)
{
    LogGPParams p;
    p.ranges.push_back(range);
    p.ranges.front().from_bytes = 0; // every sample belongs to it
    ModelErrorAccumulator err;
    for (const PrttSample& s : samples) {
        err.add(s.prtt_1_0, p.rtt(s.size));
        err.add(s.prtt_n_0, p.prtt(n, 0, s.size));
        err.add(s.prtt_n_d, p.prtt(n, s.delay, s.size));
    }
    return err.result();
}

} // namespace ngx::fit
