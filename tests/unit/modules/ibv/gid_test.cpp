// Unit tests of the ibv module's GID parsing and choice rule (gid.hpp): no
// device needed. The tables mimic what rxe on an IPv4-addressed netdev shows.
#include "ibv/gid.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace ngx::ibv {
namespace {

GidBytes gid(const char* text)
{
    auto parsed = parse_gid(text);
    EXPECT_TRUE(parsed.has_value()) << text;
    return parsed.value_or(GidBytes{});
}

const char* link_local = "fe80:0000:0000:0000:6ccd:d3ff:fe45:d82f";
const char* mapped_gid = "0000:0000:0000:0000:0000:ffff:0a00:020f";
const char* global_gid = "fd00:0000:0000:0000:6ccd:d3ff:fe45:d82f";

// rxe on eth0 with 10.0.2.15: link-local, IPv4-mapped, site-local; all RoCE v2.
std::vector<GidEntry> rxe_table()
{
    return {{0, gid(link_local), GidType::roce_v2},
            {1, gid(mapped_gid), GidType::roce_v2},
            {2, gid(global_gid), GidType::roce_v2}};
}

TEST(GidParse, SysfsTextRoundTrips)
{
    EXPECT_EQ(format_gid(gid(mapped_gid)), "::ffff:10.0.2.15");
    EXPECT_EQ(format_gid(gid(link_local)), "fe80::6ccd:d3ff:fe45:d82f");
    EXPECT_FALSE(parse_gid("fe80::1").has_value());
    EXPECT_FALSE(parse_gid("0000:0000").has_value());
    EXPECT_FALSE(parse_gid("zz00:0000:0000:0000:0000:ffff:0a00:020f").has_value());
    EXPECT_TRUE(parse_gid("0000:0000:0000:0000:0000:ffff:0a00:020f\n").has_value());
}

TEST(GidParse, Types)
{
    EXPECT_EQ(parse_gid_type("RoCE v2\n"), GidType::roce_v2);
    EXPECT_EQ(parse_gid_type("IB/RoCE v1"), GidType::roce_v1);
    EXPECT_FALSE(parse_gid_type("bogus").has_value());
}

TEST(GidClass, MappedAndLinkLocal)
{
    EXPECT_TRUE(is_ipv4_mapped(gid(mapped_gid)));
    EXPECT_FALSE(is_ipv4_mapped(gid(link_local)));
    EXPECT_TRUE(is_link_local(gid(link_local)));
    EXPECT_FALSE(is_link_local(gid(global_gid)));
    EXPECT_TRUE(is_zero(GidBytes{}));
}

TEST(GidChoose, PrefersIpv4MappedRoceV2)
{
    auto table = rxe_table();
    GidChoice c = choose_gid(table, 1024, true, std::nullopt);
    EXPECT_TRUE(c.error.empty()) << c.error;
    EXPECT_EQ(c.index, 1);
}

TEST(GidChoose, MappedRoceV2BeatsMappedRoceV1AtLowerIndex)
{
    std::vector<GidEntry> table = {{0, gid(link_local), GidType::roce_v1},
                                   {1, gid(mapped_gid), GidType::roce_v1},
                                   {2, gid(link_local), GidType::roce_v2},
                                   {3, gid(mapped_gid), GidType::roce_v2}};
    EXPECT_EQ(choose_gid(table, 16, true, std::nullopt).index, 3);
}

TEST(GidChoose, GlobalIpv6WhenNoMappedAddress)
{
    std::vector<GidEntry> table = {{0, gid(link_local), GidType::roce_v2}, {5, gid(global_gid), GidType::roce_v2}};
    EXPECT_EQ(choose_gid(table, 16, true, std::nullopt).index, 5);
}

TEST(GidChoose, LinkLocalNeverByDefault)
{
    std::vector<GidEntry> table = {{0, gid(link_local), GidType::roce_v2}};
    GidChoice c = choose_gid(table, 16, true, std::nullopt);
    EXPECT_EQ(c.index, -1);
    EXPECT_NE(c.error.find("link-local"), std::string::npos) << c.error;
    EXPECT_NE(c.error.find("--ibv-gid"), std::string::npos) << c.error;
}

TEST(GidChoose, ExplicitIndexHonoured)
{
    auto table = rxe_table();
    GidChoice c = choose_gid(table, 1024, true, 0u);
    EXPECT_TRUE(c.error.empty()) << c.error;
    EXPECT_EQ(c.index, 0);
    EXPECT_EQ(choose_gid(table, 1024, true, 2u).index, 2);
}

TEST(GidChoose, ExplicitIndexOutOfRangeRejected)
{
    auto table = rxe_table();
    GidChoice c = choose_gid(table, 1024, true, 1024u);
    EXPECT_EQ(c.index, -1);
    EXPECT_NE(c.error.find("out of range"), std::string::npos) << c.error;
    EXPECT_NE(c.error.find("0..1023"), std::string::npos) << c.error;
}

TEST(GidChoose, ExplicitEmptyEntryRejected)
{
    auto table = rxe_table();
    GidChoice c = choose_gid(table, 1024, true, 7u);
    EXPECT_EQ(c.index, -1);
    EXPECT_NE(c.error.find("empty"), std::string::npos) << c.error;
}

TEST(GidChoose, InfinibandNeedsNoGid)
{
    std::vector<GidEntry> table = {{0, gid("fe80:0000:0000:0000:0002:c903:0001:0001"), GidType::ib}};
    GidChoice c = choose_gid(table, 128, false, std::nullopt);
    EXPECT_TRUE(c.error.empty());
    EXPECT_EQ(c.index, -1);
}

TEST(GidChoose, EmptyTableExplained)
{
    GidChoice c = choose_gid({}, 1024, true, std::nullopt);
    EXPECT_EQ(c.index, -1);
    EXPECT_NE(c.error.find("empty"), std::string::npos) << c.error;
}

} // namespace
} // namespace ngx::ibv
