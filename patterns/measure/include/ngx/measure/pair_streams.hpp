// Timed streams between the ranks of a layout round, for the patterns that
// map a cluster (allpairs, ebb, congestion): the round's transfers split into
// phases of disjoint pairs, the windowed stream that gives a pair's
// bandwidth with its latency cancelled, and the cells of a round collected
// on rank 0.
//
// A stream is `messages` messages of spec.bytes answered by one 1-byte
// acknowledgement; it is timed spec.streams times after one warm-up, and
// its time is the median. The bandwidth of a pair is
//     (W - 1) s / (t_W - t_1),
// W = spec.window: the difference cancels the latency and the
// acknowledgement and leaves the gap per message, g + (s-1) G in LogGP terms
// (G_all, Hoefler et al. 2007, eq. (2)).
//
//     for (const std::vector<Transfer>& phase : phases_of(round)) { ... }
//     NGX_TRY(stream_window(ctx.transport, buffer.data(), bytes, window, 0, i_am_sender));   // one stream (bw)
//     Result<double> bw = stream_bandwidth(ctx, buffer, spec, i_am_sender);   // MB/s, NaN: not measurable
//     NGX_TRY(gather_cells(ctx.bootstrap, my_cells, by_rank));                 // on rank 0: every rank's cells
#ifndef NGX_MEASURE_PAIR_STREAMS_HPP
#define NGX_MEASURE_PAIR_STREAMS_HPP

#include <ngx/pattern.hpp>
#include <ngx/rank_layout.hpp>

#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

namespace ngx::patterns {

// A cell not measured (a rank died, a non-positive difference): written as null, never zero.
inline constexpr double missing_value = std::numeric_limits<double>::quiet_NaN();
inline constexpr size_t stream_ack_bytes = 1;

struct StreamSpec {
    uint64_t bytes = 65536; // s
    uint64_t window = 16;   // W >= 2
    uint64_t streams = 5;   // timed streams (median), after one warm-up
};

// The transfers of a round split into phases in which no rank appears twice
// (greedily, in the round's order: the same phases on every rank).
std::vector<std::vector<Transfer>> phases_of(const Round& round);

// One stream, untimed: `messages` messages of `bytes` sent (sender) or
// received, the n-th at data + n * slot (slot 0: all at data), then the
// acknowledgement of stream_ack_bytes the other way, at data. Nothing but
// the module's calls: the caller reads the timer around it.
Status stream_window(Transport& transport, uint8_t* data, uint64_t bytes, uint64_t messages, size_t slot, bool sender);

// The median time (us) of a stream of `messages` to (sender) or from the
// selected peer; the buffer holds at least spec.bytes.
Result<double> stream_time(PatternContext& ctx, Buffer& buffer, const StreamSpec& spec, uint64_t messages, bool sender);

// (W - 1) s / (t_W - t_1) in MB/s (bytes per us); NaN when the difference is not positive.
double window_bandwidth(const StreamSpec& spec, double t_one_us, double t_window_us);

// Both streams of a pair, then window_bandwidth().
Result<double> stream_bandwidth(PatternContext& ctx, Buffer& buffer, const StreamSpec& spec, bool sender);

// Messages one stream_bandwidth() moves, for the sink's count.
uint64_t stream_messages(const StreamSpec& spec);

// Collective: every rank's cells (a trivially copyable record) reach rank 0,
// by rank; other ranks get `by_rank` empty.
template <class Cell>
Status gather_cells(Bootstrap& boot, const std::vector<Cell>& mine, std::vector<std::vector<Cell>>& by_rank)
{
    static_assert(std::is_trivially_copyable_v<Cell>);
    Bytes bytes(mine.size() * sizeof(Cell));
    if (!mine.empty())
        std::memcpy(bytes.data(), mine.data(), bytes.size());
    std::vector<Bytes> all;
    NGX_TRY(boot.gather(bytes, all, "collecting a round's cells"));
    by_rank.assign(all.size(), {});
    for (size_t rank = 0; rank < all.size(); ++rank)
        for (size_t at = 0; at + sizeof(Cell) <= all[rank].size(); at += sizeof(Cell)) {
            Cell cell;
            std::memcpy(&cell, all[rank].data() + at, sizeof cell);
            by_rank[rank].push_back(cell);
        }
    return Status::ok();
}

} // namespace ngx::patterns

#endif
