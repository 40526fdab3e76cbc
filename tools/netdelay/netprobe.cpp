// ngx-netprobe: tiny traffic generators that prove the test network works
// (tests/net and the integration tests use it; it is not a benchmark).
//
//   rtt-server / rtt-client        TCP ping-pong of --size bytes (TCP_NODELAY),
//                                  the client prints min/median/mean/p90/p99/max
//                                  round-trip time in microseconds
//   stream-server / stream-client  one TCP stream for --seconds; the server
//                                  measures goodput from its first to its last
//                                  byte and both print it
//   udp-server / udp-client        --count numbered datagrams, paced by --gap-us;
//                                  the server counts distinct arrivals and prints
//                                  the loss
//
//     ngx-netprobe rtt-server --addr 10.77.0.2 --port 7000 --ready-file /tmp/r &
//     ngx-netprobe rtt-client --addr 10.77.0.2 --port 7000 --iters 1000
//     rtt n=1000 size=1 min_us=9.8 median_us=11.2 ...
//
// Results are one line of key=value words on stdout. Every run has a hard
// deadline (--timeout, default 30 s): a lost peer or a downed link gives a
// message and exit status 1, never a hang. Bad options exit 2. Servers serve
// one client and exit.
#include "cli.hpp"
#include <ngx/output_file.hpp>

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

using ngxnet::mono_ns;
using ngxnet::UsageError;

constexpr const char* kProg = "ngx-netprobe";
constexpr uint32_t kUdpMagic = 0x4e475855; // "NGXU"

struct Failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::string errno_text(const std::string& what)
{
    return what + ": " + std::strerror(errno);
}

struct Options {
    std::string mode;
    std::string addr;
    int port = 0;
    double timeout_s = 30.0;
    std::string ready_file;
    long iters = 1000;
    long warmup = 100;
    size_t size = 0; // 0: the mode's default
    double seconds = 2.0;
    long count = 2000;
    long gap_us = 20;
    long idle_ms = 500;
};

int64_t g_deadline = 0;

void print_usage(FILE* out)
{
    std::fprintf(out,
                 "usage: %s MODE --addr ADDR --port PORT [options]\n"
                 "\n"
                 "modes:\n"
                 "  rtt-server, rtt-client         TCP ping-pong\n"
                 "  stream-server, stream-client   TCP goodput\n"
                 "  udp-server, udp-client         UDP datagram loss\n"
                 "\n"
                 "options:\n"
                 "  --addr ADDR        numeric IPv4/IPv6 address (server: bind, client: peer)\n"
                 "  --port N           TCP/UDP port\n"
                 "  --timeout S        hard deadline for the whole run (default 30)\n"
                 "  --ready-file PATH  servers: write the pid to PATH once listening\n"
                 "  --iters N          rtt-client: measured round trips (default 1000)\n"
                 "  --warmup N         rtt-client: unmeasured round trips first (default 100)\n"
                 "  --size B           message/write/datagram size (rtt 1, stream 65536, udp 64)\n"
                 "  --seconds T        stream-client: how long to send (default 2)\n"
                 "  --count N          udp: datagrams sent / expected (default 2000)\n"
                 "  --gap-us N         udp-client: pause between datagrams (default 20)\n"
                 "  --idle-ms N        udp-server: stop this long after the last datagram (default 500)\n",
                 kProg);
}

Options parse_options(int argc, char** argv)
{
    Options o;
    if (argc < 2)
        throw UsageError("a mode is required");
    o.mode = argv[1];
    if (o.mode == "--help" || o.mode == "-h") {
        print_usage(stdout);
        std::exit(0);
    }
    static const char* const kModes[] = {"rtt-server",    "rtt-client", "stream-server",
                                         "stream-client", "udp-server", "udp-client"};
    if (std::find_if(std::begin(kModes), std::end(kModes), [&](const char* m) { return o.mode == m; }) ==
        std::end(kModes))
        throw UsageError("unknown mode '" + o.mode + "'");
    ngxnet::ArgReader args(argc, argv, 2);
    std::string name;
    while (args.next(name)) {
        if (name == "--help") {
            print_usage(stdout);
            std::exit(0);
        } else if (name == "--addr")
            o.addr = args.value();
        else if (name == "--port")
            o.port = ngxnet::parse_int<int>(args.value(), 1, 65535, name);
        else if (name == "--timeout")
            o.timeout_s = ngxnet::parse_double(args.value(), 0.01, 3600, name);
        else if (name == "--ready-file")
            o.ready_file = args.value();
        else if (name == "--iters")
            o.iters = ngxnet::parse_int<long>(args.value(), 1, 10'000'000, name);
        else if (name == "--warmup")
            o.warmup = ngxnet::parse_int<long>(args.value(), 0, 10'000'000, name);
        else if (name == "--size")
            o.size = ngxnet::parse_int<size_t>(args.value(), 1, size_t(1) << 24, name);
        else if (name == "--seconds")
            o.seconds = ngxnet::parse_double(args.value(), 0.01, 3600, name);
        else if (name == "--count")
            o.count = ngxnet::parse_int<long>(args.value(), 1, 10'000'000, name);
        else if (name == "--gap-us")
            o.gap_us = ngxnet::parse_int<long>(args.value(), 0, 1'000'000, name);
        else if (name == "--idle-ms")
            o.idle_ms = ngxnet::parse_int<long>(args.value(), 1, 600'000, name);
        else
            throw UsageError("unknown option " + name);
    }
    if (o.addr.empty())
        throw UsageError("--addr is required");
    if (o.port == 0)
        throw UsageError("--port is required");
    if (o.mode.starts_with("udp") && o.size == 0)
        o.size = 64;
    if (o.mode.starts_with("udp") && o.size < 12)
        throw UsageError("--size must be at least 12 for udp");
    if (o.mode.starts_with("udp") && o.size > 65000)
        throw UsageError("--size must be at most 65000 for udp");
    if (o.mode.starts_with("rtt") && o.size == 0)
        o.size = 1;
    if (o.mode.starts_with("stream") && o.size == 0)
        o.size = 65536;
    if (o.mode.starts_with("stream") && o.size < 16)
        throw UsageError("--size must be at least 16 for stream");
    return o;
}

// Time left before the run's deadline, as a poll() timeout in ms (at least 1).
int poll_ms_left()
{
    const int64_t left = g_deadline - mono_ns();
    if (left <= 0)
        throw Failure("deadline (--timeout) passed: peer gone or link down?");
    return int(std::min<int64_t>(left / 1'000'000 + 1, 1000));
}

// Waits until fd has `events`; throws once the deadline has passed.
void wait_for(int fd, short events)
{
    for (;;) {
        pollfd p{fd, events, 0};
        int r = poll(&p, 1, poll_ms_left());
        if (r > 0)
            return;
        if (r < 0 && errno != EINTR)
            throw Failure(errno_text("poll"));
    }
}

sockaddr_storage resolve(const Options& o, socklen_t& len)
{
    addrinfo hints{};
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
    hints.ai_family = AF_UNSPEC;
    addrinfo* res = nullptr;
    const std::string port = std::to_string(o.port);
    int rc = getaddrinfo(o.addr.c_str(), port.c_str(), &hints, &res);
    if (rc != 0)
        throw UsageError("--addr '" + o.addr + "': " + gai_strerror(rc));
    sockaddr_storage ss{};
    std::memcpy(&ss, res->ai_addr, res->ai_addrlen);
    len = res->ai_addrlen;
    freeaddrinfo(res);
    return ss;
}

class Fd {
public:
    explicit Fd(int fd = -1) : fd_(fd) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    Fd(Fd&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
    ~Fd()
    {
        if (fd_ >= 0)
            close(fd_);
    }
    int get() const { return fd_; }

private:
    int fd_;
};

Fd make_socket(int family, int type)
{
    int fd = socket(family, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        throw Failure(errno_text("socket"));
    return Fd(fd);
}

void set_nodelay(int fd)
{
    int one = 1;
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0)
        throw Failure(errno_text("TCP_NODELAY"));
}

void write_ready_file(const std::string& path)
{
    if (path.empty())
        return;
    if (ngx::Status written = ngx::write_atomically(path, std::to_string(getpid()) + "\n"); !written)
        throw Failure("ready file: " + written.message());
}

// Listens on the address and accepts exactly one TCP client.
Fd tcp_accept_one(const Options& o)
{
    socklen_t len = 0;
    sockaddr_storage ss = resolve(o, len);
    Fd lfd = make_socket(ss.ss_family, SOCK_STREAM);
    int one = 1;
    setsockopt(lfd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(lfd.get(), reinterpret_cast<sockaddr*>(&ss), len) != 0)
        throw Failure(errno_text("bind " + o.addr + ":" + std::to_string(o.port)));
    if (listen(lfd.get(), 1) != 0)
        throw Failure(errno_text("listen"));
    write_ready_file(o.ready_file);
    for (;;) {
        wait_for(lfd.get(), POLLIN);
        int fd = accept4(lfd.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd >= 0) {
            set_nodelay(fd);
            return Fd(fd);
        }
        if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
            throw Failure(errno_text("accept"));
    }
}

// Connects, retrying refused or unreachable attempts until the deadline
// (the server may not be listening yet).
Fd tcp_connect(const Options& o)
{
    socklen_t len = 0;
    sockaddr_storage ss = resolve(o, len);
    std::string last = "no attempt";
    while (mono_ns() < g_deadline) {
        Fd fd = make_socket(ss.ss_family, SOCK_STREAM);
        set_nodelay(fd.get());
        int rc = connect(fd.get(), reinterpret_cast<sockaddr*>(&ss), len);
        if (rc != 0 && errno == EINPROGRESS) {
            pollfd p{fd.get(), POLLOUT, 0};
            const int64_t left_ms = (g_deadline - mono_ns()) / 1'000'000;
            if (poll(&p, 1, int(std::clamp<int64_t>(left_ms, 1, 1000))) > 0) {
                int err = 0;
                socklen_t elen = sizeof err;
                getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &elen);
                if (err == 0)
                    return fd;
                errno = err;
            } else {
                errno = ETIMEDOUT;
            }
            rc = -1;
        }
        if (rc == 0)
            return fd;
        last = errno_text("connect " + o.addr + ":" + std::to_string(o.port));
        timespec pause = ngxnet::to_timespec(20'000'000);
        nanosleep(&pause, nullptr);
    }
    throw Failure(last + " (gave up at the deadline)");
}

void send_all(int fd, const unsigned char* p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w > 0) {
            p += w;
            n -= size_t(w);
        } else if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
            wait_for(fd, POLLOUT);
        } else {
            throw Failure(errno_text("send"));
        }
    }
}

// Receives exactly n bytes; false on a clean EOF before the first byte.
bool recv_all(int fd, unsigned char* p, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = recv(fd, p + got, n - got, 0);
        if (r > 0) {
            got += size_t(r);
        } else if (r == 0) {
            if (got == 0)
                return false;
            throw Failure("peer closed the connection mid-message");
        } else if (errno == EAGAIN || errno == EINTR) {
            wait_for(fd, POLLIN);
        } else {
            throw Failure(errno_text("recv"));
        }
    }
    return true;
}

double percentile(const std::vector<double>& sorted, double q)
{
    const size_t i = std::min(sorted.size() - 1, size_t(q * double(sorted.size() - 1) + 0.5));
    return sorted[i];
}

int rtt_server(const Options& o)
{
    Fd fd = tcp_accept_one(o);
    std::vector<unsigned char> buf(1 << 16);
    uint64_t messages = 0;
    for (;;) {
        ssize_t r = recv(fd.get(), buf.data(), buf.size(), 0);
        if (r > 0) {
            send_all(fd.get(), buf.data(), size_t(r));
            ++messages;
        } else if (r == 0) {
            break;
        } else if (errno == EAGAIN || errno == EINTR) {
            wait_for(fd.get(), POLLIN);
        } else {
            throw Failure(errno_text("recv"));
        }
    }
    std::printf("rtt-server echoed=%llu\n", (unsigned long long)messages);
    return 0;
}

int rtt_client(const Options& o)
{
    Fd fd = tcp_connect(o);
    std::vector<unsigned char> msg(o.size, 0x5a), back(o.size);
    std::vector<double> us;
    us.reserve(size_t(o.iters));
    for (long i = 0; i < o.warmup + o.iters; ++i) {
        const int64_t t0 = mono_ns();
        send_all(fd.get(), msg.data(), msg.size());
        if (!recv_all(fd.get(), back.data(), back.size()))
            throw Failure("server closed the connection");
        const int64_t t1 = mono_ns();
        if (i >= o.warmup)
            us.push_back(double(t1 - t0) / 1e3);
    }
    std::vector<double> s = us;
    std::sort(s.begin(), s.end());
    double sum = 0;
    for (double v : s)
        sum += v;
    std::printf("rtt n=%zu size=%zu min_us=%.2f median_us=%.2f mean_us=%.2f p90_us=%.2f p99_us=%.2f max_us=%.2f\n",
                s.size(), o.size, s.front(), percentile(s, 0.5), sum / double(s.size()), percentile(s, 0.9),
                percentile(s, 0.99), s.back());
    return 0;
}

struct StreamResult {
    uint64_t bytes; // bytes after the first read
    uint64_t nanos; // from the first to the last read
    uint64_t total; // all bytes
    uint64_t unused;
};

void print_stream(const char* who, const StreamResult& r, int mss)
{
    const double s = double(r.nanos) / 1e9;
    const double mbit = s > 0 ? double(r.bytes) * 8.0 / s / 1e6 : 0.0;
    std::printf("%s bytes=%llu seconds=%.4f mbit_s=%.3f mss=%d\n", who, (unsigned long long)r.total, s, mbit, mss);
}

int tcp_mss(int fd)
{
    int mss = 0;
    socklen_t len = sizeof mss;
    if (getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &len) != 0)
        return 0;
    return mss;
}

int stream_server(const Options& o)
{
    Fd fd = tcp_accept_one(o);
    std::vector<unsigned char> buf(size_t(1) << 18);
    StreamResult res{};
    int64_t first = 0, last = 0;
    for (;;) {
        ssize_t r = recv(fd.get(), buf.data(), buf.size(), 0);
        if (r > 0) {
            const int64_t now = mono_ns();
            if (res.total == 0)
                first = now;
            else
                res.bytes += uint64_t(r);
            res.total += uint64_t(r);
            last = now;
        } else if (r == 0) {
            break;
        } else if (errno == EAGAIN || errno == EINTR) {
            wait_for(fd.get(), POLLIN);
        } else {
            throw Failure(errno_text("recv"));
        }
    }
    res.nanos = uint64_t(last - first);
    send_all(fd.get(), reinterpret_cast<const unsigned char*>(&res), sizeof res);
    print_stream("stream-server", res, tcp_mss(fd.get()));
    return 0;
}

int stream_client(const Options& o)
{
    Fd fd = tcp_connect(o);
    std::vector<unsigned char> buf(o.size, 0xa5);
    const int64_t end = mono_ns() + int64_t(o.seconds * 1e9);
    if (end > g_deadline)
        throw UsageError("--seconds must be shorter than --timeout");
    while (mono_ns() < end)
        send_all(fd.get(), buf.data(), buf.size());
    if (shutdown(fd.get(), SHUT_WR) != 0)
        throw Failure(errno_text("shutdown"));
    StreamResult res{};
    if (!recv_all(fd.get(), reinterpret_cast<unsigned char*>(&res), sizeof res))
        throw Failure("server closed without a result");
    print_stream("stream", res, tcp_mss(fd.get()));
    return 0;
}

int udp_server(const Options& o)
{
    socklen_t len = 0;
    sockaddr_storage ss = resolve(o, len);
    Fd fd = make_socket(ss.ss_family, SOCK_DGRAM);
    // A deep receive queue so that a receiver briefly off its CPU loses
    // nothing (FORCE needs CAP_NET_ADMIN; otherwise rmem_max caps it).
    int rcvbuf = 8 << 20;
    if (setsockopt(fd.get(), SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof rcvbuf) != 0)
        setsockopt(fd.get(), SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    if (bind(fd.get(), reinterpret_cast<sockaddr*>(&ss), len) != 0)
        throw Failure(errno_text("bind udp " + o.addr + ":" + std::to_string(o.port)));
    write_ready_file(o.ready_file);
    std::vector<bool> seen(size_t(o.count), false);
    std::vector<unsigned char> buf(65536);
    long received = 0, duplicates = 0, reordered = 0, foreign = 0;
    long highest = -1;
    int64_t last = 0;
    for (;;) {
        if (received == o.count)
            break;
        if (received > 0 && mono_ns() - last > o.idle_ms * 1'000'000)
            break;
        pollfd p{fd.get(), POLLIN, 0};
        int r = 0;
        if (received == 0) {
            r = poll(&p, 1, poll_ms_left());
        } else {
            if (mono_ns() >= g_deadline)
                break;
            r = poll(&p, 1, 20);
        }
        if (r < 0 && errno != EINTR)
            throw Failure(errno_text("poll"));
        if (r <= 0)
            continue;
        for (int i = 0; i < 256; ++i) {
            ssize_t n = recv(fd.get(), buf.data(), buf.size(), 0);
            if (n < 0) {
                if (errno == EAGAIN || errno == EINTR)
                    break;
                throw Failure(errno_text("recv udp"));
            }
            uint32_t hdr[3];
            if (n < 12) {
                ++foreign;
                continue;
            }
            std::memcpy(hdr, buf.data(), sizeof hdr);
            if (ntohl(hdr[0]) != kUdpMagic || long(ntohl(hdr[2])) != o.count || long(ntohl(hdr[1])) >= o.count) {
                ++foreign;
                continue;
            }
            const long seq = long(ntohl(hdr[1]));
            last = mono_ns();
            if (seen[size_t(seq)]) {
                ++duplicates;
                continue;
            }
            seen[size_t(seq)] = true;
            ++received;
            if (seq < highest)
                ++reordered;
            highest = std::max(highest, seq);
        }
    }
    const long lost = o.count - received;
    std::printf("udp expected=%ld received=%ld lost=%ld loss_pct=%.3f duplicates=%ld reordered=%ld foreign=%ld\n",
                o.count, received, lost, 100.0 * double(lost) / double(o.count), duplicates, reordered, foreign);
    return 0;
}

int udp_client(const Options& o)
{
    socklen_t len = 0;
    sockaddr_storage ss = resolve(o, len);
    Fd fd = make_socket(ss.ss_family, SOCK_DGRAM);
    if (connect(fd.get(), reinterpret_cast<sockaddr*>(&ss), len) != 0)
        throw Failure(errno_text("connect udp " + o.addr));
    std::vector<unsigned char> buf(o.size, 0);
    int64_t next = mono_ns();
    long sent = 0, refused = 0;
    for (long seq = 0; seq < o.count; ++seq) {
        const uint32_t hdr[3] = {htonl(kUdpMagic), htonl(uint32_t(seq)), htonl(uint32_t(o.count))};
        std::memcpy(buf.data(), hdr, sizeof hdr);
        for (;;) {
            ssize_t w = send(fd.get(), buf.data(), buf.size(), 0);
            if (w >= 0) {
                ++sent;
                break;
            }
            if (errno == ECONNREFUSED) { // an ICMP error from an earlier datagram: keep going
                ++refused;
                break;
            }
            if (errno != EAGAIN && errno != EINTR && errno != ENOBUFS)
                throw Failure(errno_text("send udp"));
            wait_for(fd.get(), POLLOUT);
        }
        next += o.gap_us * 1000;
        while (mono_ns() < next) {
            if (next - mono_ns() > 200'000) {
                timespec t = ngxnet::to_timespec(next - mono_ns() - 100'000);
                nanosleep(&t, nullptr);
            }
        }
        if (mono_ns() > g_deadline)
            throw Failure("deadline (--timeout) passed while sending");
    }
    std::printf("udp sent=%ld refused=%ld size=%zu\n", sent, refused, o.size);
    return 0;
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
    std::signal(SIGPIPE, SIG_IGN);
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    g_deadline = mono_ns() + int64_t(o.timeout_s * 1e9);
    try {
        if (o.mode == "rtt-server")
            return rtt_server(o);
        if (o.mode == "rtt-client")
            return rtt_client(o);
        if (o.mode == "stream-server")
            return stream_server(o);
        if (o.mode == "stream-client")
            return stream_client(o);
        if (o.mode == "udp-server")
            return udp_server(o);
        return udp_client(o);
    } catch (const UsageError& e) {
        std::fprintf(stderr, "%s: %s\n", kProg, e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s %s: %s\n", kProg, o.mode.c_str(), e.what());
        return 1;
    }
}
