// Two-sample tests (see two_sample.hpp).
#include <ngx/two_sample.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace ngx {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
// Up to this many samples in either series (and without ties) the exact
// distribution of U is used, as scipy.stats.mannwhitneyu's method "auto" does.
constexpr size_t exact_up_to = 8;
constexpr double z_95 = 1.959963984540054; // the 97.5% quantile of the standard normal

struct Ranked {
    double first_rank_sum = 0; // sum of the first sample's ranks (ties: mid-ranks)
    double tie_term = 0;       // sum over groups of ties of t^3 - t
};

Ranked rank(std::span<const double> first, std::span<const double> second)
{
    std::vector<std::pair<double, bool>> all; // value, from the first sample
    all.reserve(first.size() + second.size());
    for (double v : first)
        all.emplace_back(v, true);
    for (double v : second)
        all.emplace_back(v, false);
    std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    Ranked ranked;
    for (size_t begin = 0; begin < all.size();) {
        size_t end = begin + 1;
        while (end < all.size() && all[end].first == all[begin].first)
            ++end;
        double mid_rank = double(begin + 1 + end) / 2; // ranks begin+1 .. end
        for (size_t i = begin; i < end; ++i)
            if (all[i].second)
                ranked.first_rank_sum += mid_rank;
        double t = double(end - begin);
        ranked.tie_term += t * t * t - t;
        begin = end;
    }
    return ranked;
}

// How many of the C(m + n, m) orderings of two tie-free samples give each
// U = 0 .. m n: the coefficients of the Gaussian binomial coefficient
// [m + n choose m]_q = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i).
std::vector<double> u_counts(size_t m, size_t n)
{
    std::vector<double> counts(m * n + m + 1, 0.0);
    counts[0] = 1;
    for (size_t i = 1; i <= m; ++i) {
        for (size_t k = counts.size() - 1; k >= n + i; --k) // times (1 - q^(n+i))
            counts[k] -= counts[k - (n + i)];
        for (size_t k = i; k < counts.size(); ++k) // divided by (1 - q^i)
            counts[k] += counts[k - i];
    }
    counts.resize(m * n + 1);
    return counts;
}

// P(U >= u) under the null hypothesis, no ties.
double exact_upper_tail(double u, size_t m, size_t n)
{
    std::vector<double> counts = u_counts(m, n);
    double total = std::accumulate(counts.begin(), counts.end(), 0.0);
    double tail = 0;
    for (size_t k = size_t(std::ceil(u)); k < counts.size(); ++k)
        tail += counts[k];
    return tail / total;
}

} // namespace

double normal_upper_tail(double z)
{
    return 0.5 * std::erfc(z / std::sqrt(2.0));
}

RankSum rank_sum_test(std::span<const double> first, std::span<const double> second, RankSumMethod method)
{
    const size_t m = first.size(), n = second.size();
    if (m == 0 || n == 0)
        return {0, nan, false};
    Ranked ranked = rank(first, second);
    RankSum result;
    result.u = ranked.first_rank_sum - double(m) * double(m + 1) / 2;
    const double larger_u = std::max(result.u, double(m) * double(n) - result.u);
    const bool small = std::min(m, n) <= exact_up_to;
    if (ranked.tie_term == 0 && (method == RankSumMethod::exact || (method == RankSumMethod::automatic && small))) {
        result.exact = true;
        result.p = std::min(1.0, 2 * exact_upper_tail(larger_u, m, n));
        return result;
    }
    const double total = double(m + n);
    const double variance = double(m) * double(n) / 12 * ((total + 1) - ranked.tie_term / (total * (total - 1)));
    if (!(variance > 0)) // every value the same
        return result;
    const double z = (larger_u - double(m) * double(n) / 2 - 0.5) / std::sqrt(variance);
    result.p = std::min(1.0, 2 * normal_upper_tail(z));
    return result;
}

double interval_test(const Estimate& first, const Estimate& second)
{
    for (const Estimate* e : {&first, &second})
        if (!std::isfinite(e->value) || !std::isfinite(e->low) || !std::isfinite(e->high))
            return nan;
    const double se_first = (first.high - first.low) / (2 * z_95);
    const double se_second = (second.high - second.low) / (2 * z_95);
    const double se = std::hypot(se_first, se_second);
    const double difference = std::fabs(second.value - first.value);
    if (!(se > 0))
        return difference == 0 ? 1.0 : 0.0;
    return std::min(1.0, 2 * normal_upper_tail(difference / se));
}

std::vector<double> holm_adjust(std::span<const double> p_values)
{
    std::vector<size_t> order;
    for (size_t i = 0; i < p_values.size(); ++i)
        if (!std::isnan(p_values[i]))
            order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p_values[a] < p_values[b]; });
    std::vector<double> adjusted(p_values.begin(), p_values.end());
    double running_max = 0;
    for (size_t rank = 0; rank < order.size(); ++rank) {
        double scaled = std::min(1.0, double(order.size() - rank) * p_values[order[rank]]);
        running_max = std::max(running_max, scaled);
        adjusted[order[rank]] = running_max;
    }
    return adjusted;
}

} // namespace ngx
