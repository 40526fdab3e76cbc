// ngx module `udp`: messages as UDP datagrams on one connected socket per
// peer, with loss detected instead of waited for.
//
// Files: context.hpp (the shared state), socket.cpp (setup), datapath.cpp
// (send and receive, with the loss semantics a pattern can rely on),
// fragment.hpp (wire format and reassembly), and this file: options,
// init/connect/resync/finalize, per-peer links (open_link: one more
// connected socket, a Context of its own; select_peer), send to self
// (set_layout: a second socket of this process, connected to itself) and
// the module's descriptor.
#include "context.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

namespace ngx::udp {
namespace {

// ---- options ---------------------------------------------------------------

namespace row = ngx::opt::row;
constexpr auto udp_address =
    row::text("udp-address", ngx::opt::no_default, "address to bind (default: the bootstrap's local address)");
constexpr auto udp_port =
    row::whole_number("udp-port", "0", 0, 65534,
                      "port to bind, 0 picks a free one; with P the lower rank binds P and its peer P+1 (the first "
                      "peer's socket; further peers' sockets bind free ports)");
constexpr auto udp_mtu_payload = row::auto_or_bytes(
    "udp-mtu-payload", "auto", header_size + 1, max_payload_v6,
    "UDP payload bytes per datagram, including the 16-byte ngx header; auto: path MTU minus IP/UDP headers "
    "(1472 on 1500-byte Ethernet, 65507 on loopback); the peers use the smaller of their two values");
constexpr auto udp_loss_timeout_us =
    row::whole_number("udp-loss-timeout-us", "100000", 1, 3600ull * 1000000,
                      "a message is lost (NGX_ERR_LOST; NGX_ERR_TIMEOUT when nothing arrived) when nothing new of it "
                      "arrives for this long: since recv() began, then since its last fragment; at most the core's "
                      "--timeout");
constexpr auto udp_busy_poll =
    row::yes_no("udp-busy-poll", "0", "1: spin on non-blocking receives instead of blocking (one core per process)");
constexpr auto udp_buffer = row::auto_or_bytes("udp-buffer", "auto", 4096, size_t{1} << 30,
                                               "SO_RCVBUF and SO_SNDBUF; auto: room for 2 of the largest messages as "
                                               "the kernel counts them, 16 MiB to 256 MiB");
const ngx::mod::OptionTable option_table("udp", {udp_address, udp_port, udp_mtu_payload, udp_loss_timeout_us,
                                                 udp_busy_poll, udp_buffer});

ngx_status parse_options(const ngx_init_args* args, Options* out, ngx_error* err)
{
    ngx::mod::ModuleOptions read(args, option_table);
    Options options;
    options.address = read(udp_address);
    options.port = uint16_t(read(udp_port));
    options.loss_timeout_ns = read(udp_loss_timeout_us) * 1000;
    options.mtu_payload = size_t(read(udp_mtu_payload));
    options.buffer = size_t(read(udp_buffer));
    options.busy_poll = read(udp_busy_poll);
    if (ngx_status s = read.status(err); s != NGX_OK)
        return s;
    *out = std::move(options);
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

// Makes `c`'s socket to boot->peer; on failure leaves no socket open.
ngx_status connect_link(Context* c, const ngx_bootstrap* boot, ngx_error* err)
{
    try {
        ngx_status s = connect_steps(c, boot, err);
        if (s != NGX_OK && c->fd >= 0) {
            close(c->fd);
            c->fd = -1;
        }
        if (s == NGX_OK)
            c->peer = boot->peer;
        return s;
    } catch (const std::bad_alloc&) {
        return fail(err, NGX_ERR_NO_MEMORY, "udp connect: out of memory");
    }
}

ngx_status udp_connect(void* ctx, const ngx_bootstrap* boot, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (boot == nullptr || boot->size < offsetof(ngx_bootstrap, barrier) + sizeof boot->barrier)
        return fail(err, NGX_ERR_UNSUPPORTED, "udp: the core passed an ngx_bootstrap this module does not know");
    if (c->fd >= 0)
        return fail(err, NGX_ERR_PROTOCOL, "udp: connect called twice");
    if (boot->peer == boot->rank) // ABI 1.5: set up only; the sockets come from open_link
        return NGX_OK;
    return connect_link(c, boot, err);
}

// The Context whose socket is connected to `peer`; nullptr: none.
Context* link_to(Context* c, int peer)
{
    if (c->peer == peer)
        return c;
    for (const std::unique_ptr<Context>& link : c->links)
        if (link->peer == peer)
            return link.get();
    return nullptr;
}

void update_route(Context* c)
{
    c->route = c->to_self ? c->self.get() : c->selected;
}

// ABI 1.5 select_peer: send and recv use the socket to `peer`.
ngx_status udp_select_peer(void* ctx, int peer, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    Context* link = link_to(c, peer);
    if (link == nullptr)
        return fail(err, NGX_ERR_PROTOCOL, "select_peer: no socket to rank %d was opened", peer);
    c->selected = link == c ? nullptr : link;
    update_route(c);
    return NGX_OK;
}

// ABI 1.5 open_link: one more socket, made and agreed on as connect makes
// the first, in a Context of its own (its sequence numbers, reassembly and
// deadlines are the link's), and selected. A --udp-port applies to the
// socket connect made only: these bind a free port.
ngx_status udp_open_link(void* ctx, const ngx_bootstrap* boot, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (link_to(c, boot->peer) != nullptr)
        return fail(err, NGX_ERR_PROTOCOL, "open_link: the socket to rank %d is open already", boot->peer);
    std::unique_ptr<Context> link(new (std::nothrow) Context);
    if (!link)
        return fail(err, NGX_ERR_NO_MEMORY, "open_link: out of memory for the socket to rank %d", boot->peer);
    link->options = c->options;
    link->options.port = 0;
    link->timeout_ns = c->timeout_ns;
    link->cancel = c->cancel;
    link->max_message = c->max_message;
    if (ngx_status s = connect_link(link.get(), boot, err); s != NGX_OK)
        return s;
    try {
        c->links.push_back(std::move(link));
    } catch (const std::bad_alloc&) {
        close(link->fd);
        return fail(err, NGX_ERR_NO_MEMORY, "open_link: out of memory");
    }
    return udp_select_peer(c, boot->peer, err);
}

// After a loss, on both sides at the same point: each tells the other the
// sequence number of its next message, so that whatever is still in flight
// is stale, and forgets the message it was assembling.
ngx_status udp_resync(void* ctx, const ngx_bootstrap* boot, ngx_error* err)
{
    Context* c = link_to(static_cast<Context*>(ctx), boot->peer);
    if (c == nullptr)
        return fail(err, NGX_ERR_PROTOCOL, "udp resync: no socket to rank %d was opened", boot->peer);
    std::string theirs;
    if (ngx_status s = ngx::mod::exchange_blob(boot, std::to_string(c->send_seq), &theirs, 256, err); s != NGX_OK)
        return s;
    auto next = ngx::mod::parse_unsigned(theirs.c_str(), 0, UINT32_MAX);
    if (!next)
        return fail(err, NGX_ERR_PROTOCOL, "udp resync: the peer sent \"%.40s\" instead of its next sequence number",
                    theirs.c_str());
    c->reassembly.resync(uint32_t(*next));
    return NGX_OK;
}

// Send to self: only the address changes (udp moves bytes; the pattern
// packs strided data). The self socket is made at the first such call, on
// the address of the socket to the selected peer.
ngx_status udp_set_layout(void* ctx, const ngx_layout* layout, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (layout->stride != 1)
        return fail(err, NGX_ERR_UNSUPPORTED, "set_layout: udp moves contiguous bytes, not stride %zu", layout->stride);
    if (layout->to_self && !c->self) {
        const Context* main = c->selected != nullptr ? c->selected : c;
        if (main->fd < 0)
            return fail(err, NGX_ERR_PROTOCOL, "set_layout: send to self before any socket was opened");
        std::unique_ptr<Context> self(new (std::nothrow) Context);
        if (!self)
            return fail(err, NGX_ERR_NO_MEMORY, "set_layout: out of memory for the socket to self");
        self->options = c->options;
        self->timeout_ns = c->timeout_ns;
        self->cancel = c->cancel;
        self->max_message = c->max_message;
        ngx_status s = connect_to_self(self.get(), *main, err);
        if (s != NGX_OK) {
            if (self->fd >= 0)
                close(self->fd);
            return s;
        }
        c->self = std::move(self);
    }
    c->to_self = layout->to_self != 0;
    update_route(c);
    return NGX_OK;
}

void udp_finalize(void* ctx)
{
    auto* c = static_cast<Context*>(ctx);
    if (c == nullptr)
        return;
    for (const Context* each : {c, c->self.get()})
        if (each != nullptr && each->fd >= 0)
            close(each->fd);
    for (const std::unique_ptr<Context>& link : c->links)
        if (link->fd >= 0)
            close(link->fd);
    delete c;
}

const ngx_module_ops udp_ops = {
    sizeof(ngx_module_ops),
    udp_init,
    udp_connect,
    ngx::mod::heap_alloc<4096>, // page-aligned
    ngx::mod::heap_free,
    udp_send,
    udp_recv,
    nullptr, // isend
    nullptr, // irecv
    nullptr, // test
    nullptr, // wait
    udp_finalize,
    udp_resync,
    udp_set_layout,
    nullptr, // bcast
    nullptr, // prepare_recv
    nullptr, // virtual_clock: real time
    udp_open_link,
    udp_select_peer,
};

const ngx_module udp_module = {
    NGX_MODULE_ABI_MAJOR,
    NGX_MODULE_ABI_MINOR,
    sizeof(ngx_module),
    "udp",
    "UDP datagrams on a connected socket per peer; loss detected by sequence numbers and a per-message deadline",
    "1.1",
    NGX_CAP_ZERO_BYTE | NGX_CAP_SEND_TO_SELF | NGX_CAP_PEER_LINKS,
    ngx::udp::max_message,
    option_table.specs(),
    option_table.size(),
    &udp_ops,
};

} // namespace
} // namespace ngx::udp

NGX_MODULE_EXPORT(ngx::udp::udp_module)
