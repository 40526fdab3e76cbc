// The connection data two ibv peers exchange through the bootstrap (never
// over the RDMA link): QP number, PSN, LID, GID, MTU, the landing pool the
// peer may write into, and the settings both sides must agree on. Encoded
// field by field in little-endian order so that the layout is fixed.
#ifndef NGX_IBV_WIRE_HPP
#define NGX_IBV_WIRE_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace ngx::ibv {

struct WireInfo {
    static constexpr uint32_t wire_magic = 0x6e677869; // "ngxi"
    static constexpr uint16_t wire_version = 1;
    static constexpr size_t encoded_size = 4 + 2 + 1 + 1 + 4 + 4 + 2 + 16 + 4 + 8 + 4 + 8 + 4;

    uint8_t mode = 0;
    uint8_t ethernet = 0;
    uint32_t qpn = 0;
    uint32_t psn = 0;
    uint16_t lid = 0;
    std::array<uint8_t, 16> gid{};
    uint32_t mtu = 0;       // enum ibv_mtu value
    uint64_t pool_addr = 0; // landing pool: slot 0 is the module's own landing buffer
    uint32_t pool_rkey = 0;
    uint64_t slot_size = 0;
    uint32_t slots = 0; // slots in the pool including slot 0
};

std::array<uint8_t, WireInfo::encoded_size> encode(const WireInfo& info);
// nullopt: wrong size, magic or version.
std::optional<WireInfo> decode(const uint8_t* data, size_t size);

} // namespace ngx::ibv

#endif
