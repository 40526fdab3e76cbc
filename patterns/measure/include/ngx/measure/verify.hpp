// --verify: payload patterns that depend on the message size, the iteration
// and the side that wrote them, so that a corrupted, truncated, reordered or
// stale payload (one from another repetition or size) is caught. Filling and
// checking happen between repetitions, never between the timer reads.
//
//     fill_payload(data, size, iteration, Side::driver);
//     ... send, the peer receives ...
//     Status s = check_payload(ctx, data, size, iteration, Side::driver);
#ifndef NGX_MEASURE_VERIFY_HPP
#define NGX_MEASURE_VERIFY_HPP

#include <ngx/pattern.hpp>

#include <cstdint>

namespace ngx::patterns {

enum class Side : uint32_t { driver = 1, responder = 2 };

// The 32-bit seed of one payload: a mix of size, iteration and side.
inline uint32_t payload_seed(uint64_t size, uint64_t iteration, Side side)
{
    uint64_t x = size * 0x9E3779B97F4A7C15ull ^ (iteration + 1) * 0xC2B2AE3D27D4EB4Full ^ uint64_t(side) << 56;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    return uint32_t(x);
}

// Byte `offset` of the payload with `seed`.
inline uint8_t payload_byte(uint32_t seed, uint64_t offset)
{
    return uint8_t((uint32_t(offset) * 2654435761u + seed + uint32_t(offset >> 32)) >> 24);
}

void fill_payload(uint8_t* data, uint64_t size, uint64_t iteration, Side side);

// The offset of the first byte that differs from the pattern, or size when none does.
uint64_t first_bad_byte(const uint8_t* data, uint64_t size, uint64_t iteration, Side side);

// NGX_OK, or a runtime error naming the module, size, iteration and the
// first bad offset with the expected and actual byte.
Status check_payload(const PatternContext& ctx, const uint8_t* data, uint64_t size, uint64_t iteration, Side side);

} // namespace ngx::patterns

#endif
