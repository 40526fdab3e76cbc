// Seeded noise on top of the sim's virtual time (--sim-noise, --sim-seed).
//
// Virtual time makes the sim a perfect machine; the noise model makes it a
// machine with known imperfections, drawn from a seeded generator so that a
// run repeats to the last picosecond. It tests what a fit, a detector or a
// statistic does with noise whose distribution is known exactly. Components
// (joined with '+', each at most once; a comma would make ngx run one
// launch per value, as for any module option):
//
//   jitter:F      every o_s(s), o_r(s) and flight L + (s-1)G is multiplied by
//                 1 + e, e normal with standard deviation F, cut at 3F
//                 (symmetric: medians stay the truth; relative: the noise of
//                 a cost grows with it, as ngx's relative weights assume);
//   outliers:P:U  a send or receive takes U microseconds more with probability
//                 P (an interrupt or a preemption: one-sided);
//   bimodal:P:F   a message's L is multiplied by F with probability P (two
//                 clusters, e.g. two paths or two placements);
//   launch:F      the whole model (L, o_s, o_r, g, G, O_s, O_r) is multiplied
//                 by 1 + e for this launch, e normal with standard deviation F
//                 cut at 3F, drawn once from the seed: launch-to-launch shifts
//                 (both peers draw the same e).
//
// The generator is SplitMix64 (Steele, Lea and Flood, "Fast splittable
// pseudorandom number generators", OOPSLA 2014), seeded with --sim-seed and
// the rank, so that the two processes draw independent streams.
//
//     Noise noise;  parse_noise("jitter:0.02+outliers:0.01:5", &noise, &why);
//     noise.seed(seed, rank);  cost = noise.call(cost_ticks, ticks_per_us);  flight = noise.flight(L, wire);
#ifndef NGX_SIM_NOISE_HPP
#define NGX_SIM_NOISE_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace ngx::sim {

class SplitMix64 {
public:
    explicit SplitMix64(uint64_t seed = 0) : state_(seed) {}
    uint64_t next()
    {
        uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    // Uniform in (0, 1).
    double uniform() { return (double(next() >> 11) + 0.5) * 0x1.0p-53; }
    // Standard normal (Box-Muller), cut at +-3.
    double normal_cut3()
    {
        double z = std::sqrt(-2.0 * std::log(uniform())) * std::cos(2.0 * M_PI * uniform());
        return std::clamp(z, -3.0, 3.0);
    }

private:
    uint64_t state_;
};

// The seed of launch `launch` (0-based) of ngx --launches: the given seed
// for launch 0, a SplitMix64 draw from the seed and the launch after it.
inline uint64_t launch_seed(uint64_t seed, uint64_t launch)
{
    return launch == 0 ? seed : SplitMix64(seed ^ (launch * 0xd1b54a32d192ed03ull)).next();
}

struct Noise {
    double jitter = 0; // relative standard deviation of o_s, o_r, L
    double outlier_probability = 0;
    double outlier_us = 0;
    double bimodal_probability = 0;
    double bimodal_factor = 1;
    double launch = 0; // relative standard deviation of the launch's scale
    SplitMix64 draws;
    uint64_t seed_value = 0;

    bool any() const { return jitter > 0 || outlier_probability > 0 || bimodal_probability > 0 || launch > 0; }

    void seed(uint64_t seed, int rank)
    {
        seed_value = seed;
        draws = SplitMix64(seed * 0x100000001b3ull + uint64_t(rank) + 1);
    }

    // The launch's scale: the same for both peers (drawn from the seed alone).
    double launch_scale() const
    {
        if (launch <= 0)
            return 1.0;
        SplitMix64 shared(seed_value ^ 0x5deece66dull);
        return std::max(0.0, 1.0 + launch * shared.normal_cut3());
    }

    // A send's or receive's CPU cost in ticks, with jitter and outliers.
    uint64_t call(uint64_t ticks, double ticks_per_us)
    {
        double cost = double(ticks);
        if (jitter > 0)
            cost *= 1.0 + jitter * draws.normal_cut3();
        if (outlier_probability > 0 && draws.uniform() < outlier_probability)
            cost += outlier_us * ticks_per_us;
        return uint64_t(std::llround(std::max(cost, 0.0)));
    }

    // A message's flight in ticks, L + (s-1)G: jitter on the whole, the
    // second cluster on L.
    uint64_t flight(uint64_t latency, uint64_t wire)
    {
        double l = double(latency);
        if (bimodal_probability > 0 && draws.uniform() < bimodal_probability)
            l *= bimodal_factor;
        double cost = l + double(wire);
        if (jitter > 0)
            cost *= 1.0 + jitter * draws.normal_cut3();
        return uint64_t(std::llround(std::max(cost, 0.0)));
    }
};

namespace noise_detail {

inline bool number(const std::string& text, double min, double max, double* out)
{
    char* end = nullptr;
    double value = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value) || value < min || value > max)
        return false;
    *out = value;
    return true;
}

// "name:a[:b]" into its fields.
inline int split(const std::string& item, std::string fields[3])
{
    int count = 0;
    size_t start = 0;
    while (count < 3) {
        size_t colon = item.find(':', start);
        fields[count++] = item.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
        if (colon == std::string::npos)
            return count;
        start = colon + 1;
    }
    return 4; // too many fields
}

} // namespace noise_detail

// Parses --sim-noise; on failure *why names the bad component.
inline bool parse_noise(const std::string& spec, Noise* noise, std::string* why)
{
    using noise_detail::number;
    Noise parsed;
    size_t start = 0;
    while (start <= spec.size() && !spec.empty()) {
        size_t plus = spec.find('+', start);
        std::string item = spec.substr(start, plus == std::string::npos ? std::string::npos : plus - start);
        std::string f[3];
        int n = noise_detail::split(item, f);
        bool good = false;
        if (f[0] == "jitter" && n == 2)
            good = number(f[1], 0, 0.3, &parsed.jitter);
        else if (f[0] == "outliers" && n == 3)
            good = number(f[1], 0, 1, &parsed.outlier_probability) && number(f[2], 0, 1e6, &parsed.outlier_us);
        else if (f[0] == "bimodal" && n == 3)
            good = number(f[1], 0, 1, &parsed.bimodal_probability) && number(f[2], 0, 1e3, &parsed.bimodal_factor);
        else if (f[0] == "launch" && n == 2)
            good = number(f[1], 0, 0.3, &parsed.launch);
        if (!good) {
            *why = "'" + item +
                   "': expected jitter:F (0..0.3), outliers:P:US (P 0..1), bimodal:P:FACTOR (P 0..1) or launch:F "
                   "(0..0.3)";
            return false;
        }
        if (plus == std::string::npos)
            break;
        start = plus + 1;
    }
    *noise = parsed;
    return true;
}

} // namespace ngx::sim

#endif
