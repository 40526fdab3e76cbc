// Payload patterns for --verify (see verify.hpp).
#include <ngx/measure/verify.hpp>

#include <ngx/sizes.hpp>

#include <cstdio>

namespace ngx::patterns {

void fill_payload(uint8_t* data, uint64_t size, uint64_t iteration, Side side)
{
    uint32_t seed = payload_seed(size, iteration, side);
    for (uint64_t i = 0; i < size; ++i)
        data[i] = payload_byte(seed, i);
}

uint64_t first_bad_byte(const uint8_t* data, uint64_t size, uint64_t iteration, Side side)
{
    uint32_t seed = payload_seed(size, iteration, side);
    for (uint64_t i = 0; i < size; ++i)
        if (data[i] != payload_byte(seed, i))
            return i;
    return size;
}

Status check_payload(const PatternContext& ctx, const uint8_t* data, uint64_t size, uint64_t iteration, Side side)
{
    uint64_t bad = first_bad_byte(data, size, iteration, side);
    if (bad == size)
        return Status::ok();
    char bytes[64];
    std::snprintf(bytes, sizeof bytes, "0x%02x, expected 0x%02x", data[bad],
                  payload_byte(payload_seed(size, iteration, side), bad));
    std::string bytes_exact = std::to_string(size) + " B";
    std::string size_text =
        format_bytes(size) == bytes_exact ? bytes_exact : format_bytes(size) + " (" + bytes_exact + ")";
    return Status::runtime("verify: module " + ctx.transport.module().name() + ", size " + size_text + ", repetition " +
                           std::to_string(iteration) + ": the payload from the " +
                           (side == Side::driver ? "driver" : "responder") + " differs first at offset " +
                           std::to_string(bad) + ": byte " + bytes);
}

} // namespace ngx::patterns
