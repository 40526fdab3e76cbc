#include <models/log3p/log3p.hpp>

#include <models/base/failure_text.hpp>
#include <models/base/rounds.hpp>

#include <algorithm>
#include <cmath>
#include <map>

namespace ngx::fit {

namespace {

constexpr double nan_v = Measured::nan;

// Piecewise-linear interpolation of y(x) (x increasing), extrapolating the
// end segments; a single point is a constant.
double interpolate(const std::vector<double>& x, const std::vector<double>& y, double at)
{
    if (x.empty())
        return nan_v;
    if (x.size() == 1)
        return y.front();
    std::size_t hi = static_cast<std::size_t>(std::upper_bound(x.begin(), x.end(), at) - x.begin());
    hi = std::clamp<std::size_t>(hi, 1, x.size() - 1);
    const std::size_t lo = hi - 1;
    return y[lo] + (y[hi] - y[lo]) * (at - x[lo]) / (x[hi] - x[lo]);
}

Status validate(std::span<const Log3PSample> c, std::span<const Log3PStridedSample> st)
{
    if (c.empty())
        return too_few_points("no contiguous sample, log3P needs 1");
    for (std::size_t i = 0; i < c.size(); ++i) {
        if (!std::isfinite(c[i].size) || c[i].size < 0 || !std::isfinite(c[i].t_self) ||
            !std::isfinite(c[i].t_remote) || !std::isfinite(c[i].t_mem))
            return invalid_input("the contiguous sample at " + detail::number(c[i].size) +
                                 " B has a negative size or a time that is not finite");
        if (i > 0 && !(c[i].size > c[i - 1].size))
            return invalid_input("contiguous sizes are not increasing: " + detail::number(c[i - 1].size) + " B, then " +
                                 detail::number(c[i].size) + " B");
    }
    for (const Log3PStridedSample& s : st)
        if (!std::isfinite(s.size) || s.size < 0 || !std::isfinite(s.stride) || !(s.stride > 0) ||
            !std::isfinite(s.t_self) || (s.t_remote && !std::isfinite(*s.t_remote)))
            return invalid_input("the strided sample at " + detail::number(s.size) + " B, stride " +
                                 detail::number(s.stride) +
                                 " has a negative size, a stride <= 0 or a time that is "
                                 "not finite");
    return Status::ok();
}

std::optional<LineFit> summary_line(const std::vector<double>& x, const std::vector<double>& y)
{
    Result<LineFit> r = fit_line(x, y);
    if (!r)
        return std::nullopt;
    return std::move(*r);
}

// Strided samples grouped per stride, sorted by size (duplicates: last wins).
std::vector<Log3PParams::StrideTable> stride_tables(const Log3PParams& p, std::span<const Log3PStridedSample> st)
{
    std::map<double, std::map<double, double>> by_stride;
    for (const Log3PStridedSample& s : st) {
        // Cameron et al. 2007, section 4.1: T_00(s,d) = o_mw + l_mw + T_mem.
        by_stride[s.stride][s.size] = s.t_self - p.t_mem_at(s.size) - p.o_mw_at(s.size);
    }
    std::vector<Log3PParams::StrideTable> tables;
    for (const auto& [stride, rows] : by_stride) {
        Log3PParams::StrideTable t;
        t.stride = stride;
        for (const auto& [size, l] : rows) {
            t.sizes.push_back(size);
            t.l_mw.push_back(l);
        }
        tables.push_back(std::move(t));
    }
    return tables;
}

} // namespace

double Log3PParams::o_mw_at(double s) const noexcept
{
    return interpolate(sizes, o_mw, s);
}
double Log3PParams::o_net_at(double s) const noexcept
{
    return interpolate(sizes, o_net, s);
}
double Log3PParams::t_mem_at(double s) const noexcept
{
    return interpolate(sizes, t_mem, s);
}

double Log3PParams::l_mw_at(double s, double d) const noexcept
{
    if (!(d > 0) || strided.empty())
        return 0;
    auto at = [&](const StrideTable& t) { return interpolate(t.sizes, t.l_mw, s); };
    if (d <= strided.front().stride)
        return at(strided.front());
    if (d >= strided.back().stride)
        return at(strided.back());
    std::size_t hi = 1;
    while (strided[hi].stride < d)
        ++hi;
    const StrideTable& a = strided[hi - 1];
    const StrideTable& b = strided[hi];
    const double f = (std::log2(d) - std::log2(a.stride)) / (std::log2(b.stride) - std::log2(a.stride));
    return at(a) + f * (at(b) - at(a));
}

double Log3PParams::network_at(double s, double d) const noexcept
{
    if (d > unit_stride && !packed_sizes.empty())
        return interpolate(packed_sizes, packed_o_net, s);
    return o_net_at(s);
}

double Log3PParams::time(double s, double d) const noexcept
{
    return o_mw_at(s) + l_mw_at(s, d) + network_at(s, d); // Cameron et al. 2007, eq. (6)
}

void calibrate_packed_network(Log3PParams& params, double unit_stride, std::span<const Log3PStridedSample> remote)
{
    std::map<double, std::pair<double, int>> per_size; // size -> (sum, count)
    for (const Log3PStridedSample& r : remote)
        if (r.t_remote && r.stride > unit_stride) {
            auto& [sum, count] = per_size[r.size];
            sum += *r.t_remote - params.o_mw_at(r.size) - params.l_mw_at(r.size, r.stride);
            ++count;
        }
    params.unit_stride = unit_stride;
    params.packed_sizes.clear();
    params.packed_o_net.clear();
    for (const auto& [size, acc] : per_size) {
        params.packed_sizes.push_back(size);
        params.packed_o_net.push_back(acc.first / acc.second);
    }
}

double Log3PParams::self_time(double s, double d) const noexcept
{
    return o_mw_at(s) + l_mw_at(s, d) + t_mem_at(s);
}

double Log3PParams::linear_bcast(double P, double s, double d) const noexcept
{
    if (!(P >= 1))
        return nan_v;
    if (P < 2)
        return 0;
    // Cameron et al. 2007, section 4.3.3: P (o_mw/2 + l_mw/2) + o_net.
    return P * (o_mw_at(s) / 2 + l_mw_at(s, d) / 2) + network_at(s, d);
}

double Log3PParams::tree_bcast(double P, double s, double d) const noexcept
{
    if (!(P >= 1))
        return nan_v;
    // Cameron et al. 2007, section 4.3.3: (o_mw + l_mw + o_net) log2(P), whole rounds.
    return detail::binomial_rounds(P) * time(s, d);
}

Result<Log3PFit> fit_log3p(std::span<const Log3PSample> contiguous, std::span<const Log3PStridedSample> strided)
{
    NGX_TRY(validate(contiguous, strided));
    Log3PFit f;
    Log3PParams& p = f.params;
    for (const Log3PSample& c : contiguous) {
        const double o_mw = c.t_self - c.t_mem; // T_00(s) = o_mw + T_mem
        p.sizes.push_back(c.size);
        p.o_mw.push_back(o_mw);
        p.o_net.push_back(c.t_remote - o_mw); // T_01(s) = o_mw + o_net
        p.t_mem.push_back(c.t_mem);
    }
    p.strided = stride_tables(p, strided);
    f.o_mw_line = summary_line(p.sizes, p.o_mw);
    f.o_net_line = summary_line(p.sizes, p.o_net);

    ModelErrorAccumulator err, val;
    for (const Log3PSample& c : contiguous) {
        err.add(c.t_remote, p.time(c.size));
        err.add(c.t_self, p.self_time(c.size));
    }
    for (const Log3PStridedSample& s : strided) {
        err.add(s.t_self, p.self_time(s.size, s.stride));
        if (s.t_remote)
            val.add(*s.t_remote, p.time(s.size, s.stride));
    }
    f.error = err.result();
    f.validation = val.result();
    return f;
}

} // namespace ngx::fit
