// udp module, socket setup (see udp.cpp for the overview).
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
#include "context.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace ngx::udp {
namespace {

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

// Connects fd to the address in the peer's blob, which must be on
// `peer_host` (where the peer's bootstrap is): a peer that could name any
// address could make this side, a --listen server on behalf of whoever
// connects, send its datagrams to a third host.
ngx_status connect_to_peer(int fd, const std::string& blob, const std::string& peer_host, ngx_error* err)
{
    char tag[16], host[NI_MAXHOST], service[NI_MAXSERV];
    if (std::sscanf(blob.c_str(), "%15s %1024s %31s", tag, host, service) != 3 || std::strcmp(tag, blob_tag) != 0)
        return fail(err, NGX_ERR_PROTOCOL, "udp: the peer sent \"%.100s\" instead of its udp address (%s)",
                    blob.c_str(), blob_tag);
    if (ngx::mod::address_key(host).empty() || ngx::mod::address_key(host) != ngx::mod::address_key(peer_host))
        return fail(err, NGX_ERR_PROTOCOL,
                    "udp: the peer asks for datagrams at %s, but it is at %s; this side sends only to the peer's own "
                    "address, so that a peer cannot make it send to another host (leave --udp-address out or give "
                    "the address the peer's bootstrap uses)",
                    host, peer_host.c_str());
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

// Where the peer's bootstrap is: the only host its datagrams may come from and go to.
std::string peer_host_of(const ngx_bootstrap* boot)
{
    return boot->peer_address != nullptr && *boot->peer_address != '\0' ? boot->peer_address : "127.0.0.1";
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
    if (ngx_status s = ngx::mod::exchange_blob(boot, std::to_string(mine), &theirs, 256, err); s != NGX_OK)
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

} // namespace

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
        s = ngx::mod::exchange_blob(boot, mine, &theirs, 256, err);
    if (s == NGX_OK)
        s = connect_to_peer(c->fd, theirs, peer_host_of(boot), err);
    if (s == NGX_OK) {
        drain(c->fd); // before the second swap: the peer sends nothing until it completes
        s = agree_payload(c, boot, &payload, err);
    }
    if (s == NGX_OK)
        s = prepare_transfer(c, payload, err);
    return s;
}

ngx_status connect_to_self(Context* self, const Context& main, ngx_error* err)
{
    std::string blob;
    char tag[16], host[NI_MAXHOST], service[NI_MAXSERV];
    ngx_status s = describe_socket(main.fd, &blob, err);
    if (s != NGX_OK)
        return s;
    if (std::sscanf(blob.c_str(), "%15s %1024s %31s", tag, host, service) != 3)
        return fail(err, NGX_ERR_SYSTEM, "udp: send to self: cannot read the local address from \"%s\"", blob.c_str());
    s = bind_socket(host, 0, &self->fd, err);
    if (s == NGX_OK)
        s = describe_socket(self->fd, &blob, err);
    if (s == NGX_OK)
        s = connect_to_peer(self->fd, blob, host, err);
    if (s == NGX_OK)
        s = prepare_transfer(self, main.layout.chunk() + header_size, err);
    return s;
}

} // namespace ngx::udp
