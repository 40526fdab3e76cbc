// ngx module `udp`: messages as UDP datagrams on one connected socket per
// peer, with loss detected instead of waited for.
//
// Setup (connect) goes through the bootstrap, never over the measured link:
// each peer binds a UDP socket to `udp-address` (default: the bootstrap's
// local address) on `udp-port` (0: ephemeral; otherwise the lower rank takes
// P and the higher P + 1, so both fit on one host), the peers swap
// "address port" and connect() their sockets to each other. A second swap
// agrees on the datagram size: the smaller of the two sides' `udp-mtu-payload`
// (auto: the path MTU the kernel reports for the connected socket, minus the
// IP and UDP headers; 65507 on IPv4 loopback, 1472 on a 1500-byte Ethernet
// link), so that no datagram needs IP fragmentation.
//
// Wire format and reassembly: see fragment.hpp. A message that fits one
// datagram costs one send and one receive system call: up to 1 KiB a plain
// send()/recv() of header + payload through a small copy (cheaper than an
// iovec, see bounce_limit), above that sendmsg()/recvmsg() straight from and
// into the caller's buffer. A larger message goes as numbered fragments
// (sendmmsg() in batches of 64) reassembled in place in the caller's buffer.
// Nothing is allocated per message.
//
// Loss semantics (what a pattern can rely on):
// - Each direction numbers its messages; send() always uses the next number,
//   retries included. recv() accepts the oldest message it has not yet
//   completed or given up on, or any newer one (the sender moved on), and
//   drops stale datagrams (older messages, late fragments of a message it gave
//   up on) and duplicates. It never returns an older message than the last.
// - recv() declares the message lost and returns NGX_ERR_LOST ("message seq
//   N, size S lost: k/m fragments arrived ...", or "the peer already sent
//   message seq M": the peer is alive) or, when nothing at all arrived,
//   NGX_ERR_TIMEOUT (0/m fragments: lost, or the peer is silent) when nothing new of it
//   arrived for T = min(udp-loss-timeout-us, the core's timeout): T after the
//   last new fragment, so a large message on a slow link is not lost merely
//   for taking long; for the first datagram T plus an allowance for the peer
//   to have received a message as large first (ping-pong): len at 100 Mbit/s
//   or 50 us per datagram, whichever is longer (about 0.05 ms for 1 byte, 84
//   ms for 1 MiB). The core's timeout bounds the whole call. The peer must
//   therefore start sending within that time of the recv() call; slow phases
//   belong behind a bootstrap barrier. send() never waits for the peer. A newer message of
//   another length than the receive's also ends it as lost, at once.
// - NGX_ERR_PROTOCOL means a real disagreement (the awaited message itself
//   has another length, or a malformed datagram), not a loss.
// - Resynchronising a ping-pong after a loss (ABI 1.1: the resync op): the side whose recv() timed out
//   stops using the link and goes to a bootstrap resync point; so does the
//   other side, whose next recv() times out because nobody sends. Lost ping:
//   both time out. Lost pong: the responder answered and waits for the next
//   ping, which never comes. At the resync point (bootstrap exchange) the
//   driver's count of completed round trips is the truth; both call
//   resync(), which swaps each side's next send sequence number through the
//   bootstrap: every datagram still in flight is older than that and counts
//   as stale, even one delayed beyond the loss timeout. Do not resend on the
//   link without that resync: after a lost pong the responder would take the
//   resent ping as the next one and the two sides would drift one round trip
//   apart.
//
// Waiting: by default a blocking receive whose SO_RCVTIMEO is a slice of the
// deadline (so cancel and the deadline are checked while idle, at no cost on
// the fast path); with `udp-busy-poll` a spin on MSG_DONTWAIT receives.
// Errors: EINTR retries unless the cancel flag is raised; ECONNREFUSED (ICMP
// port unreachable on a connected socket) means the peer is gone.
#include "fragment.hpp"

#include <ngx/module.h>
#include <ngx/module_support.hpp>

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

namespace {

using ngx::mod::errno_text;
using ngx::mod::fail;
using ngx::udp::Header;
using ngx::udp::header_size;
using ngx::udp::Layout;
using ngx::udp::Reassembly;
using ngx::udp::Verdict;

constexpr size_t send_batch = 64; // datagrams per sendmmsg()
// Messages up to this size go through a copy in `bounce` and plain send()/recv():
// measured on loopback, sendmsg()/recvmsg() with a header iovec cost 0.2 us
// more per call than the copy of a small payload.
constexpr size_t bounce_limit = 1024;
constexpr size_t max_payload_v4 = 65507; // 65535 - 20 (IPv4) - 8 (UDP)
constexpr size_t max_payload_v6 = 65527; // 65535 - 8 (UDP); the IPv6 header is outside
constexpr size_t ip_overhead_v4 = 20 + 8;
constexpr size_t ip_overhead_v6 = 40 + 8;
constexpr size_t min_buffer_auto = size_t{16} << 20; // a limit, not an allocation: bursts of messages fit
constexpr size_t datagram_overhead = 1024;           // sk_buff, headers and allocation slack per queued datagram
constexpr size_t max_buffer_auto = size_t{256} << 20;
constexpr size_t presized_message = size_t{64} << 20; // larger messages size the fragment bitmap on first use
constexpr uint64_t ms = 1000000;
// Before the first datagram of a message arrives, the peer may first have had
// to receive one as large (ping-pong): the wait allows for that at no less
// than 100 Mbit/s and 50 us per datagram, on top of the loss timeout.
constexpr uint64_t allowance_ns_per_byte = 80;
constexpr uint64_t allowance_ns_per_datagram = 50000;
constexpr const char* blob_tag = "ngx-udp/1";

struct Options {
    std::string address;    // empty: the bootstrap's local address
    uint16_t port = 0;      // 0: ephemeral
    size_t mtu_payload = 0; // UDP payload per datagram incl. our header; 0: auto
    uint64_t loss_timeout_ns = 100 * ms;
    bool busy_poll = false;
    size_t buffer = 0; // SO_RCVBUF/SO_SNDBUF; 0: auto
};

// The headers and vectors of one sendmmsg() batch, built once.
struct SendBatch {
    std::array<std::array<unsigned char, header_size>, send_batch> headers{};
    std::array<std::array<iovec, 2>, send_batch> iov{};
    std::array<mmsghdr, send_batch> msgs{};
};

struct Context {
    Options options;
    uint64_t timeout_ns = 0; // the core's bound on every blocking step; 0: none
    const volatile int* cancel = nullptr;
    size_t max_message = 0;
    int fd = -1;
    Layout layout;
    Reassembly reassembly{layout};
    std::vector<unsigned char> scratch; // overflow of a fragment guessed into the short last slot
    alignas(64) std::array<unsigned char, header_size + bounce_limit> bounce{}; // small messages, header first
    SendBatch batch;
    uint32_t send_seq = 0;
    uint64_t recv_budget_ns = 0; // min(loss timeout, core timeout)
    uint64_t slice_ns = 0;       // SO_RCVTIMEO / SO_SNDTIMEO
    uint64_t stale = 0;          // datagrams dropped as stale, for messages
    uint64_t duplicates = 0;
};

// ---- deadlines -------------------------------------------------------------

// A deadline that costs nothing until the first idle wait: the clock is read
// only once the socket reported that it had nothing for `waited_ns`, and the
// wait is counted from when that idle period began. A budget of 0 never ends.
class LazyDeadline {
public:
    explicit LazyDeadline(uint64_t budget_ns) : budget_ns_(budget_ns) {}

    // Starts counting now rather than at the first idle wait.
    void start_now() { end_ns_ = ngx::mod::monotonic_ns() + budget_ns_; }
    // Progress was made: count `budget_ns` again from the next idle wait.
    void restart(uint64_t budget_ns)
    {
        budget_ns_ = budget_ns;
        end_ns_ = 0;
    }

    bool expired(uint64_t waited_ns)
    {
        if (budget_ns_ == 0)
            return false;
        uint64_t now = ngx::mod::monotonic_ns();
        if (end_ns_ == 0)
            end_ns_ = now - std::min(waited_ns, now) + budget_ns_;
        return now >= end_ns_;
    }

private:
    uint64_t budget_ns_;
    uint64_t end_ns_ = 0;
};

// ---- options ---------------------------------------------------------------

const ngx_option_spec option_specs[] = {
    {"udp-address", nullptr, "address to bind (default: the bootstrap's local address)"},
    {"udp-port", "0", "port to bind, 0 picks a free one; with P the lower rank binds P and its peer P+1"},
    {"udp-mtu-payload", "auto",
     "UDP payload bytes per datagram, including the 16-byte ngx header; auto: path MTU minus IP/UDP headers "
     "(1472 on 1500-byte Ethernet, 65507 on loopback); the peers use the smaller of their two values"},
    {"udp-loss-timeout-us", "100000",
     "a message is lost (NGX_ERR_LOST; NGX_ERR_TIMEOUT when nothing arrived) when nothing new of it arrives for "
     "this long: since recv() began, "
     "then since its last fragment; at most the core's --timeout"},
    {"udp-busy-poll", "0", "1: spin on non-blocking receives instead of blocking (one core per process)"},
    {"udp-buffer", "auto",
     "SO_RCVBUF and SO_SNDBUF in bytes; auto: room for 2 of the largest messages as the kernel counts them, "
     "16 MiB to 256 MiB"},
};

ngx_status parse_size_or_auto(const ngx_init_args* args, const char* name, uint64_t min, uint64_t max, size_t* out,
                              ngx_error* err)
{
    const char* text = ngx::mod::option(args, name);
    if (text == nullptr || std::strcmp(text, "auto") == 0)
        return NGX_OK;
    auto value = ngx::mod::parse_unsigned(text, min, max);
    if (!value)
        return fail(err, NGX_ERR_INVALID_OPTION, "--%s=%s: expected auto or a byte count in [%llu, %llu]", name, text,
                    (unsigned long long)min, (unsigned long long)max);
    *out = size_t(*value);
    return NGX_OK;
}

ngx_status parse_bool(const ngx_init_args* args, const char* name, bool* out, ngx_error* err)
{
    const char* text = ngx::mod::option(args, name);
    if (text == nullptr)
        return NGX_OK;
    for (const char* yes : {"1", "yes", "true", "on"})
        if (std::strcmp(text, yes) == 0) {
            *out = true;
            return NGX_OK;
        }
    for (const char* no : {"0", "no", "false", "off"})
        if (std::strcmp(text, no) == 0) {
            *out = false;
            return NGX_OK;
        }
    return fail(err, NGX_ERR_INVALID_OPTION, "--%s=%s: expected 0 or 1", name, text);
}

ngx_status parse_options(const ngx_init_args* args, Options* out, ngx_error* err)
{
    Options options;
    if (const char* address = ngx::mod::option(args, "udp-address"))
        options.address = address;
    if (const char* text = ngx::mod::option(args, "udp-port")) {
        auto port = ngx::mod::parse_unsigned(text, 0, 65534);
        if (!port)
            return fail(err, NGX_ERR_INVALID_OPTION, "--udp-port=%s: expected a port number in [0, 65534]", text);
        options.port = uint16_t(*port);
    }
    if (const char* text = ngx::mod::option(args, "udp-loss-timeout-us")) {
        auto us = ngx::mod::parse_unsigned(text, 1, 3600ull * 1000000);
        if (!us)
            return fail(err, NGX_ERR_INVALID_OPTION,
                        "--udp-loss-timeout-us=%s: expected microseconds in [1, 3600000000]", text);
        options.loss_timeout_ns = *us * 1000;
    }
    ngx_status s =
        parse_size_or_auto(args, "udp-mtu-payload", header_size + 1, max_payload_v6, &options.mtu_payload, err);
    if (s == NGX_OK)
        s = parse_size_or_auto(args, "udp-buffer", 4096, size_t{1} << 30, &options.buffer, err);
    if (s == NGX_OK)
        s = parse_bool(args, "udp-busy-poll", &options.busy_poll, err);
    if (s == NGX_OK)
        *out = std::move(options);
    return s;
}

// ---- socket setup ----------------------------------------------------------

// Sets a socket buffer, beyond rmem_max/wmem_max when privileged.
void set_buffer(int fd, int force_option, int option, size_t bytes)
{
    int value = int(std::min<size_t>(bytes, INT32_MAX / 2));
    if (setsockopt(fd, SOL_SOCKET, force_option, &value, sizeof value) != 0)
        setsockopt(fd, SOL_SOCKET, option, &value, sizeof value); // best effort: capped by the kernel
}

// Room for two of the largest messages as the kernel accounts them: every
// datagram is charged its payload plus the socket buffer's own overhead.
size_t buffer_bytes(const Context& c)
{
    if (c.options.buffer != 0)
        return c.options.buffer;
    size_t message = std::min(c.max_message, max_buffer_auto);
    size_t charged = c.layout.count(message) * (c.layout.chunk() + header_size + datagram_overhead);
    return std::clamp(2 * charged, min_buffer_auto, max_buffer_auto);
}

ngx_status set_timeouts(int fd, uint64_t slice_ns, ngx_error* err)
{
    timeval tv{};
    tv.tv_sec = time_t(slice_ns / 1000000000u);
    tv.tv_usec = suseconds_t(slice_ns % 1000000000u / 1000);
    if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0 ||
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0)
        return fail(err, NGX_ERR_SYSTEM, "udp: setsockopt(SO_RCVTIMEO/SO_SNDTIMEO): %s", errno_text(errno));
    return NGX_OK;
}

// Creates a UDP socket bound to host:port (host may be a name).
ngx_status bind_socket(const std::string& host, uint16_t port, int* fd_out, ngx_error* err)
{
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_DGRAM;
    hints.ai_flags = AI_NUMERICSERV | AI_PASSIVE;
    addrinfo* list = nullptr;
    std::string service = std::to_string(port);
    if (int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &list); rc != 0)
        return fail(err, NGX_ERR_SYSTEM, "udp: cannot resolve local address %s: %s", host.c_str(), gai_strerror(rc));
    int last_errno = 0;
    for (addrinfo* ai = list; ai != nullptr; ai = ai->ai_next) {
        int fd = socket(ai->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd >= 0 && bind(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
            freeaddrinfo(list);
            *fd_out = fd;
            return NGX_OK;
        }
        last_errno = errno;
        if (fd >= 0)
            close(fd);
    }
    freeaddrinfo(list);
    return fail(err, NGX_ERR_SYSTEM, "udp: cannot bind a UDP socket to %s port %u: %s", host.c_str(), port,
                errno_text(last_errno));
}

// "ngx-udp/1 <numeric address> <port>" of the bound socket.
ngx_status describe_socket(int fd, std::string* blob, ngx_error* err)
{
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    char host[NI_MAXHOST];
    char service[NI_MAXSERV];
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
        return fail(err, NGX_ERR_SYSTEM, "udp: getsockname: %s", errno_text(errno));
    if (int rc = getnameinfo(reinterpret_cast<sockaddr*>(&addr), len, host, sizeof host, service, sizeof service,
                             NI_NUMERICHOST | NI_NUMERICSERV);
        rc != 0)
        return fail(err, NGX_ERR_SYSTEM, "udp: getnameinfo: %s", gai_strerror(rc));
    *blob = std::string(blob_tag) + " " + host + " " + service;
    return NGX_OK;
}

// Sends `mine` through the bootstrap and returns the peer's blob as text.
ngx_status swap(const ngx_bootstrap* boot, const std::string& mine, std::string* theirs, ngx_error* err)
{
    char buffer[256];
    size_t got = 0;
    ngx_status s = boot->exchange(boot->ctx, mine.data(), mine.size(), buffer, sizeof buffer, &got, err);
    if (s != NGX_OK)
        return s;
    theirs->assign(buffer, std::min(got, sizeof buffer));
    return NGX_OK;
}

// Connects fd to the address in the peer's blob.
ngx_status connect_to_peer(int fd, const std::string& blob, ngx_error* err)
{
    char tag[16], host[NI_MAXHOST], service[NI_MAXSERV];
    if (std::sscanf(blob.c_str(), "%15s %1024s %31s", tag, host, service) != 3 || std::strcmp(tag, blob_tag) != 0)
        return fail(err, NGX_ERR_PROTOCOL, "udp: the peer sent \"%.100s\" instead of its udp address (%s)",
                    blob.c_str(), blob_tag);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_DGRAM;
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
    addrinfo* list = nullptr;
    if (int rc = getaddrinfo(host, service, &hints, &list); rc != 0)
        return fail(err, NGX_ERR_PROTOCOL, "udp: the peer's address %s port %s is invalid: %s", host, service,
                    gai_strerror(rc));
    int rc = ::connect(fd, list->ai_addr, list->ai_addrlen);
    int connect_errno = errno;
    freeaddrinfo(list);
    if (rc != 0)
        return fail(err, NGX_ERR_SYSTEM, "udp: connect to the peer at %s port %s: %s", host, service,
                    errno_text(connect_errno));
    return NGX_OK;
}

// Drops whatever reached the socket before it was connected to the peer.
void drain(int fd)
{
    char sink[64];
    for (int i = 0; i < 100000; ++i)
        if (recv(fd, sink, sizeof sink, MSG_DONTWAIT) < 0 && errno != ECONNREFUSED && errno != EINTR)
            return;
}

int socket_family(int fd)
{
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    return getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0 ? addr.ss_family : AF_INET;
}

// This side's UDP payload per datagram: the option, or the path MTU minus headers.
ngx_status local_payload(const Context& c, size_t* out, ngx_error* err)
{
    bool v6 = socket_family(c.fd) == AF_INET6;
    size_t limit = v6 ? max_payload_v6 : max_payload_v4;
    if (c.options.mtu_payload != 0) {
        if (c.options.mtu_payload > limit)
            return fail(err, NGX_ERR_INVALID_OPTION, "--udp-mtu-payload=%zu: an %s datagram holds at most %zu bytes",
                        c.options.mtu_payload, v6 ? "IPv6" : "IPv4", limit);
        *out = c.options.mtu_payload;
        return NGX_OK;
    }
    int mtu = 0;
    socklen_t len = sizeof mtu;
    int rc =
        v6 ? getsockopt(c.fd, IPPROTO_IPV6, IPV6_MTU, &mtu, &len) : getsockopt(c.fd, IPPROTO_IP, IP_MTU, &mtu, &len);
    size_t overhead = v6 ? ip_overhead_v6 : ip_overhead_v4;
    if (rc != 0 || size_t(mtu) <= overhead + header_size)
        return fail(err, NGX_ERR_SYSTEM, "udp: cannot read the path MTU (%s); set --udp-mtu-payload",
                    rc != 0 ? errno_text(errno) : "too small");
    *out = std::min(size_t(mtu) - overhead, limit);
    return NGX_OK;
}

// Both sides use the smaller datagram payload of the two.
ngx_status agree_payload(Context* c, const ngx_bootstrap* boot, size_t* payload, ngx_error* err)
{
    size_t mine = 0;
    std::string theirs;
    if (ngx_status s = local_payload(*c, &mine, err); s != NGX_OK)
        return s;
    if (ngx_status s = swap(boot, std::to_string(mine), &theirs, err); s != NGX_OK)
        return s;
    auto peer = ngx::mod::parse_unsigned(theirs.c_str(), header_size + 1, max_payload_v6);
    if (!peer)
        return fail(err, NGX_ERR_PROTOCOL, "udp: the peer proposed a datagram payload of \"%.40s\" bytes",
                    theirs.c_str());
    *payload = std::min(mine, size_t(*peer));
    return NGX_OK;
}

// Fixes the layout, the scratch area and the idle slice once the payload is agreed.
ngx_status prepare_transfer(Context* c, size_t payload, ngx_error* err)
{
    c->layout = Layout(payload - header_size);
    c->reassembly = Reassembly(c->layout);
    c->reassembly.start(std::min(c->max_message, presized_message)); // sizes the fragment bitmap up front
    c->scratch.assign(c->layout.chunk(), 0);
    c->recv_budget_ns =
        c->timeout_ns == 0 ? c->options.loss_timeout_ns : std::min(c->options.loss_timeout_ns, c->timeout_ns);
    c->slice_ns = std::clamp<uint64_t>(c->recv_budget_ns / 10, 1 * ms, 100 * ms);
    set_buffer(c->fd, SO_RCVBUFFORCE, SO_RCVBUF, buffer_bytes(*c));
    set_buffer(c->fd, SO_SNDBUFFORCE, SO_SNDBUF, buffer_bytes(*c));
    return set_timeouts(c->fd, c->slice_ns, err);
}

ngx_status connect_steps(Context* c, const ngx_bootstrap* boot, ngx_error* err)
{
    std::string host = !c->options.address.empty()                                        ? c->options.address
                       : (boot->local_address != nullptr && *boot->local_address != '\0') ? boot->local_address
                                                                                          : "127.0.0.1";
    uint16_t port = c->options.port == 0 ? 0 : uint16_t(c->options.port + (boot->rank > boot->peer ? 1 : 0));
    std::string mine, theirs;
    size_t payload = 0;
    ngx_status s = bind_socket(host, port, &c->fd, err);
    if (s == NGX_OK)
        s = describe_socket(c->fd, &mine, err);
    if (s == NGX_OK)
        s = swap(boot, mine, &theirs, err);
    if (s == NGX_OK)
        s = connect_to_peer(c->fd, theirs, err);
    if (s == NGX_OK) {
        drain(c->fd); // before the second swap: the peer sends nothing until it completes
        s = agree_payload(c, boot, &payload, err);
    }
    if (s == NGX_OK)
        s = prepare_transfer(c, payload, err);
    return s;
}

// ---- failures --------------------------------------------------------------

bool idle_errno(int e)
{
    return e == EAGAIN || e == EWOULDBLOCK || e == EINTR;
}

// After a failed socket call: NGX_OK to try again (nothing arrived yet, or a
// signal), anything else to give up with a message.
ngx_status after_failure(const Context& c, int e, const char* op, ngx_error* err)
{
    if (idle_errno(e))
        return ngx::mod::cancelled(c.cancel) ? fail(err, NGX_ERR_INTERRUPTED, "udp %s: interrupted", op) : NGX_OK;
    if (e == ECONNREFUSED)
        return fail(err, NGX_ERR_PEER_LOST, "udp %s: the peer's port is closed: it exited or died", op);
    if (e == EMSGSIZE)
        return fail(err, NGX_ERR_INVALID_OPTION,
                    "udp %s: a %zu-byte datagram is too large for the path; lower "
                    "--udp-mtu-payload",
                    op, c.layout.chunk() + header_size);
    return fail(err, NGX_ERR_SYSTEM, "udp %s: %s", op, errno_text(e));
}

ngx_status check_length(size_t len, const char* op, ngx_error* err)
{
    if (len > ngx::udp::max_message)
        return fail(err, NGX_ERR_INVALID_OPTION, "udp %s: %zu bytes exceed the module's limit of %llu", op, len,
                    (unsigned long long)ngx::udp::max_message);
    return NGX_OK;
}

// ---- send ------------------------------------------------------------------

// One datagram: header + the whole message.
ngx_status send_single(Context* c, uint32_t seq, const void* buf, size_t len, ngx_error* err)
{
    bool small = len <= bounce_limit;
    unsigned char* header = small ? c->bounce.data() : c->batch.headers[0].data();
    ngx::udp::encode(Header{seq, 0, 1, uint32_t(len)}, header);
    if (small && len > 0)
        std::memcpy(header + header_size, buf, len);
    iovec iov[2] = {{header, header_size}, {const_cast<void*>(buf), len}};
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = len == 0 ? 1 : 2;
    LazyDeadline deadline(c->timeout_ns);
    while ((small ? send(c->fd, header, header_size + len, 0) : sendmsg(c->fd, &msg, 0)) < 0) {
        int e = errno;
        if (ngx_status s = after_failure(*c, e, "send", err); s != NGX_OK)
            return s;
        if (e != EINTR && deadline.expired(c->slice_ns))
            return fail(err, NGX_ERR_TIMEOUT, "udp send: the socket stayed full for %.1f s (message seq %u, %zu bytes)",
                        double(c->timeout_ns) / 1e9, seq, len);
    }
    return NGX_OK;
}

// Fills batch entries [0, n) with fragments first .. first + n - 1.
void fill_batch(Context* c, uint32_t seq, const unsigned char* data, size_t len, size_t first, size_t n)
{
    auto count = uint32_t(c->layout.count(len));
    for (size_t k = 0; k < n; ++k) {
        size_t index = first + k;
        ngx::udp::encode(Header{seq, uint32_t(index), count, uint32_t(len)}, c->batch.headers[k].data());
        c->batch.iov[k][0] = {c->batch.headers[k].data(), header_size};
        c->batch.iov[k][1] = {const_cast<unsigned char*>(data) + c->layout.offset(index), c->layout.length(len, index)};
        c->batch.msgs[k] = mmsghdr{};
        c->batch.msgs[k].msg_hdr.msg_iov = c->batch.iov[k].data();
        c->batch.msgs[k].msg_hdr.msg_iovlen = 2;
    }
}

// Several datagrams, sendmmsg() in batches of send_batch.
ngx_status send_fragments(Context* c, uint32_t seq, const void* buf, size_t len, ngx_error* err)
{
    const auto* data = static_cast<const unsigned char*>(buf);
    size_t count = c->layout.count(len);
    LazyDeadline deadline(c->timeout_ns);
    for (size_t next = 0; next < count;) {
        size_t n = std::min(send_batch, count - next);
        fill_batch(c, seq, data, len, next, n);
        for (size_t sent = 0; sent < n;) {
            int rc = sendmmsg(c->fd, c->batch.msgs.data() + sent, unsigned(n - sent), 0);
            if (rc > 0) {
                sent += size_t(rc);
                continue;
            }
            int e = errno;
            if (ngx_status s = after_failure(*c, e, "send", err); s != NGX_OK)
                return s;
            if (e != EINTR && deadline.expired(c->slice_ns))
                return fail(err, NGX_ERR_TIMEOUT,
                            "udp send: the socket stayed full for %.1f s (message seq %u, "
                            "fragment %zu of %zu)",
                            double(c->timeout_ns) / 1e9, seq, next + sent, count);
        }
        next += n;
    }
    return NGX_OK;
}

// ---- recv ------------------------------------------------------------------

// One received datagram: its header, its payload size, and whether the
// payload waits in `bounce` (small messages) instead of the guessed slot.
struct Datagram {
    Header header;
    size_t payload = 0; // layout.chunk() + 1 when larger than any fragment may be
    bool bounced = false;
};

// A small message: one plain recv() into the bounce buffer. MSG_TRUNC makes
// recv() return the datagram's real length even when it did not fit.
ssize_t receive_small(Context* c, size_t len, int flags, Datagram* d)
{
    ssize_t n = recv(c->fd, c->bounce.data(), header_size + len, flags | MSG_TRUNC);
    if (n >= ssize_t(header_size)) {
        d->header = ngx::udp::decode(c->bounce.data());
        d->payload = std::min(size_t(n) - header_size, c->layout.chunk() + 1);
        d->bounced = true;
    }
    return n;
}

// Any other: recvmsg() with the header apart and the payload straight into
// slot `slot` of the message (plus the scratch area when the slot is the
// short last one of a fragmented message).
ssize_t receive_in_place(Context* c, unsigned char* buf, size_t len, size_t slot, int flags, Datagram* d)
{
    unsigned char header[header_size];
    size_t slot_len = c->layout.length(len, slot);
    iovec iov[3] = {{header, header_size},
                    {buf + c->layout.offset(slot), slot_len},
                    {c->scratch.data(), c->layout.chunk() - slot_len}};
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = (c->reassembly.count() > 1 && slot_len < c->layout.chunk()) ? 3 : 2;
    ssize_t n = recvmsg(c->fd, &msg, flags);
    if (n >= ssize_t(header_size)) {
        d->header = ngx::udp::decode(header);
        d->payload = (msg.msg_flags & MSG_TRUNC) ? c->layout.chunk() + 1 : size_t(n) - header_size;
        d->bounced = false;
    }
    return n;
}

// The two clocks of one recv(): `idle` (the loss timeout, capped by the
// core's, plus first_datagram_allowance() until something arrives) restarts
// whenever a new fragment arrives; `overall` (the core's timeout) bounds the
// whole call.
struct RecvDeadlines {
    LazyDeadline idle;
    LazyDeadline overall;
    uint64_t idle_wait_ns; // how long one blocking receive waits before EAGAIN
    bool looked_after_expiry = false;
};

// How much longer than the loss timeout the first datagram of a message of
// len bytes in `count` datagrams may take (see allowance_ns_per_byte).
uint64_t first_datagram_allowance(size_t len, size_t count)
{
    return std::max(uint64_t(len) * allowance_ns_per_byte, uint64_t(count) * allowance_ns_per_datagram);
}

// The time recv() waited for the first datagram of the message.
uint64_t first_wait_ns(const Context& c, size_t len)
{
    uint64_t wait = c.recv_budget_ns + first_datagram_allowance(len, c.reassembly.count());
    return c.timeout_ns == 0 ? wait : std::min(wait, c.timeout_ns);
}

// The message being received is lost: says how far it got, then gives it up.
ngx_status lost(Context* c, size_t len, bool overall, ngx_error* err)
{
    Reassembly& r = c->reassembly;
    double idle_ms = double(c->recv_budget_ns) / 1e6;
    double first_ms = double(first_wait_ns(*c, len)) / 1e6;
    ngx_status s;
    if (overall)
        s = fail(err, NGX_ERR_TIMEOUT,
                 "udp recv: message seq %u, size %zu still incomplete after the %.1f s timeout: "
                 "%zu/%zu fragments arrived",
                 r.current(), len, double(c->timeout_ns) / 1e9, r.received(), r.count());
    else if (r.assembling())
        s = fail(err, NGX_ERR_LOST,
                 "udp recv: message seq %u, size %zu lost: %zu/%zu fragments arrived, then none "
                 "for %.1f ms (%llu stale, %llu duplicate datagrams dropped so far)",
                 r.current(), len, r.received(), r.count(), idle_ms, (unsigned long long)c->stale,
                 (unsigned long long)c->duplicates);
    else // nothing arrived: lost, or the peer is silent
        s = fail(err, NGX_ERR_TIMEOUT,
                 "udp recv: message seq %u, size %zu lost: 0/%zu fragments arrived within "
                 "%.1f ms (the peer's message was lost, or it did not send)",
                 r.expected(), len, r.count(), first_ms);
    r.give_up();
    return s;
}

// The receive found nothing (errno e): NGX_OK to wait on, else why to stop.
// A deadline that passed only counts after one more look at the socket that
// also found nothing: the process may have been descheduled past the deadline
// between its last look and reading the clock.
ngx_status on_idle(Context* c, int e, size_t len, RecvDeadlines& deadlines, ngx_error* err)
{
    if (ngx_status s = after_failure(*c, e, "recv", err); s != NGX_OK)
        return s;
    if (e == EINTR)
        return NGX_OK;
    bool idle = deadlines.idle.expired(deadlines.idle_wait_ns);
    bool overall = !idle && deadlines.overall.expired(deadlines.idle_wait_ns);
    if (!idle && !overall) {
        deadlines.looked_after_expiry = false;
        return NGX_OK;
    }
    if (!deadlines.looked_after_expiry) {
        deadlines.looked_after_expiry = true; // the next receive does not block
        return NGX_OK;
    }
    return lost(c, len, overall, err);
}

// Applies the verdict on one datagram; NGX_OK to go on receiving.
ngx_status take(Context* c, Verdict verdict, const Header& h, unsigned char* buf, size_t len, size_t slot,
                size_t payload, ngx_error* err)
{
    switch (verdict) {
    case Verdict::stored:
        return NGX_OK;
    case Verdict::misplaced:
        ngx::udp::move_fragment(buf, len, c->layout, slot, h.index, c->scratch.data(), payload);
        return NGX_OK;
    case Verdict::stale:
        ++c->stale;
        return NGX_OK;
    case Verdict::duplicate:
        ++c->duplicates;
        return NGX_OK;
    case Verdict::overtaken:
        return fail(err, NGX_ERR_LOST,
                    "udp recv: message seq %u, size %zu lost: the peer already sent message "
                    "seq %u (%u bytes)",
                    c->reassembly.awaited(), len, h.seq, h.total);
    case Verdict::wrong_size:
        return fail(err, NGX_ERR_PROTOCOL,
                    "udp recv: message seq %u has %u bytes but the receive expects %zu "
                    "(the peers disagree on the message size)",
                    h.seq, h.total, len);
    case Verdict::malformed:
        break;
    }
    return fail(err, NGX_ERR_PROTOCOL,
                "udp recv: inconsistent datagram of message seq %u: fragment %u of %u with "
                "%zu bytes, for a %zu-byte message in %zu-byte fragments",
                h.seq, h.index, h.count, payload, len, c->layout.chunk());
}

ngx_status udp_recv(void* ctx, void* buf, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (ngx_status s = check_length(len, "recv", err); s != NGX_OK)
        return s;
    auto* data = static_cast<unsigned char*>(buf);
    Reassembly& r = c->reassembly;
    try {
        r.start(len); // allocates only for a message larger than any before
    } catch (const std::bad_alloc&) {
        return fail(err, NGX_ERR_NO_MEMORY, "udp recv: no memory to track the fragments of %zu bytes", len);
    }
    RecvDeadlines deadlines{LazyDeadline(first_wait_ns(*c, len)), LazyDeadline(r.count() > 1 ? c->timeout_ns : 0),
                            c->options.busy_poll ? 0 : c->slice_ns};
    if (r.count() > 1)
        deadlines.overall.start_now(); // a single datagram is bounded by `idle` alone
    int flags = c->options.busy_poll ? MSG_DONTWAIT : 0;
    bool small = r.count() == 1 && len <= bounce_limit;
    Datagram d;
    do {
        size_t slot = r.guess();
        int now_flags = deadlines.looked_after_expiry ? flags | MSG_DONTWAIT : flags;
        ssize_t n = small ? receive_small(c, len, now_flags, &d) : receive_in_place(c, data, len, slot, now_flags, &d);
        if (n < 0) {
            if (ngx_status s = on_idle(c, errno, len, deadlines, err); s != NGX_OK)
                return s;
            continue;
        }
        if (size_t(n) < header_size)
            return fail(err, NGX_ERR_PROTOCOL, "udp recv: a %zd-byte datagram is shorter than the %zu-byte header", n,
                        header_size);
        deadlines.looked_after_expiry = false;
        Verdict verdict = r.offer(d.header, d.payload, slot);
        if (ngx_status s = take(c, verdict, d.header, data, len, slot, d.payload, err); s != NGX_OK)
            return s;
        if (verdict == Verdict::stored || verdict == Verdict::misplaced)
            deadlines.idle.restart(c->recv_budget_ns); // the message makes progress
        if (d.bounced && verdict == Verdict::stored && len > 0)
            std::memcpy(data, c->bounce.data() + header_size, len);
    } while (!r.complete());
    return NGX_OK;
}

// ---- operations ------------------------------------------------------------

ngx_status udp_init(const ngx_init_args* args, void** ctx, ngx_error* err)
{
    if (args == nullptr || args->size < offsetof(ngx_init_args, max_message_size) + sizeof(size_t))
        return fail(err, NGX_ERR_UNSUPPORTED, "udp: the core passed an ngx_init_args this module does not know");
    Options options;
    if (ngx_status s = parse_options(args, &options, err); s != NGX_OK)
        return s;
    auto* c = new (std::nothrow) Context;
    if (c == nullptr)
        return fail(err, NGX_ERR_NO_MEMORY, "udp: out of memory");
    c->options = std::move(options);
    c->timeout_ns = args->timeout_ns;
    c->cancel = args->cancel;
    c->max_message = std::min<uint64_t>(args->max_message_size, ngx::udp::max_message);
    *ctx = c;
    return NGX_OK;
}

ngx_status udp_connect(void* ctx, const ngx_bootstrap* boot, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (boot == nullptr || boot->size < offsetof(ngx_bootstrap, barrier) + sizeof boot->barrier)
        return fail(err, NGX_ERR_UNSUPPORTED, "udp: the core passed an ngx_bootstrap this module does not know");
    if (c->fd >= 0)
        return fail(err, NGX_ERR_PROTOCOL, "udp: connect called twice");
    try {
        ngx_status s = connect_steps(c, boot, err);
        if (s != NGX_OK && c->fd >= 0) {
            close(c->fd);
            c->fd = -1;
        }
        return s;
    } catch (const std::bad_alloc&) {
        return fail(err, NGX_ERR_NO_MEMORY, "udp connect: out of memory");
    }
}

ngx_status udp_alloc(void*, size_t len, void** buf, ngx_error* err)
{
    constexpr size_t page = 4096;
    void* p = std::aligned_alloc(page, std::max(page, (len + page - 1) / page * page));
    if (p == nullptr)
        return fail(err, NGX_ERR_NO_MEMORY, "udp alloc: %zu bytes: out of memory", len);
    *buf = p;
    return NGX_OK;
}

void udp_free(void*, void* buf)
{
    std::free(buf);
}

ngx_status udp_send(void* ctx, const void* buf, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (ngx_status s = check_length(len, "send", err); s != NGX_OK)
        return s;
    uint32_t seq = c->send_seq++; // a failed send still consumes its number
    if (len <= c->layout.chunk())
        return send_single(c, seq, buf, len, err);
    return send_fragments(c, seq, buf, len, err);
}

// After a loss, on both sides at the same point: each tells the other the
// sequence number of its next message, so that whatever is still in flight
// is stale, and forgets the message it was assembling.
ngx_status udp_resync(void* ctx, const ngx_bootstrap* boot, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    std::string theirs;
    if (ngx_status s = swap(boot, std::to_string(c->send_seq), &theirs, err); s != NGX_OK)
        return s;
    auto next = ngx::mod::parse_unsigned(theirs.c_str(), 0, UINT32_MAX);
    if (!next)
        return fail(err, NGX_ERR_PROTOCOL, "udp resync: the peer sent \"%.40s\" instead of its next sequence number",
                    theirs.c_str());
    c->reassembly.resync(uint32_t(*next));
    return NGX_OK;
}

void udp_finalize(void* ctx)
{
    auto* c = static_cast<Context*>(ctx);
    if (c == nullptr)
        return;
    if (c->fd >= 0)
        close(c->fd);
    delete c;
}

const ngx_module_ops udp_ops = {
    sizeof(ngx_module_ops),
    udp_init,
    udp_connect,
    udp_alloc,
    udp_free,
    udp_send,
    udp_recv,
    nullptr, // isend
    nullptr, // irecv
    nullptr, // test
    nullptr, // wait
    udp_finalize,
    udp_resync,
};

const ngx_module udp_module = {
    NGX_MODULE_ABI_MAJOR,
    NGX_MODULE_ABI_MINOR,
    sizeof(ngx_module),
    "udp",
    "UDP datagrams on a connected socket; loss detected by sequence numbers and a per-message deadline",
    "1.0",
    NGX_CAP_ZERO_BYTE,
    ngx::udp::max_message,
    option_specs,
    sizeof option_specs / sizeof option_specs[0],
    &udp_ops,
};

} // namespace

NGX_MODULE_EXPORT(udp_module)
