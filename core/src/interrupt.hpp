// Ctrl-C and SIGTERM become a flag that every blocking loop checks (the
// cancel pointer of the module ABI), so ngx stops at a safe point, writes the
// results measured so far and exits 130.
//
// A signal handler can only reach static storage, so the flag is the one
// piece of process-wide state in ngx; this guard owns its installation.
//
//     InterruptGuard guard;
//     while (!*guard.flag()) { ... }
#ifndef NGX_INTERRUPT_HPP
#define NGX_INTERRUPT_HPP

#include <cstdint>

namespace ngx {

// How long an interrupted process of the run (a forked peer, the run of a
// --listen server's client) gets to finish before it is killed.
constexpr uint64_t interrupt_grace_ns = 500'000'000;

class InterruptGuard {
public:
    InterruptGuard();
    ~InterruptGuard();
    InterruptGuard(const InterruptGuard&) = delete;
    InterruptGuard& operator=(const InterruptGuard&) = delete;

    const volatile int* flag() const;
    bool raised() const { return *flag() != 0; }
    int signal_number() const; // the signal that raised it, 0 if none
};

// Whether SIGINT/SIGTERM came since a guard was installed: for the waits of
// the bootstrap, which poll in slices and have no guard at hand.
bool interrupt_requested();

} // namespace ngx

#endif
