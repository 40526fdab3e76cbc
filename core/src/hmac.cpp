// SHA-256 from FIPS 180-4 section 6.2, HMAC from RFC 2104 (see hmac.hpp).
#include "hmac.hpp"

#include <cstring>
#include <vector>

namespace ngx {
namespace {

// FIPS 180-4 section 4.2.2: the first 32 bits of the fractional parts of the
// cube roots of the first 64 primes.
constexpr uint32_t round_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

// Section 5.3.3: the square roots of the first 8 primes, likewise.
constexpr uint32_t initial_hash[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

constexpr size_t block_bytes = 64;

uint32_t rotate_right(uint32_t x, int n)
{
    return (x >> n) | (x << (32 - n));
}

// Section 6.2.2, steps 1-4, on one 512-bit block.
void compress(uint32_t state[8], const uint8_t* block)
{
    uint32_t w[64];
    for (int t = 0; t < 16; ++t)
        w[t] = uint32_t(block[4 * t]) << 24 | uint32_t(block[4 * t + 1]) << 16 | uint32_t(block[4 * t + 2]) << 8 |
               uint32_t(block[4 * t + 3]);
    for (int t = 16; t < 64; ++t) {
        uint32_t s0 = rotate_right(w[t - 15], 7) ^ rotate_right(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = rotate_right(w[t - 2], 17) ^ rotate_right(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = s1 + w[t - 7] + s0 + w[t - 16];
    }
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
    for (int t = 0; t < 64; ++t) {
        uint32_t big_sigma1 = rotate_right(e, 6) ^ rotate_right(e, 11) ^ rotate_right(e, 25);
        uint32_t choose = (e & f) ^ (~e & g);
        uint32_t t1 = h + big_sigma1 + choose + round_constants[t] + w[t];
        uint32_t big_sigma0 = rotate_right(a, 2) ^ rotate_right(a, 13) ^ rotate_right(a, 22);
        uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
        uint32_t t2 = big_sigma0 + majority;
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
    state[5] += f;
    state[6] += g;
    state[7] += h;
}

} // namespace

Digest sha256(std::string_view message)
{
    uint32_t state[8];
    std::memcpy(state, initial_hash, sizeof state);
    size_t whole = message.size() / block_bytes * block_bytes;
    const auto* bytes = reinterpret_cast<const uint8_t*>(message.data());
    for (size_t offset = 0; offset < whole; offset += block_bytes)
        compress(state, bytes + offset);
    // Section 5.1.1: a 1 bit, zeros, and the length in bits as 64 bits, big-endian.
    uint8_t tail[2 * block_bytes] = {};
    size_t rest = message.size() - whole;
    if (rest > 0)
        std::memcpy(tail, bytes + whole, rest);
    tail[rest] = 0x80;
    size_t tail_bytes = rest + 1 + 8 <= block_bytes ? block_bytes : 2 * block_bytes;
    uint64_t bits = uint64_t(message.size()) * 8;
    for (int i = 0; i < 8; ++i)
        tail[tail_bytes - 1 - size_t(i)] = uint8_t(bits >> (8 * i));
    for (size_t offset = 0; offset < tail_bytes; offset += block_bytes)
        compress(state, tail + offset);
    Digest digest;
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 4; ++j)
            digest[size_t(4 * i + j)] = uint8_t(state[i] >> (24 - 8 * j));
    return digest;
}

// RFC 2104: H((K ^ opad) || H((K ^ ipad) || text)), K hashed first when longer than a block.
Digest hmac_sha256(std::string_view key, std::string_view message)
{
    std::string block(block_bytes, '\0');
    if (key.size() > block_bytes) {
        Digest hashed = sha256(key);
        std::memcpy(block.data(), hashed.data(), hashed.size());
    } else {
        std::memcpy(block.data(), key.data(), key.size());
    }
    std::string inner = block, outer = block;
    for (size_t i = 0; i < block_bytes; ++i) {
        inner[i] = char(uint8_t(inner[i]) ^ 0x36);
        outer[i] = char(uint8_t(outer[i]) ^ 0x5c);
    }
    Digest inner_hash = sha256(inner + std::string(message));
    return sha256(outer + std::string(reinterpret_cast<const char*>(inner_hash.data()), inner_hash.size()));
}

std::string hex_text(const uint8_t* bytes, size_t length)
{
    static constexpr char digits[] = "0123456789abcdef";
    std::string text;
    text.reserve(2 * length);
    for (size_t i = 0; i < length; ++i) {
        text += digits[bytes[i] >> 4];
        text += digits[bytes[i] & 0xf];
    }
    return text;
}

std::optional<Digest> digest_from_hex(std::string_view text)
{
    Digest digest{};
    if (text.size() != 2 * digest.size())
        return std::nullopt;
    auto nibble = [](char c) -> int {
        if (c >= '0' && c <= '9')
            return c - '0';
        if (c >= 'a' && c <= 'f')
            return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
            return c - 'A' + 10;
        return -1;
    };
    for (size_t i = 0; i < digest.size(); ++i) {
        int high = nibble(text[2 * i]), low = nibble(text[2 * i + 1]);
        if (high < 0 || low < 0)
            return std::nullopt;
        digest[i] = uint8_t(high << 4 | low);
    }
    return digest;
}

bool equal_digests(const Digest& a, const Digest& b)
{
    uint8_t difference = 0;
    for (size_t i = 0; i < a.size(); ++i)
        difference |= uint8_t(a[i] ^ b[i]);
    return difference == 0;
}

} // namespace ngx
