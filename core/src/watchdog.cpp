// The watchdog (see watchdog.hpp).
#include "watchdog.hpp"

#include "mpi_bootstrap.hpp"
#include "session.hpp"
#include <ngx/sizes.hpp>

#include "ngx_config.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace ngx {

ProgressMark read_mark(const Progress& progress)
{
    return {progress.step.load(std::memory_order_relaxed), progress.size.load(std::memory_order_relaxed),
            progress.repetition.load(std::memory_order_relaxed), progress.steps.load(std::memory_order_relaxed)};
}

// The step, size and repetition of `mark`.
// "size 1 B, repetition 7: " when the run is inside a size, else "".
std::string where_stuck(const ProgressMark& mark)
{
    if (mark.size == 0 && mark.repetition == 0)
        return "";
    return "size " + format_bytes(mark.size) + ", repetition " + std::to_string(mark.repetition) + ": ";
}

std::string step_of(const ProgressMark& mark)
{
    return std::string("step '") + (mark.step != nullptr ? mark.step : "?") + "'";
}

std::string stuck_report(const ProgressMark& mark, const std::string& side)
{
    return where_stuck(mark) + "watchdog: a signal (Ctrl-C, or the launcher ending the job after another rank " +
           "failed) found " + side + " stuck in " + step_of(mark) + ": the peer is gone or stuck; ending the job";
}

std::string watchdog_report(const ProgressMark& mark, double silent_s, double timeout_s, const std::string& side)
{
    char times[96];
    std::snprintf(times, sizeof times, "no progress for %.2f s (--timeout %.3g s)", silent_s, timeout_s);
    return where_stuck(mark) + "watchdog: " + times + " on " + side + " in " + step_of(mark) +
           " (is the peer alive? a stopped or unreachable peer blocks here); ending the job";
}

Watchdog::Watchdog(const Progress& progress, uint64_t timeout_ns, const volatile int* cancel, std::string side,
                   Expiry expire)
        : progress_(progress), timeout_ns_(timeout_ns), cancel_(cancel), side_(std::move(side)),
          expire_(std::move(expire))
{
    thread_ = std::thread([this] { watch(); });
}

Watchdog::~Watchdog()
{
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void Watchdog::watch()
{
    using clock = std::chrono::steady_clock;
    ProgressMark last = read_mark(progress_);
    clock::time_point since = clock::now();
    bool interrupted = false;
    double timeout_s = double(timeout_ns_) / 1e9;
    std::chrono::nanoseconds limit(timeout_ns_ + grace_ns);
    std::unique_lock<std::mutex> lock(mutex_);
    while (!wake_.wait_for(lock, std::chrono::nanoseconds(period_ns), [this] { return stopping_; })) {
        ProgressMark now = read_mark(progress_);
        if (!interrupted && cancel_ != nullptr && *cancel_ != 0) { // the main thread gets a moment to notice
            interrupted = true;
            limit = std::chrono::nanoseconds(interrupt_grace_ns);
            since = clock::now();
        }
        if (!(now == last) || (!interrupted && progress_.local.load(std::memory_order_relaxed))) {
            last = now;
            since = clock::now();
            continue;
        }
        std::chrono::duration<double> silent = clock::now() - since;
        if (silent < limit)
            continue;
        lock.unlock();
        expire_(interrupted ? stuck_report(now, side_) : watchdog_report(now, silent.count(), timeout_s, side_),
                interrupted);
        return;
    }
}

std::string watchdog_side(const Bootstrap& boot)
{
    return "rank " + std::to_string(boot.rank()) + (boot.is_driver() ? " (driver)" : " (responder)");
}

void end_stuck_job(Session& session, Bootstrap& boot, const std::string& report, bool interrupted)
{
    std::string run = session.current_run_label(); // "mpi pingpong", as other errors name the run
    std::cerr << "ngx: " << (run.empty() ? "" : run + ": ") << report << std::endl;
    if (!boot.is_driver()) // both sides fire together when the link fails: the driver's files come first
        std::this_thread::sleep_for(std::chrono::nanoseconds(Watchdog::responder_lag_ns));
    // Under MPI a rank still stuck after a signal means a failed peer (the
    // launcher ends the job), not a clean stop; elsewhere it is Ctrl-C.
    bool failed = !interrupted || boot.name() == "mpi";
    Status why = failed ? Status::runtime(report) : Status::interrupted(report);
    // The job ends with why's exit code either way; a file the reporters could
    // not write has no better code to give it here.
    (void)session.abandon(why);
    std::cout.flush();
#if NGX_HAVE_MPI
    abort_mpi_job(boot, exit_code(why));
#else
    (void)boot;
#endif
    std::_Exit(exit_code(why));
}

} // namespace ngx
