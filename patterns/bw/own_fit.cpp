// The bw pattern's own LogGP fit (own_fit.hpp).
#include "own_fit.hpp"

#include <models/loggp/loggp_model.hpp>

#include <ngx/progress.hpp>
#include <ngx/statistics.hpp>

namespace ngx::patterns {

Status OwnFit::measure(PatternContext& ctx, const PassSlice& slice, Buffer& buffer, Series& series)
{
    Result<Series> prtt = series_.measure(ctx, slice, buffer);
    if (!prtt)
        return prtt.status().with_context("--bw-fit, LogGP series");
    for (std::vector<double>& samples : *prtt)
        series.push_back(std::move(samples));
    return Status::ok();
}

void OwnFit::keep(const PassSlice& last, Series& pooled)
{
    Series prtt(pooled.begin() + 1, pooled.end());
    rel_ci_.push_back(widest_rel_ci95(prtt));
    samples_.push_back(series_.sample(last.index, last.size, median(prtt[0]), prtt[1], prtt[2]));
}

Result<Json> OwnFit::model(const PatternContext& ctx) const
{
    if (samples_.size() < 3)
        return Status::usage("--bw-fit: the fit of g and G (Hoefler et al. 2007 eq. (7)) needs at least three "
                             "message sizes, this run measured " +
                             std::to_string(samples_.size()));
    mark_local_work(ctx.settings.progress, "fitting the LogGP model (--bw-fit)");
    NGX_ASSIGN_OR_RETURN(Json model, fit_loggp_model(samples_, double(messages), LogGPFitSettings{}, rel_ci_));
    model["source"] = "this run's fit (bw --bw-fit: PRTT(1,0,s), PRTT(n,0,s), PRTT(n,d,s) and o_r at its sizes)";
    return model;
}

} // namespace ngx::patterns
