// Internal helper shared by the models' broadcast predictions.
#ifndef NGX_FIT_SRC_ROUNDS_HPP
#define NGX_FIT_SRC_ROUNDS_HPP

namespace ngx::fit::detail {

// ceil(log2 P) for P >= 1: the rounds of a binomial-tree broadcast. Counted
// by doubling, so powers of two are exact.
inline double binomial_rounds(double P) noexcept
{
    double rounds = 0;
    for (double covered = 1; covered < P; covered *= 2)
        ++rounds;
    return rounds;
}

} // namespace ngx::fit::detail

#endif
