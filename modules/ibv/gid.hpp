// GID table parsing and choice for the ibv module: pure functions, no device
// and no I/O, so the rule both peers apply is unit-tested on its own.
//
// The rule (choose_gid):
//   - an explicit index (--ibv-gid N) is honoured if it names a non-empty
//     entry of the table, and rejected with a reason otherwise;
//   - on InfiniBand no GID is needed (addressing uses LIDs): none is chosen;
//   - on RoCE (Ethernet link layer) the lowest-index RoCE v2 GID that is an
//     IPv4-mapped address (::ffff:a.b.c.d) wins, then a RoCE v2 GID that is
//     not link-local, then the same two for RoCE v1. Link-local GIDs
//     (fe80::/10) are never chosen by default: they are not routable and
//     their choice differs between hosts.
//
//     std::vector<GidEntry> table = ...;  // from ibv_query_gid_table or sysfs
//     GidChoice c = choose_gid(table, 1024, /*ethernet=*/true, std::nullopt);
//     if (!c.error.empty()) ... else if (c.index >= 0) use table entry c.index
#ifndef NGX_IBV_GID_HPP
#define NGX_IBV_GID_HPP

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ngx::ibv {

using GidBytes = std::array<uint8_t, 16>;

enum class GidType { ib, roce_v1, roce_v2 };

struct GidEntry {
    uint32_t index = 0;
    GidBytes gid{};
    GidType type = GidType::ib;
};

// index -1: no GID (InfiniBand, use LIDs). error non-empty: nothing usable.
struct GidChoice {
    int index = -1;
    std::string error;
};

// "fe80:0000:0000:0000:6ccd:d3ff:fe45:d82f" (sysfs gids/<i>) -> bytes.
std::optional<GidBytes> parse_gid(std::string_view text);
// "RoCE v2", "IB/RoCE v1" (sysfs gid_attrs/types/<i>) -> type.
std::optional<GidType> parse_gid_type(std::string_view text);
// "::ffff:10.0.2.15", "fe80::6ccd:d3ff:fe45:d82f".
std::string format_gid(const GidBytes& gid);
const char* gid_type_name(GidType type);

bool is_zero(const GidBytes& gid);
bool is_ipv4_mapped(const GidBytes& gid);
bool is_link_local(const GidBytes& gid);

// table: the non-empty entries of one port; table_length: the port's
// gid_tbl_len (valid indices are 0..table_length-1).
GidChoice choose_gid(std::span<const GidEntry> table, uint32_t table_length, bool ethernet,
                     std::optional<uint32_t> explicit_index);

} // namespace ngx::ibv

#endif
