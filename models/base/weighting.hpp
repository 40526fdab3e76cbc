// How a fit weighs its points: the choice behind `--loggp-weights
// relative|none`, shared by the LogGP and LogGPS fits.
//
//     std::optional<Weighting> w = parse_weighting("none");   // paper's plain fit
//     options.weights = *w;
//     weighting_name(options.weights);                          // "none"
//
// Timing noise is roughly proportional to the time and message sizes span
// 1 B..1 MiB, so ngx weights each point by 1/value^2 by default (inverse-
// variance weights under proportional noise). Hoefler et al. 2007
// and Ino et al. 2001 fit plain, unweighted least squares; Weighting::none
// reproduces that.
#ifndef NGX_FIT_WEIGHTING_HPP
#define NGX_FIT_WEIGHTING_HPP

#include <optional>
#include <string_view>

namespace ngx::fit {

enum class Weighting {
    relative, // 1/value^2 (ngx default)
    none,     // plain least squares and means, as the papers
};

// "relative" / "none"; std::nullopt for anything else.
std::optional<Weighting> parse_weighting(std::string_view name) noexcept;
std::string_view weighting_name(Weighting w) noexcept;

} // namespace ngx::fit

#endif
