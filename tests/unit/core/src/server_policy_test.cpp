// What a --listen server accepts (server_policy.hpp) and the HMAC-SHA256 of
// its shared-secret challenge (hmac.hpp): FIPS 180-4 examples, RFC 4231
// vectors, networks, the client's argument list and the secret file.
#include "hmac.hpp"
#include "server_policy.hpp"
#include "scratch_dir.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <cstdlib>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

namespace ngx {
namespace {

std::string bytes(size_t count, char value)
{
    return std::string(count, value);
}

TEST(Sha256, FipsExamples)
{
    EXPECT_EQ(hex_text(sha256("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(hex_text(sha256("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    // 56 bytes: the length no longer fits the first padded block.
    EXPECT_EQ(hex_text(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    EXPECT_EQ(hex_text(sha256(bytes(1000000, 'a'))),
              "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

struct Rfc4231Case {
    std::string key, data, mac;
};

TEST(HmacSha256, Rfc4231Vectors)
{
    std::string key4;
    for (int i = 1; i <= 25; ++i)
        key4 += char(i);
    const Rfc4231Case cases[] = {
        {bytes(20, '\x0b'), "Hi There", "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
        {"Jefe", "what do ya want for nothing?", "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
        {bytes(20, '\xaa'), bytes(50, '\xdd'), "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"},
        {key4, bytes(50, '\xcd'), "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"},
        {bytes(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First",
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
        {bytes(131, '\xaa'),
         "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be "
         "hashed before being used by the HMAC algorithm.",
         "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"},
    };
    for (const Rfc4231Case& c : cases)
        EXPECT_EQ(hex_text(hmac_sha256(c.key, c.data)), c.mac) << c.data.substr(0, 20);
    // Test case 5 is truncated to 128 bits: its prefix.
    EXPECT_EQ(hex_text(hmac_sha256(bytes(20, '\x0c'), "Test With Truncation")).substr(0, 32),
              "a3b6167473100ee06e0c796c2955552b");
}

TEST(HmacSha256, DigestsRoundTripAndCompare)
{
    Digest mac = hmac_sha256("key", "message");
    std::optional<Digest> back = digest_from_hex(hex_text(mac));
    ASSERT_TRUE(back);
    EXPECT_TRUE(equal_digests(*back, mac));
    Digest other = mac;
    other[31] ^= 1;
    EXPECT_FALSE(equal_digests(other, mac));
    EXPECT_FALSE(digest_from_hex("abc"));
    EXPECT_FALSE(digest_from_hex(std::string(64, 'g')));
}

sockaddr_storage address_of(const char* text)
{
    sockaddr_storage address{};
    if (inet_pton(AF_INET, text, &reinterpret_cast<sockaddr_in&>(address).sin_addr) == 1) {
        address.ss_family = AF_INET;
    } else {
        EXPECT_EQ(inet_pton(AF_INET6, text, &reinterpret_cast<sockaddr_in6&>(address).sin6_addr), 1) << text;
        address.ss_family = AF_INET6;
    }
    return address;
}

TEST(Allow, NetworksMatchTheirAddressesOnly)
{
    Result<std::vector<Cidr>> allow = parse_cidrs("10.1.0.0/16,192.168.7.5,fd00::/8");
    ASSERT_TRUE(allow) << allow.status().message();
    EXPECT_TRUE(allowed(*allow, address_of("10.1.200.3")));
    EXPECT_FALSE(allowed(*allow, address_of("10.2.0.1")));
    EXPECT_TRUE(allowed(*allow, address_of("192.168.7.5")));
    EXPECT_FALSE(allowed(*allow, address_of("192.168.7.6")));
    EXPECT_TRUE(allowed(*allow, address_of("fd12::1")));
    EXPECT_FALSE(allowed(*allow, address_of("fe80::1")));
    // A dual-stack listener sees an IPv4 client as ::ffff:a.b.c.d.
    EXPECT_TRUE(allowed(*allow, address_of("::ffff:10.1.0.9")));
    EXPECT_FALSE(allowed(*allow, address_of("::ffff:10.9.0.9")));
    // No list: everyone; a prefix that is not a whole byte.
    EXPECT_TRUE(allowed({}, address_of("203.0.113.1")));
    Result<std::vector<Cidr>> odd = parse_cidrs("127.0.0.0/9");
    ASSERT_TRUE(odd);
    EXPECT_TRUE(allowed(*odd, address_of("127.127.0.1")));
    EXPECT_FALSE(allowed(*odd, address_of("127.128.0.1")));
}

// The host list of a run of more than two hosts carries addresses as text.
TEST(Allow, AddressesInTextMatchAsTheSocketsDo)
{
    Result<std::vector<Cidr>> allow = parse_cidrs("10.9.0.0/24,fd00::/8");
    ASSERT_TRUE(allow) << allow.status().message();
    EXPECT_TRUE(allowed_address(*allow, "10.9.0.4"));
    EXPECT_FALSE(allowed_address(*allow, "10.9.1.4"));
    EXPECT_TRUE(allowed_address(*allow, "::ffff:10.9.0.4"));
    EXPECT_TRUE(allowed_address(*allow, "fd00::7"));
    EXPECT_FALSE(allowed_address(*allow, "2001:db8::1"));
    // Only numeric addresses: a name is never resolved into the list.
    for (const char* text : {"", "node4", "10.9.0", "10.9.0.4/32", "10.9.0.4 "})
        EXPECT_FALSE(allowed_address(*allow, text)) << text;
}

TEST(RunHosts, TheHostListRoundTripsAndOnlyItsShapeIsTaken)
{
    RunHosts hosts{2, {"10.9.0.1", "10.9.0.2", "fd00::3"}};
    EXPECT_EQ(pack_run_hosts(hosts), "hosts 2 10.9.0.1 10.9.0.2 fd00::3");
    Result<RunHosts> back = unpack_run_hosts(pack_run_hosts(hosts));
    ASSERT_TRUE(back) << back.status().message();
    EXPECT_EQ(back->index, 2);
    EXPECT_EQ(back->addresses, hosts.addresses);
    // Fewer than three hosts, the client's index (0) or one past the list,
    // an empty address, anything but the keyword: refused.
    for (const char* text : {"", "hosts", "hosts 1 a b", "hosts 0 a b c", "hosts 3 a b c", "hosts 1 a  c",
                             "hosts 1 a b c ", "hosts -1 a b c", "hosts 99999999999999999999 a b c", "host 1 a b c"}) {
        Result<RunHosts> refused = unpack_run_hosts(text);
        ASSERT_FALSE(refused) << text;
        EXPECT_EQ(refused.status().kind(), ErrorKind::usage);
        EXPECT_NE(refused.status().message().find("host list"), std::string::npos) << refused.status().message();
    }
}

TEST(Allow, BadNetworksAreUsageErrorsNamingThem)
{
    for (const char* text : {"10.0.0.0/33", "::1/129", "example.org", "10.0.0.0/x", "10.0.0.0,", ""}) {
        Result<std::vector<Cidr>> allow = parse_cidrs(text);
        ASSERT_FALSE(allow) << text;
        EXPECT_EQ(allow.status().kind(), ErrorKind::usage);
        EXPECT_NE(allow.status().message().find("--allow"), std::string::npos) << allow.status().message();
    }
}

TEST(Proposal, ArgumentsSplitAtTheirTerminators)
{
    Result<std::vector<std::string>> arguments = unpack_proposal(std::string("-m\0tcp\0\0", 8));
    ASSERT_TRUE(arguments) << arguments.status().message();
    EXPECT_EQ(*arguments, (std::vector<std::string>{"-m", "tcp", ""}));
    Result<std::vector<std::string>> none = unpack_proposal("");
    ASSERT_TRUE(none);
    EXPECT_TRUE(none->empty());
}

TEST(Proposal, OversizedListsAreRefusedBeforeParsing)
{
    Result<std::vector<std::string>> many = unpack_proposal(std::string(max_arguments + 1, '\0'));
    ASSERT_FALSE(many);
    EXPECT_NE(many.status().message().find("more than 256 arguments"), std::string::npos) << many.status().message();
    EXPECT_TRUE(unpack_proposal(std::string(max_arguments, '\0')));
    Result<std::vector<std::string>> long_one = unpack_proposal(std::string(max_argument_bytes + 1, 'a') + '\0');
    ASSERT_FALSE(long_one);
    EXPECT_NE(long_one.status().message().find("longer than"), std::string::npos);
    Result<std::vector<std::string>> huge = unpack_proposal(std::string(max_proposal_bytes + 1, 'a'));
    ASSERT_FALSE(huge);
    Result<std::vector<std::string>> unterminated = unpack_proposal("-m");
    ASSERT_FALSE(unterminated);
    EXPECT_EQ(unterminated.status().kind(), ErrorKind::usage);
}

class SecretFile : public ScratchDir {
protected:
    std::string path() const { return ScratchDir::path("secret"); }
    void write(const std::string& content, mode_t mode)
    {
        std::ofstream(path()) << content;
        ASSERT_EQ(chmod(path().c_str(), mode), 0);
    }
};

TEST_F(SecretFile, ReadWithoutTheTrailingNewline)
{
    write("0123456789abcdef-secret\n", 0600);
    Result<std::string> secret = read_secret_file(path());
    ASSERT_TRUE(secret) << secret.status().message();
    EXPECT_EQ(*secret, "0123456789abcdef-secret");
}

TEST_F(SecretFile, RefusedWhenOthersMayReadItOrItIsTooShort)
{
    write("0123456789abcdef-secret\n", 0644);
    Result<std::string> open = read_secret_file(path());
    ASSERT_FALSE(open);
    EXPECT_NE(open.status().message().find("chmod 600"), std::string::npos) << open.status().message();
    write("short\n", 0600);
    Result<std::string> short_one = read_secret_file(path());
    ASSERT_FALSE(short_one);
    EXPECT_EQ(short_one.status().kind(), ErrorKind::usage);
    Result<std::string> directory = read_secret_file(dir_);
    ASSERT_FALSE(directory);
    EXPECT_NE(directory.status().message().find("not a regular file"), std::string::npos);
    Result<std::string> missing = read_secret_file(dir_ + "/none");
    ASSERT_FALSE(missing);
}

} // namespace
} // namespace ngx
