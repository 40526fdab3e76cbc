// Fragmentation and reassembly for the udp module, free of any I/O so that it
// can be unit-tested on its own (tests/unit/modules/udp/fragment_test.cpp).
//
// A message of `len` bytes travels as `count` datagrams. Each datagram is a
// 16-byte header followed by one fragment: fragment i holds bytes
// [i * chunk, min(len, (i + 1) * chunk)) of the message, where `chunk` is the
// payload per datagram both peers agreed on. A 0-byte message is one datagram
// that holds only the header.
//
//     header (network byte order): seq | index | count | total   (4 x uint32)
//
// `seq` numbers the messages of one direction: 0, 1, 2, ... (wrapping).
// The receiver keeps `expected`, the oldest sequence number it still accepts:
// one past the newest message it completed or gave up on. Datagrams older
// than that, or older than the message being assembled, are stale and
// dropped; fragments it already holds are duplicates and dropped; a datagram
// of a newer message abandons the one being assembled (its sender has moved
// on, so the rest of it will never come) and is taken instead when it has the
// length the receiver wants, or ends the receive as a loss ("overtaken") when
// it has not.
//
// Reassembly is in place: the receiver reads each datagram straight into the
// slot of the user buffer where it expects the next fragment (`guess()`, the
// lowest slot not yet filled), and moves it to its own slot only when it
// arrived out of order. A stray datagram that lands in the guessed slot thus
// destroys nothing. Only the last slot can be shorter than a chunk; when it is
// the guess, the overflow of a full-sized datagram (a stray, or a fragment of
// a newer message) lands in a scratch area of one chunk.
//
//     Reassembly r(layout);
//     r.start(len);
//     while (!r.complete()) {
//         size_t slot = r.guess();
//         ... receive into buf + layout.offset(slot) (+ scratch), decode hdr ...
//         switch (r.offer(hdr, payload_bytes, slot)) { ... }
//     }
#ifndef NGX_UDP_FRAGMENT_HPP
#define NGX_UDP_FRAGMENT_HPP

#include <arpa/inet.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace ngx::udp {

// ---- wire header ---------------------------------------------------------

struct Header {
    uint32_t seq = 0;   // message number in this direction
    uint32_t index = 0; // fragment number within the message
    uint32_t count = 0; // fragments of the message
    uint32_t total = 0; // message length in bytes
};

inline constexpr size_t header_size = 16;
inline constexpr uint64_t max_message = UINT32_MAX;

inline void encode(const Header& h, unsigned char* out)
{
    const uint32_t words[4] = {htonl(h.seq), htonl(h.index), htonl(h.count), htonl(h.total)};
    std::memcpy(out, words, header_size);
}

inline Header decode(const unsigned char* in)
{
    uint32_t words[4];
    std::memcpy(words, in, header_size);
    return Header{ntohl(words[0]), ntohl(words[1]), ntohl(words[2]), ntohl(words[3])};
}

// True when sequence number `a` is `b` or comes after it (serial-number
// arithmetic: correct across the 2^32 wrap as long as the two are less than
// 2^31 messages apart).
inline bool seq_at_or_after(uint32_t a, uint32_t b)
{
    return int32_t(a - b) >= 0;
}

// ---- layout: where fragment i of a message of len bytes lives -------------

class Layout {
public:
    explicit Layout(size_t chunk = 1) : chunk_(chunk > 0 ? chunk : 1) {}

    size_t chunk() const { return chunk_; }
    // Fragments of a message of len bytes; a 0-byte message still takes one.
    size_t count(size_t len) const { return len == 0 ? 1 : (len + chunk_ - 1) / chunk_; }
    size_t offset(size_t index) const { return index * chunk_; }
    // Bytes of fragment `index`: a full chunk except for the last one.
    size_t length(size_t len, size_t index) const
    {
        size_t begin = offset(index);
        return begin >= len ? 0 : std::min(chunk_, len - begin);
    }

private:
    size_t chunk_;
};

// Moves a fragment that landed in slot `landed` (its first bytes there, the
// rest in `scratch`) to its own slot `index` of the same message buffer.
// The two slots differ and slots never overlap, so memcpy is safe.
inline void move_fragment(unsigned char* buf, size_t len, const Layout& layout, size_t landed, size_t index,
                          const unsigned char* scratch, size_t payload_bytes)
{
    size_t in_slot = std::min(payload_bytes, layout.length(len, landed));
    unsigned char* to = buf + layout.offset(index);
    std::memcpy(to, buf + layout.offset(landed), in_slot);
    if (payload_bytes > in_slot)
        std::memcpy(to + in_slot, scratch, payload_bytes - in_slot);
}

// ---- reassembly of one message into one buffer ----------------------------

enum class Verdict {
    stored,     // a new fragment of the message, in its slot
    misplaced,  // a new fragment that landed in another slot: move_fragment() it, then it is stored
    stale,      // an older message: dropped
    duplicate,  // a fragment already held: dropped
    overtaken,  // a newer message of another length: the awaited one was lost (see awaited())
    wrong_size, // the awaited message itself has another length than the receive
    malformed,  // index/count/payload inconsistent with the agreed layout
};

class Reassembly {
public:
    explicit Reassembly(const Layout& layout) : layout_(layout) {}

    // Begins receiving one message of len bytes (any partial one is dropped).
    void start(size_t len)
    {
        len_ = len;
        count_ = layout_.count(len);
        size_t words = (count_ + 63) / 64;
        if (bits_.size() < words)
            bits_.resize(words); // grows only past the largest message seen so far
        std::fill_n(bits_.begin(), words, uint64_t{0});
        got_ = 0;
        guess_ = 0;
        assembling_ = false;
    }

    // The slot to receive the next datagram into: one not yet filled.
    size_t guess() const { return guess_; }
    size_t count() const { return count_; }
    size_t received() const { return got_; }
    bool complete() const { return got_ == count_; }
    bool assembling() const { return assembling_; }
    uint32_t current() const { return current_; }
    uint32_t expected() const { return expected_; }
    // After wrong_size or overtaken: the message the receive was waiting for.
    uint32_t awaited() const { return awaited_; }

    // Judges a datagram whose header is h, with payload_bytes after the
    // header, received into slot `landed` (which must be guess()).
    Verdict offer(const Header& h, size_t payload_bytes, size_t landed)
    {
        if (!seq_at_or_after(h.seq, expected_) || (assembling_ && !seq_at_or_after(h.seq, current_)))
            return Verdict::stale;
        if (h.total != len_) {
            awaited_ = assembling_ ? current_ : expected_;
            expected_ = h.seq + 1; // its other fragments are stale from now on
            assembling_ = false;
            return h.seq == awaited_ ? Verdict::wrong_size : Verdict::overtaken;
        }
        if (assembling_ && h.seq != current_)
            restart();
        if (h.count != count_ || h.index >= count_ || payload_bytes != layout_.length(len_, h.index))
            return Verdict::malformed;
        assembling_ = true;
        current_ = h.seq;
        if (has(h.index))
            return Verdict::duplicate;
        mark(h.index);
        if (got_ == count_)
            expected_ = current_ + 1;
        return h.index == landed ? Verdict::stored : Verdict::misplaced;
    }

    // After a resync: the peer's next message is `next`; everything older
    // (still in flight, or late fragments) is stale from now on.
    void resync(uint32_t next)
    {
        expected_ = next;
        assembling_ = false;
    }

    // The receive deadline passed: the message being assembled is lost, and
    // its late fragments must count as stale.
    void give_up()
    {
        if (assembling_)
            expected_ = current_ + 1;
        assembling_ = false;
    }

private:
    bool has(size_t i) const { return (bits_[i / 64] >> (i % 64)) & 1u; }

    void mark(size_t i)
    {
        bits_[i / 64] |= uint64_t{1} << (i % 64);
        ++got_;
        if (i == guess_)
            guess_ = next_missing(i + 1);
    }

    // The first unfilled slot at or after `from` (count_ when none). Called
    // when the guess was filled: every slot below it is filled too, so this
    // is the lowest unfilled slot.
    size_t next_missing(size_t from) const
    {
        size_t i = from;
        while (i < count_ && has(i))
            ++i;
        return i;
    }

    void restart()
    {
        std::fill_n(bits_.begin(), (count_ + 63) / 64, uint64_t{0});
        got_ = 0;
        guess_ = 0;
    }

    Layout layout_;
    std::vector<uint64_t> bits_;
    size_t len_ = 0;
    size_t count_ = 1;
    size_t got_ = 0;
    size_t guess_ = 0;
    uint32_t expected_ = 0;
    uint32_t current_ = 0;
    uint32_t awaited_ = 0;
    bool assembling_ = false;
};

} // namespace ngx::udp

#endif
