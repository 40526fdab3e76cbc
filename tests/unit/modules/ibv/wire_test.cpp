// Unit tests of the ibv module's connection-data encoding (wire.hpp).
#include "ibv/wire.hpp"

#include <gtest/gtest.h>

namespace ngx::ibv {
namespace {

WireInfo sample()
{
    WireInfo w;
    w.mode = 2;
    w.ethernet = 1;
    w.qpn = 0x123456;
    w.psn = 0xabcdef;
    w.lid = 7;
    for (size_t i = 0; i < w.gid.size(); ++i)
        w.gid[i] = uint8_t(i * 17);
    w.mtu = 3;
    w.pool_addr = 0x7f0012345000ull;
    w.pool_rkey = 0xdeadbeef;
    w.slot_size = 1 << 20;
    w.slots = 32;
    return w;
}

TEST(Wire, RoundTripsEveryField)
{
    WireInfo in = sample();
    auto bytes = encode(in);
    auto out = decode(bytes.data(), bytes.size());
    ASSERT_TRUE(out.has_value());
    EXPECT_EQ(out->mode, in.mode);
    EXPECT_EQ(out->ethernet, in.ethernet);
    EXPECT_EQ(out->qpn, in.qpn);
    EXPECT_EQ(out->psn, in.psn);
    EXPECT_EQ(out->lid, in.lid);
    EXPECT_EQ(out->gid, in.gid);
    EXPECT_EQ(out->mtu, in.mtu);
    EXPECT_EQ(out->pool_addr, in.pool_addr);
    EXPECT_EQ(out->pool_rkey, in.pool_rkey);
    EXPECT_EQ(out->slot_size, in.slot_size);
    EXPECT_EQ(out->slots, in.slots);
}

TEST(Wire, IsLittleEndianWithMagicFirst)
{
    auto bytes = encode(sample());
    EXPECT_EQ(bytes[0], 0x69); // "ngxi" as a little-endian 32-bit value
    EXPECT_EQ(bytes[3], 0x6e);
}

TEST(Wire, RejectsWrongSizeMagicAndVersion)
{
    auto bytes = encode(sample());
    EXPECT_FALSE(decode(bytes.data(), bytes.size() - 1).has_value());
    auto bad_magic = bytes;
    bad_magic[0] ^= 0xff;
    EXPECT_FALSE(decode(bad_magic.data(), bad_magic.size()).has_value());
    auto bad_version = bytes;
    bad_version[4] ^= 0xff;
    EXPECT_FALSE(decode(bad_version.data(), bad_version.size()).has_value());
}

} // namespace
} // namespace ngx::ibv
