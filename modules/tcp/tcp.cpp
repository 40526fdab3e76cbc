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
//
// This file holds the options, the lifecycle and the module's descriptor;
// tcp_socket.cpp the socket helpers, tcp_connect.cpp the connection setup,
// tcp_message.cpp the message path and tcp_self.cpp send to self, all of
// them sharing tcp_context.hpp's Context.
#include "tcp_connect.hpp"
#include "tcp_context.hpp"
#include "tcp_message.hpp"
#include "tcp_self.hpp"

#include <ngx/module.h>
#include <ngx/module_support.hpp>

#include <unistd.h>

#include <cstddef>
#include <new>
#include <string>
#include <utility>

namespace ngx::tcp::detail {
namespace {

constexpr size_t buffer_alignment = 64;

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
} // namespace ngx::tcp::detail

NGX_MODULE_EXPORT(ngx::tcp::detail::tcp_module)
