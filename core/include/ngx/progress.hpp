// Progress marks: where this process is in a run (the step, the message size
// and the repetition), written by the session and the patterns as they go
// and read by the core's watchdog, which ends the job when the marks stay
// unchanged for longer than the deadline (a peer that is alive but stopped
// can otherwise hold a blocking call forever), except in local work
// (mark_local_work: a fit that waits for no peer). Every write is a relaxed
// atomic store, made outside the timed regions; a null Progress is ignored.
//
//     mark_step(ctx.settings.progress, "measuring", size);
//     mark_repetition(ctx.settings.progress, rep);   // once per repetition
#ifndef NGX_PROGRESS_HPP
#define NGX_PROGRESS_HPP

#include <atomic>
#include <cstdint>

namespace ngx {

struct Progress {
    std::atomic<const char*> step{"starting"}; // a string literal
    std::atomic<uint64_t> size{0};             // bytes; 0 before the first size
    std::atomic<uint64_t> repetition{0};
    std::atomic<uint64_t> steps{0}; // changes with every mark_step()
    // Local work (a fit after the run) that waits for no peer: the watchdog
    // lets it take its time; the next mark_step() ends it. (Last: pattern ABI 3.)
    std::atomic<bool> local{false};
};

inline void mark_step(Progress* progress, const char* step)
{
    if (progress == nullptr)
        return;
    progress->step.store(step, std::memory_order_relaxed);
    progress->repetition.store(0, std::memory_order_relaxed);
    progress->steps.fetch_add(1, std::memory_order_relaxed);
    progress->local.store(false, std::memory_order_relaxed);
}

// A step of local work, no deadline: computing, not waiting for a peer.
inline void mark_local_work(Progress* progress, const char* step)
{
    mark_step(progress, step);
    if (progress != nullptr)
        progress->local.store(true, std::memory_order_relaxed);
}

inline void mark_step(Progress* progress, const char* step, uint64_t size)
{
    if (progress != nullptr)
        progress->size.store(size, std::memory_order_relaxed);
    mark_step(progress, step);
}

inline void mark_repetition(Progress* progress, uint64_t repetition)
{
    if (progress != nullptr)
        progress->repetition.store(repetition, std::memory_order_relaxed);
}

} // namespace ngx

#endif
