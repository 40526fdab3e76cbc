// ngx module `tcp`: one TCP connection between the two peers, measured with
// plain blocking send()/recv() exactly as hand-written socket code would do.
// With `--tcp-progress poll` the receiver spins on recv(MSG_DONTWAIT) instead
// of sleeping in recv(): a sleeping receiver must be woken by the kernel,
// and on loopback that wake-up is paid inside the sender's send() (it runs
// the receiver's TCP stack), so a send costs more when the peer sleeps
// than when it is busy; polling takes that out, as busy-polling
// applications do.
//
// Setup goes through the bootstrap, never over the measured link: the lower
// rank listens (on `tcp-address` or the bootstrap's local address, port
// `tcp-port`, 0 = ephemeral; `tcp-port` plus its rank with
// `--tcp-port-per-rank yes`, so that a run of many pairs gives each pair's
// connection its own port, one a shaper can classify) and hands "host:port"
// to its peer, which connects to that port of the peer's own address (the
// bootstrap's; a host naming any other is refused). The fast path is one
// send() and one recv() per small message, a loop of them for a large one;
// SO_RCVTIMEO/SO_SNDTIMEO carry the deadline so no extra syscall is needed.
// recv() takes what has arrived rather than waiting with MSG_WAITALL: on
// loopback a 1 MiB ping-pong took 193-264 us with MSG_WAITALL against
// 183-192 us without, the minimal C program's 168-176 (1-byte
// times unchanged).
//
// Send to self (NGX_CAP_SEND_TO_SELF, set_layout with to_self; the strided
// pattern's T_0,0): a second TCP connection, from this process to itself
// over the loopback, opened at the first such call. Its sockets are
// non-blocking: send() pushes what the socket takes and leaves the rest to
// the recv() that follows, which pushes it while it drains the other end,
// since one thread cannot block in both.
#include <ngx/module.h>
#include <ngx/module_support.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <utility>
#include <vector>

namespace {

using ngx::mod::errno_text;
using ngx::mod::fail;

constexpr size_t buffer_alignment = 64;
constexpr int retry_pause_ms = 20;

struct Options {
    std::string address; // empty: use the bootstrap's local address
    uint16_t port = 0;
    bool port_per_rank = false; // listen on port + the listening rank
    int sndbuf = 0;             // 0: kernel default
    int rcvbuf = 0;
    bool poll = false; // --tcp-progress poll: spin on recv(MSG_DONTWAIT)
};

// The loopback connection of send to self: `out` was connected to a
// listener of this process, whose accept() gave `in`.
struct SelfLink {
    int out = -1;
    int in = -1;
    const char* pending = nullptr; // what send() left for recv() to push
    size_t pending_len = 0;
};

struct Context {
    Options options;
    uint64_t timeout_ns = 0;
    const volatile int* cancel = nullptr;
    int fd = -1;          // the selected peer's connection
    bool to_self = false; // set_layout's to_self: send/recv go through `self`
    SelfLink self;
    std::vector<std::pair<int, int>> links; // ABI 1.5: (peer rank, connection), one per peer
};

// ---- options ------------------------------------------------------------

namespace row = ngx::opt::row;
constexpr auto tcp_address =
    row::text("tcp-address", ngx::opt::no_default, "address to listen on (default: the bootstrap's local address)");
constexpr auto tcp_port = row::whole_number("tcp-port", "0", 0, 65535, "port to listen on; 0 picks a free one");
constexpr auto tcp_port_per_rank = row::yes_no(
    "tcp-port-per-rank", "no",
    "yes: the listening rank listens on tcp-port + its rank (each pair its own port, e.g. for per-pair tc classes)");
constexpr auto tcp_sndbuf = row::byte_count("tcp-sndbuf", "0", 0, 1u << 30, "SO_SNDBUF; 0 keeps the kernel default");
constexpr auto tcp_rcvbuf = row::byte_count("tcp-rcvbuf", "0", 0, 1u << 30, "SO_RCVBUF; 0 keeps the kernel default");
constexpr auto tcp_progress =
    row::choice("tcp-progress", "block", {"block", "poll"},
                "receive by a blocking recv() (block) or by spinning on recv(MSG_DONTWAIT) (poll)");
const ngx::mod::OptionTable option_table("tcp", {tcp_address, tcp_port, tcp_port_per_rank, tcp_sndbuf, tcp_rcvbuf,
                                                 tcp_progress});

ngx_status parse_options(const ngx_init_args* args, Options* out, ngx_error* err)
{
    ngx::mod::ModuleOptions read(args, option_table);
    Options options;
    options.address = read(tcp_address);
    options.port = uint16_t(read(tcp_port));
    options.port_per_rank = read(tcp_port_per_rank);
    if (options.port_per_rank && options.port == 0 && read.ok())
        read.reject(tcp_port_per_rank, "needs a --tcp-port other than 0 (0 picks a free port anyway)");
    options.sndbuf = int(read(tcp_sndbuf));
    options.rcvbuf = int(read(tcp_rcvbuf));
    options.poll = read(tcp_progress) == "poll";
    if (ngx_status s = read.status(err); s != NGX_OK)
        return s;
    *out = options;
    return NGX_OK;
}

// ---- socket helpers -----------------------------------------------------

class Socket {
public:
    Socket() = default;
    explicit Socket(int fd) : fd_(fd) {}
    Socket(const Socket&) = delete;
    Socket& operator=(const Socket&) = delete;
    Socket(Socket&& other) noexcept : fd_(other.release()) {}
    Socket& operator=(Socket&& other) noexcept
    {
        reset(other.release());
        return *this;
    }
    ~Socket() { reset(-1); }

    int get() const { return fd_; }
    bool valid() const { return fd_ >= 0; }
    int release()
    {
        int fd = fd_;
        fd_ = -1;
        return fd;
    }
    void reset(int fd)
    {
        if (fd_ >= 0)
            ::close(fd_);
        fd_ = fd;
    }

private:
    int fd_ = -1;
};

ngx_status set_int_option(int fd, int level, int name, int value, const char* what, ngx_error* err)
{
    if (setsockopt(fd, level, name, &value, sizeof value) != 0)
        return fail(err, NGX_ERR_SYSTEM, "setsockopt(%s=%d): %s", what, value, errno_text(errno));
    return NGX_OK;
}

// Buffer sizes go on a socket before listen()/connect() so that the window
// scale negotiated in the handshake can use them.
ngx_status apply_buffer_sizes(int fd, const Options& options, ngx_error* err)
{
    if (options.sndbuf > 0)
        if (ngx_status s = set_int_option(fd, SOL_SOCKET, SO_SNDBUF, options.sndbuf, "SO_SNDBUF", err); s != NGX_OK)
            return s;
    if (options.rcvbuf > 0)
        if (ngx_status s = set_int_option(fd, SOL_SOCKET, SO_RCVBUF, options.rcvbuf, "SO_RCVBUF", err); s != NGX_OK)
            return s;
    return NGX_OK;
}

ngx_status set_blocking(int fd, bool blocking, ngx_error* err)
{
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0)
        return fail(err, NGX_ERR_SYSTEM, "fcntl(F_GETFL): %s", errno_text(errno));
    flags = blocking ? (flags & ~O_NONBLOCK) : (flags | O_NONBLOCK);
    if (fcntl(fd, F_SETFL, flags) != 0)
        return fail(err, NGX_ERR_SYSTEM, "fcntl(F_SETFL): %s", errno_text(errno));
    return NGX_OK;
}

ngx_status set_io_timeouts(int fd, uint64_t timeout_ns, ngx_error* err)
{
    timeval tv{};
    tv.tv_sec = time_t(timeout_ns / 1000000000u);
    tv.tv_usec = suseconds_t((timeout_ns % 1000000000u) / 1000u);
    if (tv.tv_sec == 0 && tv.tv_usec == 0 && timeout_ns > 0)
        tv.tv_usec = 1; // a zero timeval would mean "wait forever"
    if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0 ||
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0)
        return fail(err, NGX_ERR_SYSTEM, "setsockopt(SO_RCVTIMEO/SO_SNDTIMEO): %s", errno_text(errno));
    return NGX_OK;
}

// The connected socket as the fast path wants it: blocking, no Nagle,
// kernel-side deadlines.
ngx_status prepare_connected(int fd, uint64_t timeout_ns, ngx_error* err)
{
    if (ngx_status s = set_blocking(fd, true, err); s != NGX_OK)
        return s;
    if (ngx_status s = set_int_option(fd, IPPROTO_TCP, TCP_NODELAY, 1, "TCP_NODELAY", err); s != NGX_OK)
        return s;
    return set_io_timeouts(fd, timeout_ns, err);
}

// "host:port" or "[v6host]:port", split; false if there is no port.
bool split_host_port(const std::string& text, std::string* host, std::string* port)
{
    size_t colon = text.rfind(':');
    if (colon == std::string::npos || colon + 1 == text.size())
        return false;
    std::string h = text.substr(0, colon);
    if (h.size() >= 2 && h.front() == '[' && h.back() == ']')
        h = h.substr(1, h.size() - 2);
    *host = h;
    *port = text.substr(colon + 1);
    return true;
}

std::string join_host_port(const sockaddr_storage& addr)
{
    char host[INET6_ADDRSTRLEN] = "";
    char text[INET6_ADDRSTRLEN + 16];
    if (addr.ss_family == AF_INET6) {
        const auto& a6 = reinterpret_cast<const sockaddr_in6&>(addr);
        inet_ntop(AF_INET6, &a6.sin6_addr, host, sizeof host);
        std::snprintf(text, sizeof text, "[%s]:%u", host, unsigned(ntohs(a6.sin6_port)));
    } else {
        const auto& a4 = reinterpret_cast<const sockaddr_in&>(addr);
        inet_ntop(AF_INET, &a4.sin_addr, host, sizeof host);
        std::snprintf(text, sizeof text, "%s:%u", host, unsigned(ntohs(a4.sin_port)));
    }
    return text;
}

bool is_wildcard(const sockaddr_storage& addr)
{
    if (addr.ss_family == AF_INET6) {
        const auto& a6 = reinterpret_cast<const sockaddr_in6&>(addr);
        return IN6_IS_ADDR_UNSPECIFIED(&a6.sin6_addr);
    }
    return reinterpret_cast<const sockaddr_in&>(addr).sin_addr.s_addr == htonl(INADDR_ANY);
}

class AddrInfo {
public:
    ~AddrInfo()
    {
        if (list_ != nullptr)
            freeaddrinfo(list_);
    }
    ngx_status resolve(const char* host, const char* port, bool passive, const char* step, ngx_error* err)
    {
        addrinfo hints{};
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        hints.ai_flags = passive ? AI_PASSIVE : 0;
        int rc = getaddrinfo(host, port, &hints, &list_);
        if (rc != 0)
            return fail(err, NGX_ERR_SYSTEM, "%s: cannot resolve \"%s\": %s", step, host ? host : "*",
                        gai_strerror(rc));
        return NGX_OK;
    }
    const addrinfo* begin() const { return list_; }

private:
    addrinfo* list_ = nullptr;
};

// ---- connection setup -----------------------------------------------------

std::string listen_host(const Context& c, const ngx_bootstrap* boot)
{
    if (!c.options.address.empty())
        return c.options.address;
    if (boot->local_address != nullptr)
        return boot->local_address;
    return "";
}

// The port the listening rank binds: tcp-port, plus the rank with --tcp-port-per-rank.
ngx_status listen_port(const Context& c, const ngx_bootstrap* boot, std::string* out, ngx_error* err)
{
    unsigned port = c.options.port;
    if (c.options.port_per_rank)
        port += unsigned(boot->rank);
    if (port > 65535)
        return fail(err, NGX_ERR_INVALID_OPTION, "--tcp-port %u plus rank %d is above 65535 (--tcp-port-per-rank)",
                    unsigned(c.options.port), boot->rank);
    *out = std::to_string(port);
    return NGX_OK;
}

ngx_status open_listener(const Context& c, const std::string& host, const std::string& port, Socket* out,
                         ngx_error* err)
{
    AddrInfo addresses;
    if (ngx_status s = addresses.resolve(host.empty() ? nullptr : host.c_str(), port.c_str(), true, "listen", err);
        s != NGX_OK)
        return s;
    int last_errno = 0;
    for (const addrinfo* ai = addresses.begin(); ai != nullptr; ai = ai->ai_next) {
        Socket s(socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol));
        if (!s.valid()) {
            last_errno = errno;
            continue;
        }
        int one = 1;
        if (c.options.port != 0)
            setsockopt(s.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (ngx_status st = apply_buffer_sizes(s.get(), c.options, err); st != NGX_OK)
            return st;
        if (bind(s.get(), ai->ai_addr, ai->ai_addrlen) == 0 && listen(s.get(), 1) == 0) {
            *out = std::move(s);
            return NGX_OK;
        }
        last_errno = errno;
    }
    return fail(err, NGX_ERR_SYSTEM, "listen on %s:%s: %s", host.empty() ? "*" : host.c_str(), port.c_str(),
                errno_text(last_errno));
}

// What the listening rank tells its peer: the bound address, or only the port
// when it listens on every address (the peer then uses its peer_address).
ngx_status describe_listener(int fd, std::string* out, ngx_error* err)
{
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
        return fail(err, NGX_ERR_SYSTEM, "getsockname: %s", errno_text(errno));
    std::string text = join_host_port(addr);
    if (is_wildcard(addr))
        text = text.substr(text.rfind(':')); // ":port"
    *out = text;
    return NGX_OK;
}

ngx_status accept_peer(Context* c, int listener, ngx_error* err)
{
    ngx::mod::Deadline deadline(c->timeout_ns);
    for (;;) {
        if (ngx_status s = ngx::mod::wait_fd(listener, POLLIN, deadline, c->cancel, "accept", err); s != NGX_OK)
            return s;
        int fd = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd >= 0) {
            c->fd = fd;
            return prepare_connected(fd, c->timeout_ns, err);
        }
        if (errno != EINTR && errno != ECONNABORTED && errno != EAGAIN)
            return fail(err, NGX_ERR_SYSTEM, "accept: %s", errno_text(errno));
    }
}

// One non-blocking connect attempt, completed with poll() under the deadline.
// Returns the errno of a failed attempt in *attempt_errno with NGX_OK status
// so that the caller can decide to retry.
ngx_status try_connect(Context* c, const addrinfo* ai, const ngx::mod::Deadline& deadline, Socket* out,
                       int* attempt_errno, ngx_error* err)
{
    Socket s(socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol));
    if (!s.valid())
        return fail(err, NGX_ERR_SYSTEM, "socket: %s", errno_text(errno));
    if (ngx_status st = apply_buffer_sizes(s.get(), c->options, err); st != NGX_OK)
        return st;
    *attempt_errno = 0;
    if (::connect(s.get(), ai->ai_addr, ai->ai_addrlen) != 0) {
        if (errno != EINPROGRESS) {
            *attempt_errno = errno;
            return NGX_OK;
        }
        if (ngx_status st = ngx::mod::wait_fd(s.get(), POLLOUT, deadline, c->cancel, "connect", err); st != NGX_OK)
            return st;
        socklen_t len = sizeof *attempt_errno;
        getsockopt(s.get(), SOL_SOCKET, SO_ERROR, attempt_errno, &len);
        if (*attempt_errno != 0)
            return NGX_OK;
    }
    *out = std::move(s);
    return NGX_OK;
}

ngx_status connect_to(Context* c, const std::string& host, const std::string& port, ngx_error* err)
{
    AddrInfo addresses;
    if (ngx_status s = addresses.resolve(host.c_str(), port.c_str(), false, "connect", err); s != NGX_OK)
        return s;
    ngx::mod::Deadline deadline(c->timeout_ns);
    int last_errno = 0;
    for (;;) {
        for (const addrinfo* ai = addresses.begin(); ai != nullptr; ai = ai->ai_next) {
            Socket s;
            if (ngx_status st = try_connect(c, ai, deadline, &s, &last_errno, err); st != NGX_OK)
                return st;
            if (s.valid()) {
                c->fd = s.release();
                return prepare_connected(c->fd, c->timeout_ns, err);
            }
        }
        if (deadline.remaining_ms() <= retry_pause_ms)
            return fail(err, NGX_ERR_TIMEOUT, "connect to %s:%s: %s (gave up after %.1f s)", host.c_str(), port.c_str(),
                        errno_text(last_errno), deadline.seconds());
        if (ngx::mod::cancelled(c->cancel))
            return fail(err, NGX_ERR_INTERRUPTED, "connect: interrupted");
        poll(nullptr, 0, retry_pause_ms);
    }
}

ngx_status connect_as_listener(Context* c, const ngx_bootstrap* boot, ngx_error* err)
{
    std::string port;
    if (ngx_status s = listen_port(*c, boot, &port, err); s != NGX_OK)
        return s;
    Socket listener;
    if (ngx_status s = open_listener(*c, listen_host(*c, boot), port, &listener, err); s != NGX_OK)
        return s;
    std::string mine;
    std::string ignored;
    if (ngx_status s = describe_listener(listener.get(), &mine, err); s != NGX_OK)
        return s;
    if (ngx_status s = ngx::mod::exchange_blob(boot, mine, &ignored, 512, err); s != NGX_OK)
        return s;
    return accept_peer(c, listener.get(), err); // the listener closes on return
}

ngx_status connect_as_dialer(Context* c, const ngx_bootstrap* boot, ngx_error* err)
{
    std::string theirs;
    if (ngx_status s = ngx::mod::exchange_blob(boot, "connect", &theirs, 512, err); s != NGX_OK)
        return s;
    std::string host;
    std::string port;
    if (!split_host_port(theirs, &host, &port))
        return fail(err, NGX_ERR_PROTOCOL, "connect: the peer sent \"%s\", expected host:port", theirs.c_str());
    // Only the peer's own host is dialled (where its bootstrap connection
    // comes from): a peer that could name any host could make this side, a
    // --listen server on behalf of whoever connects, open a connection anywhere.
    std::string peer_host = boot->peer_address != nullptr ? boot->peer_address : "127.0.0.1";
    if (!host.empty() &&
        (ngx::mod::address_key(host).empty() || ngx::mod::address_key(host) != ngx::mod::address_key(peer_host)))
        return fail(err, NGX_ERR_PROTOCOL,
                    "connect: the peer asks to be reached at %s, but it is at %s; this side dials only the peer's own "
                    "address, so that a peer cannot make it connect to another host (on the listening side, leave "
                    "--tcp-address out or give the address its bootstrap uses)",
                    host.c_str(), peer_host.c_str());
    return connect_to(c, peer_host, port, err);
}

// ---- message path -----------------------------------------------------------

// Turns the errno of a failed send()/recv() into a status, or NGX_OK when the
// call was only interrupted by a signal and should be retried.
ngx_status io_failure(const Context* c, const char* step, ngx_error* err)
{
    int e = errno;
    if (e == EINTR)
        return ngx::mod::cancelled(c->cancel) ? fail(err, NGX_ERR_INTERRUPTED, "%s: interrupted", step) : NGX_OK;
    if (e == EAGAIN || e == EWOULDBLOCK)
        return fail(err, NGX_ERR_TIMEOUT, "%s: no progress from the peer within %.1f s (is it alive?)", step,
                    double(c->timeout_ns) / 1e9);
    if (e == ECONNRESET || e == EPIPE || e == ENOTCONN || e == ETIMEDOUT || e == EHOSTUNREACH)
        return fail(err, NGX_ERR_PEER_LOST, "%s: the peer closed the connection (%s)", step, errno_text(e));
    return fail(err, NGX_ERR_SYSTEM, "%s: %s", step, errno_text(e));
}

// A short transfer means a signal or a timeout cut the call; a raised cancel
// flag stops there, anything else goes round the loop again.
ngx_status after_short_transfer(const Context* c, const char* step, ngx_error* err)
{
    if (ngx::mod::cancelled(c->cancel))
        return fail(err, NGX_ERR_INTERRUPTED, "%s: interrupted", step);
    return NGX_OK;
}

// ---- send to self --------------------------------------------------------------

// Opens the loopback connection of this process to itself, both ends
// non-blocking and without Nagle.
ngx_status open_self_link(Context* c, ngx_error* err)
{
    sockaddr_storage mine{};
    socklen_t len = sizeof mine;
    bool v6 = getsockname(c->fd, reinterpret_cast<sockaddr*>(&mine), &len) == 0 && mine.ss_family == AF_INET6;
    Socket listener;
    if (ngx_status s = open_listener(*c, v6 ? "::1" : "127.0.0.1", "0", &listener, err); s != NGX_OK)
        return s;
    std::string where, host, port;
    if (ngx_status s = describe_listener(listener.get(), &where, err); s != NGX_OK)
        return s;
    AddrInfo address;
    if (!split_host_port(where, &host, &port))
        return fail(err, NGX_ERR_SYSTEM, "send to self: the loopback listener is at \"%s\"", where.c_str());
    if (ngx_status s = address.resolve(host.c_str(), port.c_str(), false, "connect to self", err); s != NGX_OK)
        return s;
    ngx::mod::Deadline deadline(c->timeout_ns);
    Socket out;
    int connect_errno = 0;
    if (ngx_status s = try_connect(c, address.begin(), deadline, &out, &connect_errno, err); s != NGX_OK)
        return s;
    if (!out.valid())
        return fail(err, NGX_ERR_SYSTEM, "send to self: connect to %s: %s", where.c_str(), errno_text(connect_errno));
    if (ngx_status s = ngx::mod::wait_fd(listener.get(), POLLIN, deadline, c->cancel, "accept from self", err);
        s != NGX_OK)
        return s;
    Socket in(accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
    if (!in.valid())
        return fail(err, NGX_ERR_SYSTEM, "send to self: accept: %s", errno_text(errno));
    for (int fd : {out.get(), in.get()})
        if (ngx_status s = set_int_option(fd, IPPROTO_TCP, TCP_NODELAY, 1, "TCP_NODELAY", err); s != NGX_OK)
            return s;
    c->self.out = out.release();
    c->self.in = in.release();
    return NGX_OK;
}

// A send(MSG_DONTWAIT) of what is pending; false on a real error (status in *s).
bool push_pending(Context* c, ngx_status* s, ngx_error* err)
{
    SelfLink& l = c->self;
    if (l.pending_len == 0)
        return true;
    ssize_t n = ::send(l.out, l.pending, l.pending_len, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) {
        l.pending += n;
        l.pending_len -= size_t(n);
    } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        *s = io_failure(c, "send to self", err);
        return false;
    }
    return true;
}

ngx_status self_send(Context* c, const char* p, size_t len, ngx_error* err)
{
    if (c->self.pending_len != 0)
        return fail(err, NGX_ERR_PROTOCOL, "send to self: the previous message (%zu bytes left) was not received",
                    c->self.pending_len);
    c->self.pending = p;
    c->self.pending_len = len;
    ngx_status s = NGX_OK;
    push_pending(c, &s, err);
    return s;
}

ngx_status self_recv(Context* c, char* p, size_t len, ngx_error* err)
{
    ngx::mod::Deadline deadline(c->timeout_ns);
    while (len > 0) {
        ngx_status s = NGX_OK;
        size_t before = c->self.pending_len;
        if (!push_pending(c, &s, err))
            return s;
        ssize_t n = ::recv(c->self.in, p, len, MSG_DONTWAIT);
        if (n > 0) {
            p += n;
            len -= size_t(n);
            continue;
        }
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            return io_failure(c, "recv from self", err);
        if (c->self.pending_len != before)
            continue;
        if (deadline.poll_expired())
            return fail(err, NGX_ERR_TIMEOUT, "recv from self: %zu bytes missing after %.1f s (more than was sent?)",
                        len, deadline.seconds());
        if (ngx::mod::cancelled(c->cancel))
            return fail(err, NGX_ERR_INTERRUPTED, "recv from self: interrupted");
    }
    return NGX_OK;
}

// Only the address changes: tcp moves bytes, the pattern packs strided data.
ngx_status tcp_set_layout(void* ctx, const ngx_layout* layout, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (layout->stride != 1)
        return fail(err, NGX_ERR_UNSUPPORTED, "set_layout: tcp moves contiguous bytes, not stride %zu", layout->stride);
    if (layout->to_self && c->self.out < 0)
        if (ngx_status s = open_self_link(c, err); s != NGX_OK)
            return s;
    c->to_self = layout->to_self != 0;
    return NGX_OK;
}

// ---- message path (continued) ---------------------------------------------------

ngx_status tcp_send(void* ctx, const void* buf, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    const char* p = static_cast<const char*>(buf);
    if (c->to_self) [[unlikely]]
        return self_send(c, p, len, err);
    for (;;) {
        ssize_t n = ::send(c->fd, p, len, MSG_NOSIGNAL);
        if (n == ssize_t(len))
            return NGX_OK;
        ngx_status s = n < 0 ? io_failure(c, "send", err) : after_short_transfer(c, "send", err);
        if (s != NGX_OK)
            return s;
        if (n > 0) {
            p += n;
            len -= size_t(n);
        }
    }
}

// --tcp-progress poll: recv(MSG_DONTWAIT) until the whole message is there,
// the deadline checked every 1024 empty polls.
ngx_status tcp_recv_polling(Context* c, char* p, size_t len, ngx_error* err)
{
    ngx::mod::Deadline deadline(c->timeout_ns);
    while (len > 0) {
        ssize_t n = ::recv(c->fd, p, len, MSG_DONTWAIT);
        if (n > 0) {
            p += n;
            len -= size_t(n);
            continue;
        }
        if (n == 0)
            return fail(err, NGX_ERR_PEER_LOST, "recv: the peer closed the connection");
        if (errno != EAGAIN && errno != EWOULDBLOCK) {
            if (ngx_status s = io_failure(c, "recv", err); s != NGX_OK)
                return s;
        } else if (deadline.poll_expired()) {
            return fail(err, NGX_ERR_TIMEOUT, "recv: no progress from the peer within %.1f s (is it alive?)",
                        deadline.seconds());
        } else if (ngx::mod::cancelled(c->cancel)) {
            return fail(err, NGX_ERR_INTERRUPTED, "recv: interrupted");
        }
    }
    return NGX_OK;
}

ngx_status tcp_recv(void* ctx, void* buf, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    char* p = static_cast<char*>(buf);
    if (c->to_self) [[unlikely]]
        return self_recv(c, p, len, err);
    if (c->options.poll)
        return tcp_recv_polling(c, p, len, err);
    for (;;) {
        ssize_t n = ::recv(c->fd, p, len, 0);
        if (n == ssize_t(len))
            return NGX_OK;
        if (n == 0)
            return fail(err, NGX_ERR_PEER_LOST, "recv: the peer closed the connection");
        ngx_status s = n < 0 ? io_failure(c, "recv", err) : after_short_transfer(c, "recv", err);
        if (s != NGX_OK)
            return s;
        if (n > 0) {
            p += n;
            len -= size_t(n);
        }
    }
}

// ---- lifecycle ---------------------------------------------------------------

ngx_status tcp_init(const ngx_init_args* args, void** ctx, ngx_error* err)
{
    Options options;
    if (ngx_status s = parse_options(args, &options, err); s != NGX_OK)
        return s;
    auto* c = new (std::nothrow) Context;
    if (c == nullptr)
        return fail(err, NGX_ERR_NO_MEMORY, "init: out of memory");
    c->options = options;
    c->timeout_ns = args->timeout_ns;
    c->cancel = args->cancel;
    *ctx = c;
    return NGX_OK;
}

ngx_status tcp_connect(void* ctx, const ngx_bootstrap* boot, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (c->fd >= 0)
        return fail(err, NGX_ERR_PROTOCOL, "connect: already connected");
    if (boot->peer == boot->rank) // ABI 1.5: set up only; the connections come from open_link
        return NGX_OK;
    ngx_status s = boot->rank < boot->peer ? connect_as_listener(c, boot, err) : connect_as_dialer(c, boot, err);
    if (s == NGX_OK)
        c->links.emplace_back(boot->peer, c->fd);
    return s;
}

// ABI 1.5 select_peer: send and recv use the connection to `peer`.
ngx_status tcp_select_peer(void* ctx, int peer, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    for (const auto& [rank, fd] : c->links)
        if (rank == peer) {
            c->fd = fd;
            return NGX_OK;
        }
    return fail(err, NGX_ERR_PROTOCOL, "select_peer: no connection to rank %d was opened", peer);
}

// ABI 1.5 open_link: one more connection, made as connect makes the first
// (the lower rank listens, the other dials the address it was given), and
// selected.
ngx_status tcp_open_link(void* ctx, const ngx_bootstrap* boot, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    for (const auto& link : c->links)
        if (link.first == boot->peer)
            return fail(err, NGX_ERR_PROTOCOL, "open_link: the connection to rank %d is open already", boot->peer);
    const int selected = std::exchange(c->fd, -1);
    ngx_status s = boot->rank < boot->peer ? connect_as_listener(c, boot, err) : connect_as_dialer(c, boot, err);
    if (s != NGX_OK) {
        c->fd = selected;
        return s;
    }
    c->links.emplace_back(boot->peer, c->fd);
    return NGX_OK;
}

void tcp_finalize(void* ctx)
{
    auto* c = static_cast<Context*>(ctx);
    if (c == nullptr)
        return;
    for (const auto& link : c->links)
        if (link.second == c->fd)
            c->fd = -1; // closed below with the other links
    for (const auto& link : c->links)
        ::close(link.second);
    for (int fd : {c->fd, c->self.out, c->self.in})
        if (fd >= 0)
            ::close(fd);
    delete c;
}

const ngx_module_ops tcp_ops = {
    sizeof(ngx_module_ops),
    tcp_init,
    tcp_connect,
    ngx::mod::heap_alloc<buffer_alignment>,
    ngx::mod::heap_free,
    tcp_send,
    tcp_recv,
    nullptr, // isend
    nullptr, // irecv
    nullptr, // test
    nullptr, // wait
    tcp_finalize,
    nullptr, // resync: reliable, nothing is ever lost
    tcp_set_layout,
    nullptr, // bcast
    nullptr, // prepare_recv
    nullptr, // virtual_clock: real time
    tcp_open_link,
    tcp_select_peer,
};

const ngx_module tcp_module = {
    NGX_MODULE_ABI_MAJOR,
    NGX_MODULE_ABI_MINOR,
    sizeof(ngx_module),
    "tcp",
    "TCP sockets: blocking send/recv over one connection per peer with TCP_NODELAY",
    "1.0",
    NGX_CAP_RELIABLE | NGX_CAP_SEND_TO_SELF | NGX_CAP_PEER_LINKS,
    0,
    option_table.specs(),
    option_table.size(),
    &tcp_ops,
};

} // namespace

NGX_MODULE_EXPORT(tcp_module)
