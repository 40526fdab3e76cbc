// GID parsing, formatting and the default choice rule (see gid.hpp).
#include "gid.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>

namespace ngx::ibv {

namespace {

std::string_view trim(std::string_view text)
{
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
        text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
        text.remove_suffix(1);
    return text;
}

int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = char(std::tolower(static_cast<unsigned char>(c)));
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

// Rank of an entry under the default rule; nullopt: never chosen by default.
std::optional<int> default_rank(const GidEntry& e)
{
    if (is_zero(e.gid) || is_link_local(e.gid) || e.type == GidType::ib)
        return std::nullopt;
    int rank = e.type == GidType::roce_v2 ? 0 : 2;
    return rank + (is_ipv4_mapped(e.gid) ? 0 : 1);
}

GidChoice explicit_choice(std::span<const GidEntry> table, uint32_t table_length, uint32_t index)
{
    if (index >= table_length)
        return {-1, "GID index " + std::to_string(index) + " is out of range (the table has " +
                        std::to_string(table_length) + " entries, 0.." + std::to_string(table_length - 1) + ")"};
    auto it = std::find_if(table.begin(), table.end(), [&](const GidEntry& e) { return e.index == index; });
    if (it == table.end() || is_zero(it->gid))
        return {-1, "GID index " + std::to_string(index) + " is empty"};
    return {int(index), {}};
}

} // namespace

std::optional<GidBytes> parse_gid(std::string_view text)
{
    text = trim(text);
    GidBytes out{};
    size_t nibbles = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (c == ':') {
            if (nibbles % 4 != 0 || nibbles == 0 || i + 1 == text.size() || text[i + 1] == ':')
                return std::nullopt;
            continue;
        }
        int v = hex_value(c);
        if (v < 0 || nibbles >= 32)
            return std::nullopt;
        out[nibbles / 2] = uint8_t(out[nibbles / 2] | (nibbles % 2 == 0 ? v << 4 : v));
        ++nibbles;
    }
    if (nibbles != 32)
        return std::nullopt;
    return out;
}

std::optional<GidType> parse_gid_type(std::string_view text)
{
    text = trim(text);
    if (text == "RoCE v2")
        return GidType::roce_v2;
    if (text == "IB/RoCE v1" || text == "RoCE v1")
        return GidType::roce_v1;
    if (text == "IB")
        return GidType::ib;
    return std::nullopt;
}

std::string format_gid(const GidBytes& gid)
{
    char text[INET6_ADDRSTRLEN] = {};
    if (inet_ntop(AF_INET6, gid.data(), text, sizeof text) == nullptr)
        return "?";
    return text;
}

const char* gid_type_name(GidType type)
{
    switch (type) {
    case GidType::roce_v2:
        return "RoCE v2";
    case GidType::roce_v1:
        return "RoCE v1";
    case GidType::ib:
        break;
    }
    return "IB";
}

bool is_zero(const GidBytes& gid)
{
    return std::all_of(gid.begin(), gid.end(), [](uint8_t b) { return b == 0; });
}

bool is_ipv4_mapped(const GidBytes& gid)
{
    return std::all_of(gid.begin(), gid.begin() + 10, [](uint8_t b) { return b == 0; }) && gid[10] == 0xff &&
           gid[11] == 0xff;
}

bool is_link_local(const GidBytes& gid)
{
    return gid[0] == 0xfe && (gid[1] & 0xc0) == 0x80;
}

GidChoice choose_gid(std::span<const GidEntry> table, uint32_t table_length, bool ethernet,
                     std::optional<uint32_t> explicit_index)
{
    if (explicit_index)
        return explicit_choice(table, table_length, *explicit_index);
    if (!ethernet)
        return {-1, {}};
    const GidEntry* best = nullptr;
    int best_rank = 0;
    for (const GidEntry& e : table) {
        auto rank = default_rank(e);
        if (rank && e.index < table_length &&
            (best == nullptr || *rank < best_rank || (*rank == best_rank && e.index < best->index))) {
            best = &e;
            best_rank = *rank;
        }
    }
    if (best == nullptr)
        return {-1, table.empty() ? "the GID table is empty (is the netdev up and addressed?)"
                                  : "no routable RoCE GID (only link-local or empty entries); pass --ibv-gid N to "
                                    "use one anyway"};
    return {int(best->index), {}};
}

} // namespace ngx::ibv
