// Al-Tawil and Moritz 1998 eqs. (8) and (9) (see loghssp.hpp).
#include <models/loghssp/loghssp.hpp>

namespace ngx::fit {
namespace {

double following_bytes(uint64_t bytes)
{
    return bytes > 1 ? double(bytes - 1) : 0.0;
}

} // namespace

double intra_time(const IntraTier& tier, uint64_t bytes)
{
    return tier.s_s + tier.s_r + following_bytes(bytes) * tier.S; // eq. (8)
}

double inter_time(const InterTier& tier, uint64_t bytes)
{
    return tier.o_s + tier.o_r + following_bytes(bytes) * tier.G + tier.L; // eq. (9)
}

} // namespace ngx::fit
