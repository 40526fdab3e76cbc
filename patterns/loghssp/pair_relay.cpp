// A two-rank bootstrap over relay steps of the whole run (see pair_relay.hpp).
#include "pair_relay.hpp"

#include <algorithm>
#include <cstring>

namespace ngx::patterns {
namespace {

// What a rank says in a relay step.
enum class State : uint8_t { measuring = 0, finished = 1, failed = 2, idle = 3 };

struct Frame {
    State state = State::idle;
    Bytes blob; // measuring: the step's data; failed: the error message
};

Bytes encode(const Frame& frame)
{
    Bytes out;
    out.reserve(1 + frame.blob.size());
    out.push_back(uint8_t(frame.state));
    out.insert(out.end(), frame.blob.begin(), frame.blob.end());
    return out;
}

void put_length(Bytes& out, uint64_t length)
{
    uint8_t raw[8];
    std::memcpy(raw, &length, sizeof raw);
    out.insert(out.end(), raw, raw + sizeof raw);
}

// Every rank's frame reaches every rank: a gather to rank 0, then a broadcast of all of them.
Result<std::vector<Frame>> relay_step(Bootstrap& all, const Frame& mine)
{
    std::vector<Bytes> gathered;
    NGX_TRY(all.gather(encode(mine), gathered, "relay step"));
    Bytes joined;
    if (all.rank() == 0)
        for (const Bytes& frame : gathered) {
            put_length(joined, frame.size());
            joined.insert(joined.end(), frame.begin(), frame.end());
        }
    NGX_TRY(all.broadcast(joined, "relay step"));
    std::vector<Frame> frames;
    size_t at = 0;
    while (joined.size() - at >= 8) {
        uint64_t length = 0;
        std::memcpy(&length, joined.data() + at, 8);
        at += 8;
        if (length < 1 || joined.size() - at < length)
            return Status::runtime("relay step: the frames arrived garbled");
        Frame frame;
        frame.state = State(std::min<uint8_t>(joined[at], uint8_t(State::idle)));
        frame.blob.assign(joined.begin() + long(at + 1), joined.begin() + long(at + length));
        frames.push_back(std::move(frame));
        at += length;
    }
    if (frames.size() != size_t(all.nranks()) || at != joined.size())
        return Status::runtime("relay step: " + std::to_string(frames.size()) + " frames for a run of " +
                               std::to_string(all.nranks()) + " ranks");
    return frames;
}

bool ended(const Frame& frame)
{
    return frame.state != State::measuring;
}

// The first failure among `ranks`, named; ok when none failed.
Status first_failure(const std::vector<Frame>& frames, std::initializer_list<int> ranks)
{
    for (int rank : ranks)
        if (frames[size_t(rank)].state == State::failed)
            return Status::runtime("rank " + std::to_string(rank) + " failed: " + to_string(frames[size_t(rank)].blob));
    return Status::ok();
}

} // namespace

PairRelay::PairRelay(Bootstrap& all, int driver, int responder) : all_(all), driver_(driver), responder_(responder) {}

Result<Bytes> PairRelay::step(const Bytes& mine)
{
    ++steps_;
    NGX_ASSIGN_OR_RETURN(std::vector<Frame> frames, relay_step(all_, Frame{State::measuring, mine}));
    const int partner = is_driver() ? responder_ : driver_;
    const Frame& theirs = frames[size_t(partner)];
    if (theirs.state != State::measuring)
        return Status::runtime("rank " + std::to_string(partner) + " ended the pair's measurement at step " +
                               std::to_string(steps_) +
                               (theirs.state == State::failed ? ": " + to_string(theirs.blob) : " early"));
    return theirs.blob;
}

Status PairRelay::raw_exchange(const Bytes& mine, Bytes& theirs)
{
    NGX_ASSIGN_OR_RETURN(Bytes got, step(mine));
    theirs = std::move(got);
    return Status::ok();
}

Status PairRelay::raw_broadcast(Bytes& value)
{
    NGX_ASSIGN_OR_RETURN(Bytes got, step(is_driver() ? value : Bytes()));
    if (!is_driver())
        value = std::move(got);
    return Status::ok();
}

Status PairRelay::raw_gather(const Bytes& mine, std::vector<Bytes>& all)
{
    NGX_ASSIGN_OR_RETURN(Bytes got, step(mine));
    all.clear();
    if (is_driver())
        all = {mine, std::move(got)};
    return Status::ok();
}

Status PairRelay::finish(const Status& mine)
{
    Frame frame{mine ? State::finished : State::failed, mine ? Bytes() : to_bytes(mine.message())};
    for (;;) {
        NGX_ASSIGN_OR_RETURN(std::vector<Frame> frames, relay_step(all_, frame));
        if (!std::all_of(frames.begin(), frames.end(), ended))
            continue;
        if (!mine)
            return mine;
        return first_failure(frames, {driver_, responder_});
    }
}

Status idle_while_pair_measures(Bootstrap& all, int driver, int responder, Progress* progress)
{
    for (uint64_t step = 0;; ++step) {
        mark_repetition(progress, step);
        NGX_ASSIGN_OR_RETURN(std::vector<Frame> frames, relay_step(all, Frame{State::idle, {}}));
        if (std::all_of(frames.begin(), frames.end(), ended))
            return first_failure(frames, {driver, responder});
    }
}

} // namespace ngx::patterns
