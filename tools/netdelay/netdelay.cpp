// ngx-netdelay: a user-space delay line between two network namespaces.
//
// The kernel on the test machines has no netem, so ngx's tests add latency
// with this relay instead. It opens one TUN device inside each of two named
// network namespaces (setns to /var/run/netns/NAME, TUNSETIFF, setns back),
// then one thread per direction reads IP packets from one TUN, stamps them,
// keeps them in a FIFO delay queue and writes each to the other TUN once its
// fixed one-way delay has elapsed. Waiting is a sleep (ppoll with a 1 ns
// timer slack) that ends early by the timer wake-up overshoot the thread has
// observed (tens of microseconds in a VM), followed by a busy-wait until the
// due time, so the added delay is accurate to a few microseconds whenever the
// thread has a CPU (--spin-us fixes the busy-wait window instead). With no
// delay a packet is written as soon as it is read. Packets are read straight
// into a preallocated ring: no per-packet allocation or extra copy. Optional
// random loss (--drop, seeded, optionally UDP only) serves the UDP loss
// tests; rate limits are left to tbf on the TUN devices.
//
// Measured on the 2-core VMs (1-byte TCP ping-pong, medians): the relay adds
// about 10 us each way over a veth pair; a 100 us delay adds 200-212 us to
// the round trip; about 1 Gbit/s at MTU 1500, 10 Gbit/s at MTU 65000.
//
//     ngx-netdelay --ns-a hostA --dev-a tun-a --ns-b hostB --dev-b tun-b
//                  --delay-us 100 --max-seconds 60 --ready-file /tmp/ready
//     ip -n hostA addr add 10.78.0.1/24 dev tun-a; ip -n hostA link set tun-a up ...
//
// The TUN devices live exactly as long as the process. It stops on SIGTERM,
// SIGINT or SIGHUP, and on its own after --max-seconds, then prints
// per-direction statistics (forwarded, dropped, lateness) on stderr.
// Exit status: 0 after a clean stop, 1 on a runtime failure, 2 on bad options.
#include "cli.hpp"
#include <ngx/output_file.hpp>

#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using ngxnet::mono_ns;
using ngxnet::UsageError;

constexpr const char* kProg = "ngx-netdelay";

// A failure after the options were accepted: exit status 1.
struct RuntimeError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::string errno_text(const std::string& what)
{
    return what + ": " + std::strerror(errno);
}

struct Options {
    std::string ns[2];              // namespace names; "." is the relay's own namespace
    std::string dev[2];             // TUN device names
    int64_t delay_ns[2] = {-1, -1}; // [0] a->b, [1] b->a
    double drop = 0.0;              // per-packet drop probability
    bool drop_udp_only = false;
    uint64_t seed = 1;
    int64_t spin_ns = -1;     // busy-wait window; -1: learn it (auto)
    int64_t busy_poll_ns = 0; // keep polling input this long after traffic
    size_t queue_bytes = size_t(8) << 20;
    double max_seconds = 300.0;
    std::string ready_file;
    int rt_prio = 0;
    bool quiet = false;
};

void print_usage(FILE* out)
{
    std::fprintf(out,
                 "usage: %s --ns-a NS --dev-a DEV --ns-b NS --dev-b DEV [options]\n"
                 "\n"
                 "Joins network namespaces NS-A and NS-B through TUN devices DEV-A and DEV-B,\n"
                 "forwarding IP packets between them after a fixed one-way delay.\n"
                 "\n"
                 "  --ns-a NAME, --ns-b NAME   namespaces (/var/run/netns/NAME; '.' = this one)\n"
                 "  --dev-a NAME, --dev-b NAME TUN device names (created, gone at exit)\n"
                 "  --delay-us N               one-way delay in both directions (default 0)\n"
                 "  --delay-ab-us N            delay from A to B only\n"
                 "  --delay-ba-us N            delay from B to A only\n"
                 "  --drop P                   drop each packet with probability P in [0, 1]\n"
                 "  --drop-proto all|udp       which packets may be dropped (default all)\n"
                 "  --seed N                   random seed for --drop (default 1)\n"
                 "  --spin-us N|auto           busy-wait the last N us before a due time; auto\n"
                 "                             (default) learns the timer wake-up overshoot\n"
                 "  --busy-poll-us N           poll input without sleeping for N us after traffic\n"
                 "                             (default 0: always sleep in ppoll)\n"
                 "  --queue-mib N              delay queue size per direction (default 8)\n"
                 "  --max-seconds S            stop after S seconds (default 300, max 86400)\n"
                 "  --ready-file PATH          write the pid to PATH once both devices exist\n"
                 "  --rt-prio N                run the relay threads SCHED_FIFO at priority N\n"
                 "  --quiet                    no statistics at exit\n"
                 "  --help                     this text\n",
                 kProg);
}

Options parse_options(int argc, char** argv)
{
    Options o;
    std::string name;
    ngxnet::ArgReader args(argc, argv);
    constexpr int64_t kMaxDelayUs = 10'000'000; // 10 s
    std::string proto = "all";
    while (args.next(name)) {
        if (name == "--help") {
            print_usage(stdout);
            std::exit(0);
        } else if (name == "--ns-a")
            o.ns[0] = args.value();
        else if (name == "--ns-b")
            o.ns[1] = args.value();
        else if (name == "--dev-a")
            o.dev[0] = args.value();
        else if (name == "--dev-b")
            o.dev[1] = args.value();
        else if (name == "--delay-us") {
            int64_t us = ngxnet::parse_int<int64_t>(args.value(), 0, kMaxDelayUs, name);
            o.delay_ns[0] = o.delay_ns[1] = us * 1000;
        } else if (name == "--delay-ab-us")
            o.delay_ns[0] = ngxnet::parse_int<int64_t>(args.value(), 0, kMaxDelayUs, name) * 1000;
        else if (name == "--delay-ba-us")
            o.delay_ns[1] = ngxnet::parse_int<int64_t>(args.value(), 0, kMaxDelayUs, name) * 1000;
        else if (name == "--drop")
            o.drop = ngxnet::parse_double(args.value(), 0.0, 1.0, name);
        else if (name == "--drop-proto")
            proto = args.value();
        else if (name == "--seed")
            o.seed = ngxnet::parse_int<uint64_t>(args.value(), 0, UINT64_MAX, name);
        else if (name == "--spin-us") {
            const std::string v = args.value();
            o.spin_ns = v == "auto" ? -1 : ngxnet::parse_int<int64_t>(v, 0, 10'000, name) * 1000;
        } else if (name == "--busy-poll-us")
            o.busy_poll_ns = ngxnet::parse_int<int64_t>(args.value(), 0, 1'000'000, name) * 1000;
        else if (name == "--queue-mib")
            o.queue_bytes = ngxnet::parse_int<size_t>(args.value(), 1, 1024, name) << 20;
        else if (name == "--max-seconds")
            o.max_seconds = ngxnet::parse_double(args.value(), 0.001, 86400.0, name);
        else if (name == "--ready-file")
            o.ready_file = args.value();
        else if (name == "--rt-prio")
            o.rt_prio = ngxnet::parse_int<int>(args.value(), 1, 99, name);
        else if (name == "--quiet")
            o.quiet = true;
        else
            throw UsageError("unknown option " + name);
    }
    for (int s = 0; s < 2; ++s) {
        const char side = s == 0 ? 'a' : 'b';
        if (o.ns[s].empty())
            throw UsageError(std::string("--ns-") + side + " is required");
        if (o.dev[s].empty())
            throw UsageError(std::string("--dev-") + side + " is required");
        if (o.dev[s].size() >= IFNAMSIZ)
            throw UsageError("device name '" + o.dev[s] + "' is longer than " + std::to_string(IFNAMSIZ - 1) +
                             " characters");
        if (o.dev[s].find('/') != std::string::npos || o.dev[s] == "." || o.dev[s] == "..")
            throw UsageError("bad device name '" + o.dev[s] + "'");
        if (o.ns[s].find('/') != std::string::npos || o.ns[s] == "..")
            throw UsageError("bad namespace name '" + o.ns[s] + "'");
        if (o.delay_ns[s] < 0)
            o.delay_ns[s] = 0;
    }
    if (o.ns[0] == o.ns[1] && o.dev[0] == o.dev[1])
        throw UsageError("both ends name the same device in the same namespace");
    if (proto == "udp")
        o.drop_udp_only = true;
    else if (proto != "all")
        throw UsageError("--drop-proto must be 'all' or 'udp', not '" + proto + "'");
    return o;
}

// Opens (creating if needed) TUN device `dev` inside namespace `ns`; the
// calling thread is back in its own namespace (`home`) when this returns.
int open_tun_in(const std::string& ns, const std::string& dev, int home)
{
    const bool move = ns != ".";
    if (move) {
        const std::string path = "/var/run/netns/" + ns;
        int nfd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (nfd < 0)
            throw RuntimeError(errno_text("namespace " + path));
        if (setns(nfd, CLONE_NEWNET) != 0) {
            std::string msg = errno_text("setns into " + path);
            close(nfd);
            throw RuntimeError(msg);
        }
        close(nfd);
    }
    int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);
    std::string failure;
    if (fd < 0) {
        failure = errno_text("/dev/net/tun");
    } else {
        ifreq ifr{};
        ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
        std::memcpy(ifr.ifr_name, dev.data(), dev.size());
        if (ioctl(fd, TUNSETIFF, &ifr) != 0) {
            failure = errno_text("creating TUN device " + dev + " in namespace " + ns);
            close(fd);
            fd = -1;
        }
    }
    if (move && setns(home, CLONE_NEWNET) != 0) {
        // Cannot happen for a process that started in `home`; refuse to go on.
        throw RuntimeError(errno_text("setns back to the original namespace"));
    }
    if (fd < 0)
        throw RuntimeError(failure);
    return fd;
}

// FIFO of packets in one contiguous byte ring: a packet is read straight into
// the ring (no per-packet allocation, no extra copy) and written from it.
class DelayQueue {
public:
    static constexpr size_t kMaxPacket = 65536;
    struct Entry {
        int64_t due;
        uint32_t off;
        uint32_t len;
    };

    explicit DelayQueue(size_t bytes)
            : buf_(bytes < 2 * kMaxPacket ? 2 * kMaxPacket : bytes),
              slots_(std::max<size_t>(1024, std::min<size_t>(buf_.size() / 64, size_t(1) << 20)))
    {
    }

    // Room for one packet of up to kMaxPacket bytes, or nullptr when full.
    unsigned char* reserve()
    {
        if (count_ == slots_.size())
            return nullptr;
        if (count_ == 0) {
            reserved_ = 0;
        } else {
            const size_t oldest = slots_[head_].off;
            if (wpos_ > oldest) { // live bytes in [oldest, wpos): free at the end, then the start
                if (buf_.size() - wpos_ >= kMaxPacket)
                    reserved_ = wpos_;
                else if (oldest >= kMaxPacket)
                    reserved_ = 0;
                else
                    return nullptr;
            } else { // wrapped: free bytes are [wpos, oldest)
                if (oldest - wpos_ >= kMaxPacket)
                    reserved_ = wpos_;
                else
                    return nullptr;
            }
        }
        return buf_.data() + reserved_;
    }

    // Appends the packet just read into the reserve()d space.
    void commit(size_t len, int64_t due)
    {
        slots_[(head_ + count_) % slots_.size()] = Entry{due, uint32_t(reserved_), uint32_t(len)};
        ++count_;
        wpos_ = reserved_ + len;
    }

    bool empty() const { return count_ == 0; }
    const Entry& front() const { return slots_[head_]; }
    const unsigned char* data(const Entry& e) const { return buf_.data() + e.off; }
    void pop()
    {
        head_ = (head_ + 1) % slots_.size();
        --count_;
    }

private:
    std::vector<unsigned char> buf_;
    std::vector<Entry> slots_;
    size_t head_ = 0, count_ = 0;
    size_t wpos_ = 0, reserved_ = 0;
};

bool is_udp(const unsigned char* p, size_t n)
{
    if (n == 0)
        return false;
    const int version = p[0] >> 4;
    if (version == 4 && n >= 20)
        return p[9] == 17;
    if (version == 6 && n >= 40)
        return p[6] == 17; // no extension headers expected here
    return false;
}

struct DirectionStats {
    uint64_t rx_packets = 0, rx_bytes = 0;
    uint64_t forwarded = 0, dropped_random = 0, dropped_queue_full = 0, write_errors = 0;
    int64_t late_sum_ns = 0, late_max_ns = 0;
    uint64_t late_over_5us = 0;
};

// One direction of the relay: reads `in`, delays, writes `out`.
class Direction {
public:
    Direction(std::string name, int in, int out, int64_t delay_ns, const Options& o, uint64_t seed, int stop_fd,
              std::atomic<bool>& stop, std::atomic<int>& failed)
            : name_(std::move(name)), in_(in), out_(out), delay_ns_(delay_ns), spin_auto_(o.spin_ns < 0),
              spin_ns_(o.spin_ns < 0 ? kSpinStartNs : o.spin_ns), busy_poll_ns_(o.busy_poll_ns), drop_(o.drop),
              drop_udp_only_(o.drop_udp_only), rng_(seed), queue_(o.queue_bytes), scratch_(DelayQueue::kMaxPacket),
              stop_fd_(stop_fd), stop_(stop), failed_(failed)
    {
    }

    void run()
    {
        prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
        pollfd fds[2] = {{in_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
        while (!stop_.load(std::memory_order_relaxed)) {
            int64_t now = mono_ns();
            flush(now);
            now = mono_ns();
            int64_t wait = -1; // -1: nothing queued, sleep until input
            if (!queue_.empty())
                wait = std::max<int64_t>(0, queue_.front().due - now);
            if (!queue_.empty() && wait <= spin_ns_) {
                spin_until(queue_.front().due);
                continue;
            }
            if (busy_poll_ns_ > 0 && now - last_input_ns_ < busy_poll_ns_) {
                if (!drain(64))
                    return;
                continue;
            }
            timespec ts{};
            timespec* tp = nullptr;
            if (wait >= 0) {
                ts = ngxnet::to_timespec(wait - spin_ns_);
                tp = &ts;
            }
            const int64_t wake_target = tp ? now + (wait - spin_ns_) : 0;
            int r = ppoll(fds, 2, tp, nullptr);
            if (r == 0 && tp && spin_auto_)
                learn_overshoot(mono_ns() - wake_target);
            if (r < 0) {
                if (errno == EINTR)
                    continue;
                fail(errno_text("ppoll"));
                return;
            }
            if (fds[1].revents != 0)
                return;
            if (fds[0].revents & (POLLERR | POLLNVAL)) {
                fail("TUN device reported an error");
                return;
            }
            if ((fds[0].revents & POLLIN) && !drain(64))
                return;
        }
    }

    void report(FILE* out) const
    {
        const DirectionStats& s = stats_;
        const double late_mean_us = s.forwarded ? double(s.late_sum_ns) / double(s.forwarded) / 1e3 : 0.0;
        std::fprintf(out,
                     "%s: %s: delay %.3f us, received %llu packets (%llu bytes), forwarded %llu, "
                     "dropped %llu random + %llu queue-full, %llu write errors, "
                     "lateness mean %.2f us max %.2f us, %llu late by > 5 us, spin window %.1f us%s\n",
                     kProg, name_.c_str(), double(delay_ns_) / 1e3, (unsigned long long)s.rx_packets,
                     (unsigned long long)s.rx_bytes, (unsigned long long)s.forwarded,
                     (unsigned long long)s.dropped_random, (unsigned long long)s.dropped_queue_full,
                     (unsigned long long)s.write_errors, late_mean_us, double(s.late_max_ns) / 1e3,
                     (unsigned long long)s.late_over_5us, double(spin_ns_) / 1e3, spin_auto_ ? " (auto)" : "");
    }

private:
    bool should_drop(const unsigned char* p, size_t n)
    {
        if (drop_ <= 0.0)
            return false;
        if (drop_udp_only_ && !is_udp(p, n))
            return false;
        const double u = double(rng_() >> 11) * 0x1.0p-53; // uniform in [0, 1)
        return u < drop_;
    }

    // Reads at most `limit` packets without blocking; false after a fatal error.
    bool drain(int limit)
    {
        for (int i = 0; i < limit; ++i) {
            unsigned char* slot = queue_.reserve();
            unsigned char* dst = slot ? slot : scratch_.data();
            ssize_t n = read(in_, dst, DelayQueue::kMaxPacket);
            if (n < 0) {
                if (errno == EAGAIN || errno == EINTR)
                    return true;
                fail(errno_text("read from TUN"));
                return false;
            }
            if (n == 0)
                return true;
            const int64_t t = mono_ns();
            last_input_ns_ = t;
            ++stats_.rx_packets;
            stats_.rx_bytes += uint64_t(n);
            if (should_drop(dst, size_t(n))) {
                ++stats_.dropped_random;
                continue;
            }
            if (!slot) {
                ++stats_.dropped_queue_full;
                continue;
            }
            queue_.commit(size_t(n), t + delay_ns_);
            if (queue_.front().due <= t)
                flush(t); // no delay: forward before reading more
        }
        return true;
    }

    void flush(int64_t now)
    {
        while (!queue_.empty() && queue_.front().due <= now) {
            const DelayQueue::Entry& e = queue_.front();
            const int64_t late = mono_ns() - e.due;
            if (write(out_, queue_.data(e), e.len) < 0) {
                ++stats_.write_errors; // e.g. EIO while the device is down: the packet is lost
            } else {
                ++stats_.forwarded;
                stats_.late_sum_ns += late;
                stats_.late_max_ns = std::max(stats_.late_max_ns, late);
                if (late > 5'000)
                    ++stats_.late_over_5us;
            }
            queue_.pop();
        }
    }

    // Auto spin window: a running estimate of a high percentile (about the
    // 97th) of the observed timer overshoot plus a margin, so that nearly
    // every timed sleep ends before the due time while a rare preemption of
    // milliseconds moves the estimate by only a few microseconds.
    void learn_overshoot(int64_t over)
    {
        constexpr int64_t kDown = 150, kUp = 32 * kDown;
        overshoot_ns_ += over > overshoot_ns_ ? kUp : -kDown;
        overshoot_ns_ = std::clamp<int64_t>(overshoot_ns_, 0, kSpinMaxNs);
        spin_ns_ = std::clamp<int64_t>(overshoot_ns_ + kSpinMarginNs, kSpinMinNs, kSpinMaxNs);
    }

    // Busy-waits until `due`, still taking in (and stamping) new packets.
    void spin_until(int64_t due)
    {
        while (!stop_.load(std::memory_order_relaxed)) {
            if (!drain(8))
                return;
            if (mono_ns() >= due)
                return;
        }
    }

    void fail(const std::string& msg)
    {
        std::fprintf(stderr, "%s: %s: %s\n", kProg, name_.c_str(), msg.c_str());
        failed_.store(1);
        kill(getpid(), SIGUSR1); // wakes the main thread's sigtimedwait
    }

    std::string name_;
    int in_, out_;
    static constexpr int64_t kSpinStartNs = 50'000, kSpinMinNs = 5'000, kSpinMaxNs = 300'000, kSpinMarginNs = 5'000;
    int64_t delay_ns_;
    bool spin_auto_;
    int64_t spin_ns_, busy_poll_ns_;
    int64_t overshoot_ns_ = kSpinStartNs - kSpinMarginNs;
    double drop_;
    bool drop_udp_only_;
    std::mt19937_64 rng_;
    DelayQueue queue_;
    std::vector<unsigned char> scratch_;
    int stop_fd_;
    std::atomic<bool>& stop_;
    std::atomic<int>& failed_;
    int64_t last_input_ns_ = INT64_MIN / 2;
    DirectionStats stats_;
};

void write_ready_file(const std::string& path)
{
    if (ngx::Status written = ngx::write_atomically(path, std::to_string(getpid()) + "\n"); !written)
        throw RuntimeError("ready file: " + written.message());
}

int run(const Options& o)
{
    // Every thread blocks the stop signals; only the main thread waits for them.
    sigset_t sigs;
    sigemptyset(&sigs);
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGUSR1})
        sigaddset(&sigs, s);
    pthread_sigmask(SIG_BLOCK, &sigs, nullptr);
    std::signal(SIGPIPE, SIG_IGN);

    int home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    if (home < 0)
        throw RuntimeError(errno_text("/proc/self/ns/net"));
    const int tun_a = open_tun_in(o.ns[0], o.dev[0], home);
    const int tun_b = open_tun_in(o.ns[1], o.dev[1], home);
    close(home);
    const int stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (stop_fd < 0)
        throw RuntimeError(errno_text("eventfd"));

    std::atomic<bool> stop{false};
    std::atomic<int> failed{0};
    const std::string ab = o.ns[0] + "/" + o.dev[0] + " -> " + o.ns[1] + "/" + o.dev[1];
    const std::string ba = o.ns[1] + "/" + o.dev[1] + " -> " + o.ns[0] + "/" + o.dev[0];
    Direction dir_ab(ab, tun_a, tun_b, o.delay_ns[0], o, o.seed, stop_fd, stop, failed);
    Direction dir_ba(ba, tun_b, tun_a, o.delay_ns[1], o, o.seed ^ 0x9e3779b97f4a7c15ULL, stop_fd, stop, failed);
    std::thread t_ab([&] { dir_ab.run(); });
    std::thread t_ba([&] { dir_ba.run(); });
    if (o.rt_prio > 0) {
        sched_param sp{};
        sp.sched_priority = o.rt_prio;
        for (std::thread* t : {&t_ab, &t_ba}) {
            int rc = pthread_setschedparam(t->native_handle(), SCHED_FIFO, &sp);
            if (rc != 0)
                std::fprintf(stderr, "%s: warning: SCHED_FIFO priority %d: %s\n", kProg, o.rt_prio, std::strerror(rc));
        }
    }

    std::string reason;
    try {
        if (!o.ready_file.empty())
            write_ready_file(o.ready_file);
    } catch (const RuntimeError& e) {
        reason = e.what();
        failed.store(1);
    }
    if (!o.quiet && reason.empty())
        std::fprintf(stderr, "%s: ready: %s delay %lld us, %s delay %lld us, drop %g (%s), max %g s\n", kProg,
                     ab.c_str(), (long long)(o.delay_ns[0] / 1000), ba.c_str(), (long long)(o.delay_ns[1] / 1000),
                     o.drop, o.drop_udp_only ? "udp" : "all", o.max_seconds);

    const int64_t deadline = mono_ns() + int64_t(o.max_seconds * 1e9);
    while (reason.empty()) {
        const int64_t left = deadline - mono_ns();
        if (left <= 0) {
            reason = "lifetime limit (--max-seconds) reached";
            break;
        }
        const timespec ts = ngxnet::to_timespec(left);
        siginfo_t info{};
        int sig = sigtimedwait(&sigs, &info, &ts);
        if (sig < 0)
            continue; // EAGAIN (deadline, checked above) or EINTR
        if (sig == SIGUSR1) {
            if (failed.load())
                reason = "relay thread failed";
            continue;
        }
        reason = std::string("signal ") + strsignal(sig);
    }

    stop.store(true);
    const uint64_t one = 1;
    if (write(stop_fd, &one, sizeof one) < 0) { /* threads still see `stop` within their spin */
    }
    t_ab.join();
    t_ba.join();
    if (!o.quiet) {
        std::fprintf(stderr, "%s: stopping: %s\n", kProg, reason.c_str());
        dir_ab.report(stderr);
        dir_ba.report(stderr);
    }
    close(tun_a);
    close(tun_b);
    close(stop_fd);
    return failed.load() ? 1 : 0;
}

} // namespace

int main(int argc, char** argv)
{
    Options o;
    try {
        o = parse_options(argc, argv);
    } catch (const UsageError& e) {
        std::fprintf(stderr, "%s: %s\n(try %s --help)\n", kProg, e.what(), kProg);
        return 2;
    }
    try {
        return run(o);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", kProg, e.what());
        return 1;
    }
}
