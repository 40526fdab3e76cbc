// Unit tests of the shared-memory ring under `shm` and `sim`
// (modules/shm/ring.hpp): a writer thread and a reader thread over one ring
// in ordinary memory, with the smallest ring so that records wrap, split and
// stream all the time.
#include "../../modules/shm/ring.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <thread>
#include <vector>

namespace {

using ngx::shm::RingReader;
using ngx::shm::RingWriter;
using ngx::shm::SpinWait;
using ngx::shm::Waiting;

constexpr uint64_t timeout_ns = 10'000'000'000;

struct FreeDeleter {
    void operator()(void* p) const { std::free(p); }
};

// A zeroed, page-aligned region for one ring, as ftruncate() would give.
std::unique_ptr<unsigned char, FreeDeleter> make_region(size_t ring_bytes)
{
    size_t bytes = ngx::shm::ring_region_bytes(ring_bytes);
    auto* p = static_cast<unsigned char*>(std::aligned_alloc(ngx::shm::page_bytes, bytes));
    std::memset(p, 0, bytes);
    return std::unique_ptr<unsigned char, FreeDeleter>(p);
}

unsigned char pattern(uint64_t message, size_t i)
{
    return static_cast<unsigned char>(message * 131 + i * 7 + (i >> 7));
}

// Mostly small messages, some larger than a record, a few larger than the ring.
size_t message_size(std::mt19937_64& rng)
{
    uint64_t pick = rng() % 100;
    if (pick < 70)
        return size_t(rng() % 65);
    if (pick < 95)
        return size_t(rng() % 1200);
    return size_t(rng() % 20000);
}

TEST(Ring, RingBytesMustBeAPowerOfTwoOfAtLeast4KiB)
{
    EXPECT_TRUE(ngx::shm::valid_ring_bytes(4096));
    EXPECT_TRUE(ngx::shm::valid_ring_bytes(1 << 20));
    EXPECT_FALSE(ngx::shm::valid_ring_bytes(2048));
    EXPECT_FALSE(ngx::shm::valid_ring_bytes(5000));
    EXPECT_FALSE(ngx::shm::valid_ring_bytes(0));
}

TEST(Ring, RandomSizesArriveIntactAndInOrderThroughASmallRing)
{
    constexpr size_t ring_bytes = 4096;
    constexpr uint64_t messages = 60000;
    auto region = make_region(ring_bytes);
    std::thread writer_thread([&] {
        RingWriter writer(region.get(), ring_bytes);
        std::mt19937_64 rng(1);
        std::vector<unsigned char> payload(20000);
        for (uint64_t m = 0; m < messages; ++m) {
            size_t size = message_size(rng);
            for (size_t i = 0; i < size; ++i)
                payload[i] = pattern(m, i);
            SpinWait wait(timeout_ns, nullptr, nullptr, Waiting::for_space);
            ngx_error err{};
            if (writer.write(&m, sizeof m, payload.data(), size, wait, &err) != NGX_OK) {
                ADD_FAILURE() << "write #" << m << ": " << err.message;
                return;
            }
        }
    });
    RingReader reader(region.get(), ring_bytes);
    std::mt19937_64 rng(1);
    std::vector<unsigned char> payload(20000);
    for (uint64_t m = 0; m < messages; ++m) {
        size_t size = message_size(rng);
        uint64_t index = ~uint64_t(0);
        SpinWait wait(timeout_ns, nullptr, nullptr, Waiting::for_message);
        ngx_error err{};
        ASSERT_EQ(reader.read(&index, sizeof index, payload.data(), size, wait, &err), NGX_OK) << err.message;
        ASSERT_EQ(index, m);
        for (size_t i = 0; i < size; ++i)
            ASSERT_EQ(payload[i], pattern(m, i)) << "message #" << m << " (" << size << " bytes), byte " << i;
    }
    writer_thread.join();
}

TEST(Ring, PeekShowsTheNextMessageWithoutConsumingIt)
{
    constexpr size_t ring_bytes = 4096;
    auto region = make_region(ring_bytes);
    RingWriter writer(region.get(), ring_bytes);
    RingReader reader(region.get(), ring_bytes);
    uint64_t seen = 0;
    EXPECT_FALSE(reader.peek(&seen, sizeof seen)) << "an empty ring has nothing to show";
    const uint64_t first = 0x1122334455667788u;
    const char body[] = "payload";
    SpinWait wait(timeout_ns, nullptr, nullptr, Waiting::for_space);
    ngx_error err{};
    ASSERT_EQ(writer.write(&first, sizeof first, body, sizeof body, wait, &err), NGX_OK) << err.message;
    ASSERT_TRUE(reader.peek(&seen, sizeof seen));
    EXPECT_EQ(seen, first);
    ASSERT_TRUE(reader.peek(&seen, sizeof seen)) << "peek must not consume";
    uint64_t prefix = 0;
    char out[sizeof body] = {};
    SpinWait rwait(timeout_ns, nullptr, nullptr, Waiting::for_message);
    ASSERT_EQ(reader.read(&prefix, sizeof prefix, out, sizeof out, rwait, &err), NGX_OK) << err.message;
    EXPECT_EQ(prefix, first);
    EXPECT_STREQ(out, body);
    EXPECT_FALSE(reader.peek(&seen, sizeof seen));
}

TEST(Ring, ReadingAnotherSizeThanWasSentIsAProtocolError)
{
    constexpr size_t ring_bytes = 4096;
    for (size_t sent : {size_t(10), size_t(30), size_t(3000)}) {
        auto region = make_region(ring_bytes);
        RingWriter writer(region.get(), ring_bytes);
        RingReader reader(region.get(), ring_bytes);
        std::vector<unsigned char> buf(4000);
        SpinWait wait(timeout_ns, nullptr, nullptr, Waiting::for_space);
        ngx_error err{};
        ASSERT_EQ(writer.write(nullptr, 0, buf.data(), sent, wait, &err), NGX_OK);
        SpinWait rwait(timeout_ns, nullptr, nullptr, Waiting::for_message);
        EXPECT_EQ(reader.read(nullptr, 0, buf.data(), 20, rwait, &err), NGX_ERR_PROTOCOL) << "sent " << sent;
        EXPECT_STRNE(err.message, "");
    }
}

TEST(Ring, AFullRingTimesOutNamingTheStep)
{
    constexpr size_t ring_bytes = 4096;
    auto region = make_region(ring_bytes);
    RingWriter writer(region.get(), ring_bytes);
    std::vector<unsigned char> buf(ring_bytes);
    ngx_error err{};
    SpinWait wait(100'000'000, nullptr, nullptr, Waiting::for_space);
    ngx_status status = writer.write(nullptr, 0, buf.data(), buf.size(), wait, &err);
    EXPECT_EQ(status, NGX_ERR_TIMEOUT);
    EXPECT_EQ(std::string(err.message).rfind("send:", 0), 0u) << err.message;
}

TEST(Ring, CancelStopsAWaitingReader)
{
    constexpr size_t ring_bytes = 4096;
    auto region = make_region(ring_bytes);
    RingReader reader(region.get(), ring_bytes);
    volatile int cancel = 1;
    unsigned char byte = 0;
    ngx_error err{};
    SpinWait wait(timeout_ns, &cancel, nullptr, Waiting::for_message);
    EXPECT_EQ(reader.read(nullptr, 0, &byte, 1, wait, &err), NGX_ERR_INTERRUPTED);
}

} // namespace
