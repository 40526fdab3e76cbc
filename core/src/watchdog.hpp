// The watchdog (private to the core): a thread that watches a Progress and,
// when its marks stay unchanged for longer than the deadline, calls the
// expiry action once with a report naming the step, the size, the
// repetition and the side. The action is expected to end the process (write
// the files, then MPI_Abort or exit 1); the main thread may be stuck in a
// blocking call and is never waited for.
//
//     Watchdog watchdog(progress, timeout_ns, cancel, "rank 0 (driver)", [&](const std::string& report, bool) { ... });
#ifndef NGX_WATCHDOG_HPP
#define NGX_WATCHDOG_HPP

#include <ngx/progress.hpp>

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace ngx {

// What the watchdog saw last; a change of any field is progress.
struct ProgressMark {
    const char* step = nullptr;
    uint64_t size = 0;
    uint64_t repetition = 0;
    uint64_t steps = 0;

    bool operator==(const ProgressMark&) const = default;
};

ProgressMark read_mark(const Progress& progress);

// "watchdog: no progress for 3.26 s (--timeout 3 s) on rank 0 (driver): step '...', size 2 B, repetition 602 ..."
std::string watchdog_report(const ProgressMark& mark, double silent_s, double timeout_s, const std::string& side);
// The same after a signal (Ctrl-C, SIGTERM) found the main thread stuck.
std::string stuck_report(const ProgressMark& mark, const std::string& side);

class Watchdog {
public:
    // `interrupted`: Ctrl-C or SIGTERM (e.g. mpirun ending the job after a
    // rank died) found the main thread stuck, rather than the deadline.
    using Expiry = std::function<void(const std::string& report, bool interrupted)>;

    // Fires after timeout_ns + grace without progress, or `grace` after
    // *cancel was raised without progress since.
    Watchdog(const Progress& progress, uint64_t timeout_ns, const volatile int* cancel, std::string side,
             Expiry expire);
    ~Watchdog();
    Watchdog(const Watchdog&) = delete;
    Watchdog& operator=(const Watchdog&) = delete;

    // Past --timeout the module's own deadline speaks first, when it has one.
    static constexpr uint64_t grace_ns = 250'000'000;
    // After Ctrl-C or SIGTERM, how long the main thread may stay silent before
    // the watchdog ends the run; below Open MPI's 1 s from SIGTERM to SIGKILL.
    static constexpr uint64_t interrupt_grace_ns = 500'000'000;
    static constexpr uint64_t period_ns = 50'000'000; // how often the marks are read
    // A responder that fires waits this long before ending the job, so that a
    // driver firing at the same time writes its files first.
    static constexpr uint64_t responder_lag_ns = 500'000'000;

private:
    void watch();

    const Progress& progress_;
    uint64_t timeout_ns_;
    const volatile int* cancel_;
    std::string side_;
    Expiry expire_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread thread_;
};

class Session;
class Bootstrap;

// The expiry action of a measuring process: says `report` on stderr, ends the
// session's current run with status "error" and writes its files (the results
// so far), then ends the job: MPI_Abort(1) under MPI, else exit code 1. After
// a signal (`interrupted`) the same under MPI, where a rank still stuck means
// a failed peer (mpirun ending the job after a rank died); elsewhere status
// "interrupted" and exit code 130.
[[noreturn]] void end_stuck_job(Session& session, Bootstrap& boot, const std::string& report, bool interrupted);

// "rank 1 (responder)"
std::string watchdog_side(const Bootstrap& boot);

} // namespace ngx

#endif
