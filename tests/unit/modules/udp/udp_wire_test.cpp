// Tests of the udp module against a hand-driven peer: the test owns a plain
// UDP socket and an in-process bootstrap, so it can put on the wire exactly
// what a real network might deliver (fragments reordered, duplicated, late,
// lost, malformed) and check what the module makes of it, and read exactly
// what the module sends. Loopback only; each test takes milliseconds.
#include "udp/fragment.hpp"

#include <ngx/module.h>

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

extern "C" const ngx_module* ngx_module_entry(void);

namespace ngx::udp {
namespace {

constexpr size_t test_payload = header_size + 8; // datagrams carry 8 message bytes

// The module under test on one side, a raw socket on the other.
class UdpWire : public ::testing::Test {
protected:
    void SetUp() override
    {
        module_ = ngx_module_entry();
        ops_ = module_->ops;
        raw_ = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        ASSERT_GE(raw_, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ASSERT_EQ(bind(raw_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
        timeval tv{1, 0};
        setsockopt(raw_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    }

    void TearDown() override
    {
        if (ctx_ != nullptr)
            ops_->finalize(ctx_);
        if (raw_ >= 0)
            close(raw_);
    }

    // Inits and connects the module with the given extra options.
    void start(std::vector<ngx_option_value> extra = {})
    {
        std::vector<ngx_option_value> options = {{"udp-loss-timeout-us", "50000"}};
        options.insert(options.end(), extra.begin(), extra.end());
        ngx_init_args args{sizeof args, options.data(), options.size(), 2000000000ull, &cancel_, 1 << 16};
        ASSERT_EQ(ops_->init(&args, &ctx_, &err_), NGX_OK) << err_.message;
        ngx_bootstrap boot{sizeof boot, this, 0, 2, 1, "127.0.0.1", "127.0.0.1", &UdpWire::exchange, &UdpWire::barrier};
        ASSERT_EQ(ops_->connect(ctx_, &boot, &err_), NGX_OK) << err_.message;
        ASSERT_EQ(proposed_payload_, "65507"); // auto on IPv4 loopback
    }

    // The in-process bootstrap: first swap addresses, then datagram payloads.
    static ngx_status exchange(void* ctx, const void* mine, size_t mine_len, void* theirs, size_t capacity,
                               size_t* theirs_len, ngx_error*)
    {
        auto* self = static_cast<UdpWire*>(ctx);
        std::string module_blob(static_cast<const char*>(mine), mine_len);
        ++self->swaps_;
        std::string reply = self->swaps_ == 1   ? self->on_address(module_blob)
                            : self->swaps_ == 2 ? self->on_payload(module_blob)
                                                : self->on_resync(module_blob);
        *theirs_len = std::min(reply.size(), capacity);
        std::memcpy(theirs, reply.data(), *theirs_len);
        return NGX_OK;
    }

    static ngx_status barrier(void*, ngx_error*) { return NGX_OK; }

    std::string on_address(const std::string& module_blob)
    {
        char tag[16], host[64];
        unsigned port = 0;
        EXPECT_EQ(std::sscanf(module_blob.c_str(), "%15s %63s %u", tag, host, &port), 3) << module_blob;
        sockaddr_in peer{};
        peer.sin_family = AF_INET;
        peer.sin_port = htons(uint16_t(port));
        inet_pton(AF_INET, host, &peer.sin_addr);
        EXPECT_EQ(connect(raw_, reinterpret_cast<sockaddr*>(&peer), sizeof peer), 0);
        sockaddr_in me{};
        socklen_t len = sizeof me;
        getsockname(raw_, reinterpret_cast<sockaddr*>(&me), &len);
        return std::string(tag) + " 127.0.0.1 " + std::to_string(ntohs(me.sin_port));
    }

    std::string on_payload(const std::string& module_blob)
    {
        proposed_payload_ = module_blob;
        return std::to_string(test_payload);
    }

    // resync(): the module tells its next send number; the test answers with resync_next_.
    std::string on_resync(const std::string& module_blob)
    {
        resync_told_ = module_blob;
        return std::to_string(resync_next_);
    }

    ngx_status resync()
    {
        ngx_bootstrap boot{sizeof boot, this, 0, 2, 1, "127.0.0.1", "127.0.0.1", &UdpWire::exchange, &UdpWire::barrier};
        return ops_->resync(ctx_, &boot, &err_);
    }

    std::string resync_told_;
    uint32_t resync_next_ = 0;

    // Puts one datagram on the wire: a header and `bytes` (message offset `from`).
    void put(uint32_t seq, uint32_t index, uint32_t count, uint32_t total, size_t from, size_t bytes)
    {
        std::vector<unsigned char> datagram(header_size + bytes);
        encode(Header{seq, index, count, total}, datagram.data());
        for (size_t i = 0; i < bytes; ++i)
            datagram[header_size + i] = byte_at(seq, from + i);
        ASSERT_EQ(send(raw_, datagram.data(), datagram.size(), 0), ssize_t(datagram.size()));
    }

    // Fragment `index` of message `seq` of `total` bytes, as the layout cuts it.
    void put_fragment(uint32_t seq, uint32_t index, uint32_t total)
    {
        Layout layout(test_payload - header_size);
        put(seq, index, uint32_t(layout.count(total)), total, layout.offset(index), layout.length(total, index));
    }

    static unsigned char byte_at(uint32_t seq, size_t i) { return static_cast<unsigned char>(seq * 41 + i * 7 + 3); }

    ::testing::AssertionResult holds(const std::vector<unsigned char>& buf, uint32_t seq)
    {
        for (size_t i = 0; i < buf.size(); ++i)
            if (buf[i] != byte_at(seq, i))
                return ::testing::AssertionFailure() << "byte " << i << " is not from message " << seq;
        return ::testing::AssertionSuccess();
    }

    ngx_status receive(std::vector<unsigned char>& buf) { return ops_->recv(ctx_, buf.data(), buf.size(), &err_); }

    // Reads one datagram the module sent.
    std::vector<unsigned char> take()
    {
        std::vector<unsigned char> datagram(70000);
        ssize_t n = recv(raw_, datagram.data(), datagram.size(), 0);
        datagram.resize(n < 0 ? 0 : size_t(n));
        return datagram;
    }

    const ngx_module* module_ = nullptr;
    const ngx_module_ops* ops_ = nullptr;
    void* ctx_ = nullptr;
    ngx_error err_{};
    volatile int cancel_ = 0;
    int raw_ = -1;
    int swaps_ = 0;
    std::string proposed_payload_;
};

TEST_F(UdpWire, DescriptorDeclaresAnUnreliableZeroByteCapableModule)
{
    const ngx_module* m = ngx_module_entry();
    EXPECT_EQ(m->abi_major, uint32_t(NGX_MODULE_ABI_MAJOR));
    EXPECT_STREQ(m->name, "udp");
    EXPECT_EQ(m->capabilities & NGX_CAP_RELIABLE, 0u);
    EXPECT_NE(m->capabilities & NGX_CAP_ZERO_BYTE, 0u);
}

TEST_F(UdpWire, SmallMessageIsOneDatagramWithItsHeader)
{
    start();
    const unsigned char message[5] = {1, 2, 3, 4, 5};
    ASSERT_EQ(ops_->send(ctx_, message, sizeof message, &err_), NGX_OK) << err_.message;
    auto datagram = take();
    ASSERT_EQ(datagram.size(), header_size + 5);
    Header h = decode(datagram.data());
    EXPECT_EQ(h.seq, 0u);
    EXPECT_EQ(h.index, 0u);
    EXPECT_EQ(h.count, 1u);
    EXPECT_EQ(h.total, 5u);
    EXPECT_EQ(std::memcmp(datagram.data() + header_size, message, 5), 0);
}

TEST_F(UdpWire, ZeroByteMessageIsAHeaderOnlyDatagram)
{
    start();
    ASSERT_EQ(ops_->send(ctx_, nullptr, 0, &err_), NGX_OK) << err_.message;
    ASSERT_EQ(ops_->send(ctx_, nullptr, 0, &err_), NGX_OK) << err_.message;
    EXPECT_EQ(take().size(), header_size);
    auto second = take();
    ASSERT_EQ(second.size(), header_size);
    EXPECT_EQ(decode(second.data()).seq, 1u);
    put(0, 0, 1, 0, 0, 0);
    std::vector<unsigned char> none;
    EXPECT_EQ(receive(none), NGX_OK) << err_.message;
}

TEST_F(UdpWire, LargeMessageIsCutIntoNumberedFragments)
{
    start();
    std::vector<unsigned char> message(20);
    for (size_t i = 0; i < message.size(); ++i)
        message[i] = byte_at(0, i);
    ASSERT_EQ(ops_->send(ctx_, message.data(), message.size(), &err_), NGX_OK) << err_.message;
    const size_t sizes[3] = {8, 8, 4};
    for (uint32_t i = 0; i < 3; ++i) {
        auto datagram = take();
        ASSERT_EQ(datagram.size(), header_size + sizes[i]);
        Header h = decode(datagram.data());
        EXPECT_EQ(h.index, i);
        EXPECT_EQ(h.count, 3u);
        EXPECT_EQ(h.total, 20u);
        EXPECT_EQ(std::memcmp(datagram.data() + header_size, message.data() + 8 * i, sizes[i]), 0);
    }
}

TEST_F(UdpWire, ReorderedAndDuplicatedFragmentsAreReassembled)
{
    start();
    for (uint32_t index : {2u, 0u, 2u, 1u})
        put_fragment(0, index, 20);
    std::vector<unsigned char> buf(20);
    ASSERT_EQ(receive(buf), NGX_OK) << err_.message;
    EXPECT_TRUE(holds(buf, 0));
}

TEST_F(UdpWire, ReverseOrderManyFragments)
{
    start();
    const uint32_t total = 8 * 50 + 3;
    for (uint32_t index = 51; index-- > 0;)
        put_fragment(0, index, total);
    std::vector<unsigned char> buf(total);
    ASSERT_EQ(receive(buf), NGX_OK) << err_.message;
    EXPECT_TRUE(holds(buf, 0));
}

TEST_F(UdpWire, StaleMessagesAreNotTakenForTheNextOne)
{
    start();
    put_fragment(0, 0, 4);
    std::vector<unsigned char> buf(4);
    ASSERT_EQ(receive(buf), NGX_OK) << err_.message;
    put_fragment(0, 0, 4); // a duplicate of the message already received
    put_fragment(1, 0, 4);
    ASSERT_EQ(receive(buf), NGX_OK) << err_.message;
    EXPECT_TRUE(holds(buf, 1));
}

TEST_F(UdpWire, IncompleteMessageTimesOutAndItsLateFragmentsAreDropped)
{
    start();
    put_fragment(0, 0, 20);
    std::vector<unsigned char> buf(20);
    ASSERT_EQ(receive(buf), NGX_ERR_LOST);
    EXPECT_NE(std::string(err_.message).find("message seq 0, size 20 lost: 1/3 fragments"), std::string::npos)
        << err_.message;
    put_fragment(0, 1, 20); // late: must not start message 0 again
    put_fragment(0, 2, 20);
    for (uint32_t index : {0u, 1u, 2u})
        put_fragment(1, index, 20);
    ASSERT_EQ(receive(buf), NGX_OK) << err_.message;
    EXPECT_TRUE(holds(buf, 1));
}

TEST_F(UdpWire, SilentPeerTimesOutWithoutLosingTheNextMessage)
{
    start();
    std::vector<unsigned char> buf(1);
    ASSERT_EQ(receive(buf), NGX_ERR_TIMEOUT);
    EXPECT_NE(std::string(err_.message).find("0/1 fragments"), std::string::npos) << err_.message;
    put_fragment(0, 0, 1); // message 0 is still the one expected
    ASSERT_EQ(receive(buf), NGX_OK) << err_.message;
    EXPECT_TRUE(holds(buf, 0));
}

TEST_F(UdpWire, NewerMessageReplacesAPartialOne)
{
    start();
    put_fragment(0, 0, 20);
    for (uint32_t index : {1u, 0u, 2u})
        put_fragment(1, index, 20);
    std::vector<unsigned char> buf(20);
    ASSERT_EQ(receive(buf), NGX_OK) << err_.message;
    EXPECT_TRUE(holds(buf, 1));
}

TEST_F(UdpWire, MessageOfAnotherSizeIsAProtocolError)
{
    start();
    put_fragment(0, 0, 7);
    std::vector<unsigned char> buf(6);
    ASSERT_EQ(receive(buf), NGX_ERR_PROTOCOL);
    EXPECT_NE(std::string(err_.message).find("has 7 bytes but the receive expects 6"), std::string::npos)
        << err_.message;
}

TEST_F(UdpWire, NewerMessageOfAnotherSizeEndsTheReceiveAsALoss)
{
    start();
    put_fragment(1, 0, 7); // message 0 (6 bytes) never came
    std::vector<unsigned char> buf(6);
    ASSERT_EQ(receive(buf), NGX_ERR_LOST);
    EXPECT_NE(std::string(err_.message).find("message seq 0, size 6 lost: the peer already sent message seq 1"),
              std::string::npos)
        << err_.message;
    put_fragment(2, 0, 6);
    ASSERT_EQ(receive(buf), NGX_OK) << err_.message;
    EXPECT_TRUE(holds(buf, 2));
}

TEST_F(UdpWire, ResyncMakesEveryDatagramInFlightStale)
{
    start();
    ASSERT_GE(module_->ops->size, offsetof(ngx_module_ops, resync) + sizeof(void*));
    ASSERT_NE(module_->ops->resync, nullptr);
    unsigned char one = 1;
    ASSERT_EQ(ops_->send(ctx_, &one, 1, &err_), NGX_OK) << err_.message;
    ASSERT_EQ(ops_->send(ctx_, &one, 1, &err_), NGX_OK) << err_.message;
    put_fragment(0, 0, 1); // in flight before the resync: the old answer
    put_fragment(1, 0, 1);
    resync_next_ = 7;
    ASSERT_EQ(resync(), NGX_OK) << err_.message;
    EXPECT_EQ(resync_told_, "2"); // its next send is message 2
    std::vector<unsigned char> buf(1);
    put_fragment(7, 0, 1);
    ASSERT_EQ(receive(buf), NGX_OK) << err_.message;
    EXPECT_TRUE(holds(buf, 7)) << "a datagram from before the resync was taken for the next message";
}

TEST_F(UdpWire, ResyncRejectsAGarbledSequenceNumber)
{
    start();
    ngx_bootstrap boot{sizeof boot,
                       this,
                       0,
                       2,
                       1,
                       "127.0.0.1",
                       "127.0.0.1",
                       [](void*, const void*, size_t, void* theirs, size_t, size_t* len, ngx_error*) {
                           std::memcpy(theirs, "x9", 2);
                           *len = 2;
                           return NGX_OK;
                       },
                       &UdpWire::barrier};
    EXPECT_EQ(ops_->resync(ctx_, &boot, &err_), NGX_ERR_PROTOCOL);
    EXPECT_NE(std::string(err_.message).find("next sequence number"), std::string::npos) << err_.message;
}

TEST_F(UdpWire, DatagramShorterThanTheHeaderIsAProtocolError)
{
    start();
    ASSERT_EQ(send(raw_, "runt", 4, 0), 4);
    std::vector<unsigned char> buf(1);
    EXPECT_EQ(receive(buf), NGX_ERR_PROTOCOL);
}

TEST_F(UdpWire, OversizedDatagramIsAProtocolError)
{
    start();
    put(0, 0, 1, 1, 0, 30); // claims 1 byte, carries 30
    std::vector<unsigned char> buf(1);
    EXPECT_EQ(receive(buf), NGX_ERR_PROTOCOL) << err_.message;
}

TEST_F(UdpWire, ClosedPeerPortMeansPeerLost)
{
    start();
    close(raw_);
    raw_ = -1;
    unsigned char byte = 0;
    ngx_status status = NGX_OK;
    for (int i = 0; i < 3 && status == NGX_OK; ++i)
        status = ops_->send(ctx_, &byte, 1, &err_);
    if (status == NGX_OK)
        status = ops_->recv(ctx_, &byte, 1, &err_);
    EXPECT_EQ(status, NGX_ERR_PEER_LOST);
    EXPECT_NE(std::string(err_.message).find("port is closed"), std::string::npos) << err_.message;
}

TEST_F(UdpWire, RaisedCancelFlagInterruptsAWaitingReceive)
{
    start({{"udp-loss-timeout-us", "5000000"}});
    cancel_ = 1;
    std::vector<unsigned char> buf(1);
    EXPECT_EQ(receive(buf), NGX_ERR_INTERRUPTED);
}

TEST_F(UdpWire, BusyPollReceivesAndTimesOut)
{
    start({{"udp-busy-poll", "1"}});
    for (uint32_t index : {1u, 0u, 2u})
        put_fragment(0, index, 20);
    std::vector<unsigned char> buf(20);
    ASSERT_EQ(receive(buf), NGX_OK) << err_.message;
    EXPECT_TRUE(holds(buf, 0));
    EXPECT_EQ(receive(buf), NGX_ERR_TIMEOUT);
}

struct BadOption {
    const char* name;
    const char* value;
};

class UdpOptions : public ::testing::TestWithParam<BadOption> {};

TEST_P(UdpOptions, BadValueIsRejectedNamingOptionAndValue)
{
    const ngx_module_ops* ops = ngx_module_entry()->ops;
    ngx_option_value option{GetParam().name, GetParam().value};
    ngx_init_args args{sizeof args, &option, 1, 1000000000ull, nullptr, 1};
    void* ctx = nullptr;
    ngx_error err{};
    ASSERT_EQ(ops->init(&args, &ctx, &err), NGX_ERR_INVALID_OPTION);
    std::string expected = std::string("--") + GetParam().name + " '" + GetParam().value + "': "; // ngx/options.hpp
    EXPECT_NE(std::string(err.message).find(expected), std::string::npos) << err.message;
}

INSTANTIATE_TEST_SUITE_P(Values, UdpOptions,
                         ::testing::Values(BadOption{"udp-port", "65535"}, BadOption{"udp-port", "x"},
                                           BadOption{"udp-mtu-payload", "16"}, BadOption{"udp-mtu-payload", "70000"},
                                           BadOption{"udp-loss-timeout-us", "0"},
                                           BadOption{"udp-loss-timeout-us", "-5"}, BadOption{"udp-busy-poll", "maybe"},
                                           BadOption{"udp-buffer", "1"}));

} // namespace
} // namespace ngx::udp
