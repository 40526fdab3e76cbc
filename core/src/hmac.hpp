// SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), for the shared-secret
// challenge of the --listen handshake: both sides prove that they hold the
// secret without sending it. Small and dependency-free; speed does not matter
// here (a handful of short messages per connection).
//
//     Digest mac = hmac_sha256(secret, "ngx client " + nonces);
//     bool same = equal_digests(mac, theirs);   // constant time
#ifndef NGX_HMAC_HPP
#define NGX_HMAC_HPP

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ngx {

using Digest = std::array<uint8_t, 32>;

Digest sha256(std::string_view message);
Digest hmac_sha256(std::string_view key, std::string_view message);

// Lower-case hex of any bytes, and back (nullopt unless exactly 64 hex digits).
std::string hex_text(const uint8_t* bytes, size_t length);
inline std::string hex_text(const Digest& digest)
{
    return hex_text(digest.data(), digest.size());
}
std::optional<Digest> digest_from_hex(std::string_view text);

// Compares in time independent of where the digests differ.
bool equal_digests(const Digest& a, const Digest& b);

} // namespace ngx

#endif
