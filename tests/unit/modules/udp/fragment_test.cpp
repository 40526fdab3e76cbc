// Unit tests of the udp module's fragmentation and reassembly (fragment.hpp):
// the wire header, the layout of fragments in a message, sequence-number
// order across the wrap, and every verdict of Reassembly::offer().
#include "udp/fragment.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace ngx::udp {
namespace {

Header fragment(uint32_t seq, uint32_t index, uint32_t count, uint32_t total)
{
    return Header{seq, index, count, total};
}

TEST(Header, RoundTripsInNetworkByteOrder)
{
    unsigned char wire[header_size];
    encode(Header{0x01020304, 5, 6, 0xA0B0C0D0}, wire);
    EXPECT_EQ(wire[0], 0x01);
    EXPECT_EQ(wire[3], 0x04);
    EXPECT_EQ(wire[12], 0xA0);
    Header h = decode(wire);
    EXPECT_EQ(h.seq, 0x01020304u);
    EXPECT_EQ(h.index, 5u);
    EXPECT_EQ(h.count, 6u);
    EXPECT_EQ(h.total, 0xA0B0C0D0u);
}

TEST(Sequence, OrdersAcrossTheWrap)
{
    EXPECT_TRUE(seq_at_or_after(5, 5));
    EXPECT_TRUE(seq_at_or_after(6, 5));
    EXPECT_FALSE(seq_at_or_after(4, 5));
    EXPECT_TRUE(seq_at_or_after(0, UINT32_MAX));
    EXPECT_FALSE(seq_at_or_after(UINT32_MAX, 0));
    EXPECT_TRUE(seq_at_or_after(3, UINT32_MAX - 3));
}

TEST(Layout, SplitsIntoChunksWithAShortLastOne)
{
    Layout layout(100);
    EXPECT_EQ(layout.count(0), 1u);
    EXPECT_EQ(layout.count(1), 1u);
    EXPECT_EQ(layout.count(100), 1u);
    EXPECT_EQ(layout.count(101), 2u);
    EXPECT_EQ(layout.count(250), 3u);
    EXPECT_EQ(layout.offset(2), 200u);
    EXPECT_EQ(layout.length(250, 0), 100u);
    EXPECT_EQ(layout.length(250, 2), 50u);
    EXPECT_EQ(layout.length(0, 0), 0u);
    EXPECT_EQ(layout.length(200, 1), 100u);
}

TEST(Reassembly, SingleDatagramMessage)
{
    Reassembly r(Layout(100));
    r.start(1);
    EXPECT_EQ(r.guess(), 0u);
    EXPECT_EQ(r.offer(fragment(0, 0, 1, 1), 1, 0), Verdict::stored);
    EXPECT_TRUE(r.complete());
    EXPECT_EQ(r.expected(), 1u);
}

TEST(Reassembly, ZeroByteMessageIsOneHeaderOnlyDatagram)
{
    Reassembly r(Layout(100));
    r.start(0);
    EXPECT_EQ(r.count(), 1u);
    EXPECT_EQ(r.offer(fragment(0, 0, 1, 0), 0, 0), Verdict::stored);
    EXPECT_TRUE(r.complete());
}

TEST(Reassembly, InOrderFragmentsLandInPlace)
{
    Reassembly r(Layout(100));
    r.start(250);
    for (uint32_t i = 0; i < 3; ++i) {
        ASSERT_EQ(r.guess(), i);
        EXPECT_EQ(r.offer(fragment(0, i, 3, 250), i == 2 ? 50 : 100, i), Verdict::stored);
    }
    EXPECT_TRUE(r.complete());
}

TEST(Reassembly, OutOfOrderFragmentsAreMovedToTheirSlot)
{
    Layout layout(4);
    Reassembly r(layout);
    const size_t len = 10; // slots [0,4) [4,8) [8,10)
    std::vector<unsigned char> buf(len, 0), scratch(layout.chunk(), 0);
    std::vector<unsigned char> message(len);
    std::iota(message.begin(), message.end(), 1);
    r.start(len);
    // Fragment 2 (2 bytes) arrives first and lands in slot 0.
    size_t slot = r.guess();
    std::copy_n(&message[8], 2, &buf[layout.offset(slot)]);
    ASSERT_EQ(r.offer(fragment(0, 2, 3, len), 2, slot), Verdict::misplaced);
    move_fragment(buf.data(), len, layout, slot, 2, scratch.data(), 2);
    // Fragment 0 then lands where guessed.
    slot = r.guess();
    ASSERT_EQ(slot, 0u);
    std::copy_n(&message[0], 4, &buf[0]);
    ASSERT_EQ(r.offer(fragment(0, 0, 3, len), 4, slot), Verdict::stored);
    EXPECT_EQ(r.guess(), 1u);
    std::copy_n(&message[4], 4, &buf[4]);
    ASSERT_EQ(r.offer(fragment(0, 1, 3, len), 4, 1), Verdict::stored);
    EXPECT_TRUE(r.complete());
    EXPECT_EQ(buf, message);
}

TEST(Reassembly, GuessIsTheLowestMissingSlot)
{
    Reassembly r(Layout(4));
    r.start(14); // slots of 4, 4, 4, 2 bytes
    ASSERT_EQ(r.offer(fragment(0, 2, 4, 14), 4, 0), Verdict::misplaced);
    EXPECT_EQ(r.guess(), 0u);
    ASSERT_EQ(r.offer(fragment(0, 0, 4, 14), 4, 0), Verdict::stored);
    EXPECT_EQ(r.guess(), 1u);
    ASSERT_EQ(r.offer(fragment(0, 1, 4, 14), 4, 1), Verdict::stored);
    EXPECT_EQ(r.guess(), 3u);
}

// The short last slot is guessed only when every other slot is filled, so a
// full fragment lands there only when it belongs to a newer message, which
// restarts the reassembly: its overflow is in scratch and must be moved too.
TEST(Reassembly, FullFragmentGuessedIntoTheShortLastSlotSpillsIntoScratch)
{
    Layout layout(4);
    Reassembly r(layout);
    const size_t len = 10; // slots of 4, 4, 2 bytes
    std::vector<unsigned char> buf(len, 0), scratch(layout.chunk(), 0);
    r.start(len);
    ASSERT_EQ(r.offer(fragment(0, 0, 3, len), 4, 0), Verdict::stored);
    ASSERT_EQ(r.offer(fragment(0, 1, 3, len), 4, 1), Verdict::stored);
    ASSERT_EQ(r.guess(), 2u);
    // Fragment 1 of message 1 arrives: 2 bytes in slot 2, 2 in scratch.
    buf[8] = 1, buf[9] = 2, scratch[0] = 3, scratch[1] = 4;
    ASSERT_EQ(r.offer(fragment(1, 1, 3, len), 4, 2), Verdict::misplaced);
    move_fragment(buf.data(), len, layout, 2, 1, scratch.data(), 4);
    EXPECT_EQ(buf[4], 1);
    EXPECT_EQ(buf[5], 2);
    EXPECT_EQ(buf[6], 3);
    EXPECT_EQ(buf[7], 4);
    EXPECT_EQ(r.received(), 1u);
    EXPECT_EQ(r.guess(), 0u);
}

TEST(Reassembly, DuplicatesAreDropped)
{
    Reassembly r(Layout(100));
    r.start(150);
    EXPECT_EQ(r.offer(fragment(0, 0, 2, 150), 100, 0), Verdict::stored);
    EXPECT_EQ(r.offer(fragment(0, 0, 2, 150), 100, 1), Verdict::duplicate);
    EXPECT_EQ(r.received(), 1u);
    EXPECT_EQ(r.offer(fragment(0, 1, 2, 150), 50, 1), Verdict::stored);
    EXPECT_TRUE(r.complete());
}

TEST(Reassembly, OlderMessagesAreStale)
{
    Reassembly r(Layout(100));
    r.start(1);
    ASSERT_EQ(r.offer(fragment(0, 0, 1, 1), 1, 0), Verdict::stored);
    r.start(1);
    EXPECT_EQ(r.offer(fragment(0, 0, 1, 1), 1, 0), Verdict::stale); // a duplicate of a completed message
    EXPECT_EQ(r.offer(fragment(1, 0, 1, 1), 1, 0), Verdict::stored);
}

TEST(Reassembly, NewerMessageIsAcceptedWhenOlderOnesWereLost)
{
    Reassembly r(Layout(100));
    r.start(1);
    EXPECT_EQ(r.offer(fragment(7, 0, 1, 1), 1, 0), Verdict::stored);
    EXPECT_EQ(r.expected(), 8u);
}

TEST(Reassembly, NewerMessageAbandonsThePartialOne)
{
    Reassembly r(Layout(100));
    r.start(250);
    ASSERT_EQ(r.offer(fragment(3, 0, 3, 250), 100, 0), Verdict::stored);
    ASSERT_EQ(r.offer(fragment(4, 0, 3, 250), 100, 1), Verdict::misplaced);
    EXPECT_EQ(r.current(), 4u);
    EXPECT_EQ(r.received(), 1u);
    EXPECT_EQ(r.offer(fragment(3, 1, 3, 250), 100, r.guess()), Verdict::stale);
    EXPECT_EQ(r.guess(), 1u);
    EXPECT_EQ(r.offer(fragment(4, 1, 3, 250), 100, r.guess()), Verdict::stored);
    EXPECT_EQ(r.offer(fragment(4, 2, 3, 250), 50, r.guess()), Verdict::stored);
    EXPECT_TRUE(r.complete());
    EXPECT_EQ(r.expected(), 5u);
}

TEST(Reassembly, GivingUpMakesLateFragmentsStale)
{
    Reassembly r(Layout(100));
    r.start(250);
    ASSERT_EQ(r.offer(fragment(0, 0, 3, 250), 100, 0), Verdict::stored);
    r.give_up();
    EXPECT_EQ(r.expected(), 1u);
    r.start(250);
    EXPECT_EQ(r.offer(fragment(0, 1, 3, 250), 100, 0), Verdict::stale);
    EXPECT_EQ(r.offer(fragment(1, 0, 3, 250), 100, 0), Verdict::stored);
}

TEST(Reassembly, GivingUpWithNothingSeenKeepsExpectingTheSameMessage)
{
    Reassembly r(Layout(100));
    r.start(1);
    r.give_up();
    EXPECT_EQ(r.expected(), 0u);
    r.start(1);
    EXPECT_EQ(r.offer(fragment(0, 0, 1, 1), 1, 0), Verdict::stored);
}

TEST(Reassembly, AwaitedMessageOfAnotherLengthIsWrongSizeAndTheRestOfItIsStale)
{
    Reassembly r(Layout(100));
    r.start(150);
    EXPECT_EQ(r.offer(fragment(0, 0, 3, 250), 100, 0), Verdict::wrong_size);
    EXPECT_EQ(r.awaited(), 0u);
    r.start(150);
    EXPECT_EQ(r.offer(fragment(0, 1, 3, 250), 100, 0), Verdict::stale);
}

TEST(Reassembly, NewerMessageOfAnotherLengthMeansTheAwaitedOneWasLost)
{
    Reassembly r(Layout(100));
    r.start(150);
    EXPECT_EQ(r.offer(fragment(2, 0, 1, 7), 7, 0), Verdict::overtaken);
    EXPECT_EQ(r.awaited(), 0u);
    EXPECT_EQ(r.expected(), 3u);
    r.start(150);
    ASSERT_EQ(r.offer(fragment(3, 0, 2, 150), 100, 0), Verdict::stored);
    EXPECT_EQ(r.offer(fragment(4, 0, 1, 7), 7, 1), Verdict::overtaken);
    EXPECT_EQ(r.awaited(), 3u);
    EXPECT_EQ(r.offer(fragment(3, 1, 2, 150), 50, 1), Verdict::stale);
}

TEST(Reassembly, InconsistentFragmentsAreMalformed)
{
    Reassembly r(Layout(100));
    r.start(250);
    EXPECT_EQ(r.offer(fragment(0, 3, 3, 250), 100, 0), Verdict::malformed); // index out of range
    EXPECT_EQ(r.offer(fragment(0, 0, 4, 250), 100, 0), Verdict::malformed); // count disagrees
    EXPECT_EQ(r.offer(fragment(0, 0, 3, 250), 99, 0), Verdict::malformed);  // short fragment
    EXPECT_EQ(r.offer(fragment(0, 2, 3, 250), 51, 0), Verdict::malformed);  // long last fragment
}

TEST(Reassembly, SequenceNumbersWrap)
{
    Reassembly r(Layout(100));
    r.start(1);
    ASSERT_EQ(r.offer(fragment(0x7fffffff, 0, 1, 1), 1, 0), Verdict::stored); // half the space ahead
    r.start(1);
    ASSERT_EQ(r.offer(fragment(UINT32_MAX, 0, 1, 1), 1, 0), Verdict::stored);
    EXPECT_EQ(r.expected(), 0u);
    r.start(1);
    EXPECT_EQ(r.offer(fragment(UINT32_MAX, 0, 1, 1), 1, 0), Verdict::stale);
    EXPECT_EQ(r.offer(fragment(0, 0, 1, 1), 1, 0), Verdict::stored);
}

TEST(Reassembly, ManyFragmentsInReverseOrder)
{
    Layout layout(3);
    Reassembly r(layout);
    const size_t len = 3 * 200 + 1;
    std::vector<unsigned char> message(len), buf(len, 0), scratch(layout.chunk(), 0);
    for (size_t i = 0; i < len; ++i)
        message[i] = static_cast<unsigned char>(i * 13 + 1);
    r.start(len);
    size_t count = layout.count(len);
    for (size_t k = count; k-- > 0;) {
        size_t slot = r.guess();
        size_t bytes = layout.length(len, k);
        size_t in_slot = std::min(bytes, layout.length(len, slot));
        std::copy_n(&message[layout.offset(k)], in_slot, &buf[layout.offset(slot)]);
        std::copy_n(&message[layout.offset(k) + in_slot], bytes - in_slot, scratch.begin());
        Verdict v = r.offer(Header{9, uint32_t(k), uint32_t(count), uint32_t(len)}, bytes, slot);
        ASSERT_TRUE(v == Verdict::stored || v == Verdict::misplaced);
        if (v == Verdict::misplaced)
            move_fragment(buf.data(), len, layout, slot, k, scratch.data(), bytes);
    }
    EXPECT_TRUE(r.complete());
    EXPECT_EQ(buf, message);
}

} // namespace
} // namespace ngx::udp
