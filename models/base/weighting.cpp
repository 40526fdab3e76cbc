#include <models/base/weighting.hpp>

namespace ngx::fit {

std::optional<Weighting> parse_weighting(std::string_view name) noexcept
{
    if (name == "relative")
        return Weighting::relative;
    if (name == "none")
        return Weighting::none;
    return std::nullopt;
}

std::string_view weighting_name(Weighting w) noexcept
{
    return w == Weighting::relative ? "relative" : "none";
}

} // namespace ngx::fit
