#include <models/postal/postal.hpp>

#include <models/base/rounds.hpp>

#include <cmath>
#include <vector>

namespace ngx::fit {

double PostalParams::linear_bcast(double P, double n) const noexcept
{
    if (!(P >= 1))
        return Measured::nan;
    return (P - 1) * time(n);
}

double PostalParams::tree_bcast(double P, double n) const noexcept
{
    if (!(P >= 1))
        return Measured::nan;
    return detail::binomial_rounds(P) * time(n);
}

Result<PostalFit> fit_postal(std::span<const double> n, std::span<const double> t, const PostalOptions& opt)
{
    // Gropp et al. 2016: T = s + r n by least squares.
    NGX_ASSIGN_OR_RETURN(LineFit line, opt.relative_weights ? fit_line_weighted(n, t, relative_weights(t), opt.level)
                                                            : fit_line(n, t, opt.level));
    PostalFit f;
    f.s = line.intercept;
    f.r = line.slope;
    f.params = {f.s.value, f.r.value};
    std::vector<double> pred;
    for (double x : n)
        pred.push_back(f.params.time(x));
    f.error = model_error(t, pred);
    f.line = std::move(line);
    return f;
}

Result<PostalFit> fit_postal(std::span<const NodeCommPoint> points, const PostalOptions& opt)
{
    std::vector<double> n, t;
    for (const NodeCommPoint& p : points) {
        n.push_back(p.n);
        t.push_back(p.t);
    }
    return fit_postal(n, t, opt);
}

} // namespace ngx::fit
