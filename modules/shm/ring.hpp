// A single-producer single-consumer message ring in shared memory, the
// channel under the `shm` and `sim` modules. Header-only; namespace ngx::shm.
//
// Layout of one ring (ring_region_bytes() in total, page aligned):
//
//     page 0   RingControl: `consumed` alone on its cache line
//     page 1+  ring_bytes of 64-byte cells
//
// A message travels as one or more records. A record starts at a cell
// boundary with an 8-byte header word followed by its payload, and fills
// ceil((8 + payload) / 64) consecutive cells, so a message of up to 56 bytes
// shares a single cache line with its header: the reader, spinning on that
// word, gets header and payload in one cache-line transfer. Messages larger
// than a record's limit (a quarter of the ring) or than the space left before
// the ring's end are split, and the reader drains while the writer produces.
//
// The header word is written last with release semantics and holds a tag
// derived from the record's absolute cell position, the payload length and an
// end-of-message bit. Before publishing a record the writer zeroes the header
// slot that follows it whenever that cell is free, so the reader never mistakes
// stale payload for a header. The reader publishes `consumed` (in cells) after
// each record; the writer re-reads it only when its cached copy says the ring
// is full. There is no shared `head` counter: the header words are the head,
// so a small message costs one line from writer to reader and nothing back.
//
//     ngx::shm::RingWriter out(region_a, ring_bytes);
//     ngx::shm::SpinWait wait(timeout_ns, cancel, &peer, ngx::shm::Waiting::for_space);
//     ngx_status s = out.write(nullptr, 0, buf, len, wait, err);
#ifndef NGX_SHM_RING_HPP
#define NGX_SHM_RING_HPP

#include <ngx/module.h>
#include <ngx/module_support.hpp>

#include <poll.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ngx::shm {

inline constexpr size_t cache_line = 64;
inline constexpr size_t cell_bytes = cache_line;
inline constexpr size_t record_header_bytes = sizeof(uint64_t);
inline constexpr size_t inline_payload_bytes = cell_bytes - record_header_bytes;
inline constexpr size_t page_bytes = 4096;
inline constexpr size_t min_ring_bytes = 4096;
inline constexpr size_t max_ring_bytes = size_t(1) << 30;

inline bool valid_ring_bytes(uint64_t bytes)
{
    return bytes >= min_ring_bytes && bytes <= max_ring_bytes && (bytes & (bytes - 1)) == 0;
}

// Reads a ring size option (absent: its default): a power of two in
// [min_ring_bytes, max_ring_bytes], or 0 when `zero_allowed` (the caller then
// picks a size); a bad value is kept in `read`. Shared by shm and sim.
inline size_t read_ring_bytes(ngx::mod::ModuleOptions& read, const ngx::opt::Option<uint64_t>& option,
                              bool zero_allowed)
{
    uint64_t value = read(option);
    if (read.ok() && !((zero_allowed && value == 0) || valid_ring_bytes(value)))
        read.reject(option, std::string("expected ") + (zero_allowed ? "0 or " : "") + "a power of two in " +
                                std::to_string(min_ring_bytes) + ".." + std::to_string(max_ring_bytes));
    return size_t(value);
}

// Shared control block of one ring.
struct RingControl {
    alignas(cache_line) uint64_t consumed; // cells released by the reader
    char padding[cache_line - sizeof(uint64_t)];
};
static_assert(sizeof(RingControl) == cache_line);

inline constexpr size_t ring_region_bytes(size_t ring_bytes)
{
    return page_bytes + ring_bytes;
}

inline void cpu_relax()
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield" ::: "memory");
#endif
}

inline uint64_t load_acquire(const uint64_t* word)
{
    return std::atomic_ref<uint64_t>(*const_cast<uint64_t*>(word)).load(std::memory_order_acquire);
}
inline void store_release(uint64_t* word, uint64_t value)
{
    std::atomic_ref<uint64_t>(*word).store(value, std::memory_order_release);
}
inline void store_relaxed(uint64_t* word, uint64_t value)
{
    std::atomic_ref<uint64_t>(*word).store(value, std::memory_order_relaxed);
}

// ---- record header word -----------------------------------------------------

inline constexpr uint64_t end_of_message_bit = uint64_t(1) << 31;
inline constexpr uint64_t length_mask = end_of_message_bit - 1;

// Never zero, and different for any two positions less than 2^31 cells apart.
inline uint64_t position_tag(uint64_t position)
{
    return (position & 0x7fffffffu) | 0x80000000u;
}

inline uint64_t make_header(uint64_t position, size_t length, bool last)
{
    return (position_tag(position) << 32) | (last ? end_of_message_bit : 0) | uint64_t(length);
}

inline uint64_t cells_for(size_t payload)
{
    return (payload + record_header_bytes + cell_bytes - 1) / cell_bytes;
}

// ---- waiting ------------------------------------------------------------------

// Tells whether the peer process is gone, through a pidfd (a zombie counts as
// gone). Without a pidfd it knows nothing and only the deadline catches a
// dead peer.
class PeerWatch {
public:
    PeerWatch() = default;
    PeerWatch(const PeerWatch&) = delete;
    PeerWatch& operator=(const PeerWatch&) = delete;
    ~PeerWatch() { close_fd(); }

    void watch(pid_t pid)
    {
        close_fd();
        pid_ = pid;
#ifdef SYS_pidfd_open
        pidfd_ = int(syscall(SYS_pidfd_open, pid, 0));
#endif
    }
    bool gone() const
    {
        if (pidfd_ < 0)
            return false;
        pollfd p{pidfd_, POLLIN, 0};
        return poll(&p, 1, 0) > 0;
    }
    pid_t pid() const
    {
        return pid_;
    }

private:
    void close_fd()
    {
        if (pidfd_ >= 0)
            ::close(pidfd_);
        pidfd_ = -1;
    }
    int pidfd_ = -1;
    pid_t pid_ = 0;
};

enum class Waiting { for_message, for_space };

// What a spin loop does after each poll that found nothing. The first
// `fast_spins` polls cost nothing but the poll and a pause instruction: no
// clock read, no look at the cancel flag or the peer, since a ping-pong's
// message arrives within a few hundred of them and anything read there
// delays noticing it. The pause stays: on this AMD EPYC guest a
// spin with it sees the peer's line 5-10 ns sooner than a bare one (shm
// 1-byte half round trip 0.265-0.270 against 0.280 us, bench/ladder), as
// the minimal program's own -p shows. This bound is counted, not timed: a
// few microseconds. After it, the slow path: a deadline started at its
// first call (so it ends those microseconds late), the clock read every
// `clock_check_mask + 1` spins, the cancel flag, a look at the peer process
// every few thousand spins, and sched_yield() once the wait has lasted a
// few thousand more spins, so that a peer sharing this CPU (an
// oversubscribed node) gets to run instead of waiting for our time slice to
// end.
class SpinWait {
public:
    SpinWait(uint64_t timeout_ns, const volatile int* cancel, const PeerWatch* peer, Waiting what)
            : timeout_ns_(timeout_ns), cancel_(cancel), peer_(peer), what_(what)
    {
    }

    // Called after each poll that found nothing; NGX_OK means "poll again".
    ngx_status idle(ngx_error* err)
    {
        if (++spins_ <= fast_spins) [[likely]] {
            cpu_relax();
            return NGX_OK;
        }
        return slow_idle(err);
    }

private:
    static constexpr uint64_t fast_spins = uint64_t(1) << 12;
    static constexpr uint64_t clock_check_mask = (uint64_t(1) << 10) - 1;
    static constexpr uint64_t peer_check_mask = (uint64_t(1) << 14) - 1;
    static constexpr uint64_t yield_after_spins = fast_spins + (uint64_t(1) << 12);

    [[gnu::noinline]] ngx_status slow_idle(ngx_error* err)
    {
        cpu_relax();
        if (spins_ == fast_spins + 1)
            start_ns_ = ngx::mod::monotonic_ns();
        if (ngx::mod::cancelled(cancel_))
            return ngx::mod::fail(err, NGX_ERR_INTERRUPTED, "%s: interrupted", step());
        if ((spins_ & peer_check_mask) == 0 && peer_ != nullptr && peer_->gone())
            return peer_exited(err);
        if ((spins_ & clock_check_mask) == 0 && ngx::mod::monotonic_ns() - start_ns_ >= timeout_ns_)
            return expired(err);
        if (spins_ >= yield_after_spins)
            sched_yield();
        return NGX_OK;
    }

    const char* step() const { return what_ == Waiting::for_message ? "recv" : "send"; }
    double seconds() const { return double(timeout_ns_) / 1e9; }

    ngx_status peer_exited(ngx_error* err) const
    {
        return ngx::mod::fail(err, NGX_ERR_PEER_LOST, "%s: the peer process (pid %d) has exited", step(),
                              int(peer_->pid()));
    }

    ngx_status expired(ngx_error* err) const
    {
        if (peer_ != nullptr && peer_->gone())
            return peer_exited(err);
        if (what_ == Waiting::for_message)
            return ngx::mod::fail(err, NGX_ERR_TIMEOUT, "recv: no message from the peer within %.1f s (is it alive?)",
                                  seconds());
        return ngx::mod::fail(err, NGX_ERR_TIMEOUT,
                              "send: the peer did not drain the ring within %.1f s (is it alive?)", seconds());
    }

    uint64_t timeout_ns_;
    const volatile int* cancel_;
    const PeerWatch* peer_;
    Waiting what_;
    uint64_t start_ns_ = 0;
    uint64_t spins_ = 0;
};

// ---- gather / scatter of a (prefix, payload) pair -----------------------------

// Walks the bytes of two consecutive buffers; `sim` sends a timing prefix in
// front of the payload, `shm` only a payload.
template <typename Byte>
class TwoPartCursor {
public:
    TwoPartCursor(Byte* first, size_t first_len, Byte* second, size_t second_len)
            : parts_{first, second}, lens_{first_len, second_len}
    {
    }

    size_t remaining() const { return lens_[0] + lens_[1]; }

    // Calls copy(part_pointer, offset_in_run, n) for the next `n` bytes.
    template <typename Copy>
    void take(size_t n, Copy copy)
    {
        size_t done = 0;
        for (int i = 0; i < 2 && n > done; ++i) {
            size_t step = std::min(n - done, lens_[i]);
            if (step == 0)
                continue;
            copy(parts_[i], done, step);
            parts_[i] += step;
            lens_[i] -= step;
            done += step;
        }
    }

private:
    Byte* parts_[2];
    size_t lens_[2];
};

// ---- writer and reader --------------------------------------------------------

class RingBase {
protected:
    RingBase() = default;
    RingBase(void* region, size_t ring_bytes)
            : control_(static_cast<RingControl*>(region)), cells_(static_cast<unsigned char*>(region) + page_bytes),
              cell_count_(ring_bytes / cell_bytes),
              max_record_cells_(std::max<uint64_t>(ring_bytes / cell_bytes / 4, 1))
    {
    }

    uint64_t* header_at(uint64_t position) const
    {
        return reinterpret_cast<uint64_t*>(cells_ + (position & (cell_count_ - 1)) * cell_bytes);
    }

    RingControl* control_ = nullptr;
    unsigned char* cells_ = nullptr;
    uint64_t cell_count_ = 0;
    uint64_t max_record_cells_ = 0;
    uint64_t position_ = 0; // next cell to write or read, counted from the start
};

class RingWriter : RingBase {
public:
    RingWriter() = default;
    // The region is fresh (zero-filled) shared memory: every header is zero.
    RingWriter(void* region, size_t ring_bytes) : RingBase(region, ring_bytes), zeroed_until_(cell_count_) {}

    // Writes one message made of `prefix` followed by `payload`. Spins (with
    // `wait`, a SpinWait or anything with its idle()) while the ring is full.
    template <typename Wait>
    ngx_status write(const void* prefix, size_t prefix_len, const void* payload, size_t payload_len, Wait& wait,
                     ngx_error* err)
    {
        if (prefix_len == 0 && payload_len <= inline_payload_bytes) [[likely]]
            return write_inline(payload, payload_len, wait, err);
        TwoPartCursor<const unsigned char> source(static_cast<const unsigned char*>(prefix), prefix_len,
                                                  static_cast<const unsigned char*>(payload), payload_len);
        do {
            uint64_t cells = next_record_cells(source.remaining());
            if (ngx_status s = reserve(cells, wait, err); s != NGX_OK)
                return s;
            size_t bytes = std::min<size_t>(source.remaining(), cells * cell_bytes - record_header_bytes);
            unsigned char* body = reinterpret_cast<unsigned char*>(header_at(position_)) + record_header_bytes;
            source.take(bytes,
                        [body](const unsigned char* from, size_t at, size_t n) { std::memcpy(body + at, from, n); });
            publish(cells, bytes, source.remaining() == 0);
        } while (source.remaining() > 0);
        return NGX_OK;
    }

private:
    // A message that fits one cell with its header (the ping-pong's): one
    // record, no cursor, nothing computed that is known (measured: the
    // general path cost 140 instructions for a 1-byte message, this 40).
    template <typename Wait>
    ngx_status write_inline(const void* payload, size_t len, Wait& wait, ngx_error* err)
    {
        if (ngx_status s = reserve(1, wait, err); s != NGX_OK)
            return s;
        std::memcpy(reinterpret_cast<unsigned char*>(header_at(position_)) + record_header_bytes, payload, len);
        publish(1, len, true);
        return NGX_OK;
    }

    // As many cells as the rest of the message needs, within the record limit
    // and the space before the ring's end.
    uint64_t next_record_cells(size_t remaining) const
    {
        uint64_t to_end = cell_count_ - (position_ & (cell_count_ - 1));
        return std::min({cells_for(remaining), max_record_cells_, to_end});
    }

    bool fits(uint64_t cells) const { return position_ + cells <= consumed_seen_ + cell_count_; }

    template <typename Wait>
    ngx_status reserve(uint64_t cells, Wait& wait, ngx_error* err)
    {
        while (!fits(cells)) {
            consumed_seen_ = load_acquire(&control_->consumed);
            if (fits(cells))
                break;
            if (ngx_status s = wait.idle(err); s != NGX_OK)
                return s;
        }
        return NGX_OK;
    }

    // The header after the record must read zero before the record is
    // published, or the reader could take stale payload there for a header.
    // Normally zero_ahead() cleared it long ago; if it fell behind (a nearly
    // full ring), it is cleared here, ordered before the release below.
    void publish(uint64_t cells, size_t bytes, bool last)
    {
        uint64_t next = position_ + cells;
        if (next >= zeroed_until_ && next < consumed_seen_ + cell_count_) {
            store_relaxed(header_at(next), 0);
            zeroed_until_ = next + 1;
        }
        store_release(header_at(position_), make_header(position_, bytes, last));
        position_ = next;
        zero_ahead();
    }

    // Clears free header cells ahead in batches right after a publish: those
    // stores (each may have to take a line back from the reader's cache) are
    // finished long before the next publish, which x86 orders after them, so
    // a small message costs one cache-line transfer, not two.
    void zero_ahead()
    {
        constexpr uint64_t batch_cells = 32;
        if (zeroed_until_ > position_ + batch_cells / 2)
            return;
        uint64_t end = std::min(std::max(zeroed_until_, position_) + batch_cells, consumed_seen_ + cell_count_);
        for (uint64_t cell = std::max(zeroed_until_, position_ + 1); cell < end; ++cell)
            store_relaxed(header_at(cell), 0);
        zeroed_until_ = std::max(zeroed_until_, end);
    }

    uint64_t consumed_seen_ = 0;
    uint64_t zeroed_until_ = 0; // every header cell in [position_ + 1, zeroed_until_) reads zero
};

class RingReader : RingBase {
public:
    RingReader() = default;
    RingReader(void* region, size_t ring_bytes) : RingBase(region, ring_bytes) {}

    // Copies the first `len` bytes of the next message into `out` without
    // consuming anything; false if no message is there yet or its first
    // record is shorter than `len` (len <= 56 always fits the first record).
    bool peek(void* out, size_t len) const
    {
        uint64_t header = load_acquire(header_at(position_));
        if ((header >> 32) != position_tag(position_) || (header & length_mask) < len)
            return false;
        std::memcpy(out, reinterpret_cast<const unsigned char*>(header_at(position_)) + record_header_bytes, len);
        return true;
    }

    // Reads one message into `prefix` then `payload`; its length must be
    // exactly prefix_len + payload_len. Spins (with `wait`) until it arrives.
    template <typename Wait>
    ngx_status read(void* prefix, size_t prefix_len, void* payload, size_t payload_len, Wait& wait, ngx_error* err)
    {
        if (prefix_len == 0 && payload_len <= inline_payload_bytes) [[likely]]
            return read_inline(payload, payload_len, wait, err);
        TwoPartCursor<unsigned char> target(static_cast<unsigned char*>(prefix), prefix_len,
                                            static_cast<unsigned char*>(payload), payload_len);
        for (;;) {
            uint64_t header = 0;
            if (ngx_status s = await_record(&header, wait, err); s != NGX_OK)
                return s;
            size_t bytes = size_t(header & length_mask);
            bool last = (header & end_of_message_bit) != 0;
            if (bytes > target.remaining() || (last && bytes != target.remaining()))
                return size_mismatch(bytes, target.remaining(), last, err);
            const unsigned char* body =
                reinterpret_cast<const unsigned char*>(header_at(position_)) + record_header_bytes;
            target.take(bytes, [body](unsigned char* to, size_t at, size_t n) { std::memcpy(to, body + at, n); });
            release(cells_for(bytes));
            if (last)
                return NGX_OK;
        }
    }

private:
    // The counterpart of RingWriter::write_inline(): a message that must be
    // one record of one cell.
    template <typename Wait>
    ngx_status read_inline(void* payload, size_t len, Wait& wait, ngx_error* err)
    {
        uint64_t header = 0;
        if (ngx_status s = await_record(&header, wait, err); s != NGX_OK)
            return s;
        size_t bytes = size_t(header & length_mask);
        bool last = (header & end_of_message_bit) != 0;
        if (!last || bytes != len) [[unlikely]]
            return size_mismatch(bytes, len, last, err);
        std::memcpy(payload, reinterpret_cast<const unsigned char*>(header_at(position_)) + record_header_bytes, len);
        release(1);
        return NGX_OK;
    }

    template <typename Wait>
    ngx_status await_record(uint64_t* header, Wait& wait, ngx_error* err) const
    {
        const uint64_t expected = position_tag(position_);
        for (;;) {
            *header = load_acquire(header_at(position_));
            if ((*header >> 32) == expected)
                return NGX_OK;
            if (ngx_status s = wait.idle(err); s != NGX_OK)
                return s;
        }
    }

    void release(uint64_t cells)
    {
        position_ += cells;
        store_release(&control_->consumed, position_);
    }

    static ngx_status size_mismatch(size_t record, size_t expected_rest, bool last, ngx_error* err)
    {
        if (last && record < expected_rest)
            return ngx::mod::fail(err, NGX_ERR_PROTOCOL,
                                  "recv: the peer's message is %zu bytes shorter than this recv expects",
                                  expected_rest - record);
        return ngx::mod::fail(err, NGX_ERR_PROTOCOL, "recv: the peer's message is longer than this recv expects");
    }
};

} // namespace ngx::shm

#endif
