// ngx transport module "ibv": libibverbs RC queue pairs in three modes
// (send/recv, RDMA write with immediate, RDMA read), on InfiniBand or RoCE.
// This file is the C ABI glue: the descriptor, option parsing, the ops
// table and send to self; conn.hpp has the data path and device.hpp the
// device/port/GID rule, onesided.hpp put and get.
//
// Per-peer links (NGX_CAP_PEER_LINKS, ABI 1.5: rank layouts with several
// peers): open_link makes one more Conn per further peer (its own PD, CQ,
// QP and receive ring, connected as connect connects the first) and
// registers in it every buffer alloc() gave, as send to self does;
// select_peer points the message path at the peer's Conn. The first Conn
// (made at init) owns the allocations; after a connect that only set up
// (boot->peer == boot->rank) it stays unconnected and every peer's Conn
// comes from open_link.
//
// Send to self (NGX_CAP_SEND_TO_SELF, set_layout with to_self; the strided
// pattern's T_0,0): a second Conn on the same device and port whose QP is
// connected to itself, made at the first such call. It registers the
// buffers alloc() gave (and gives later) in its own protection domain, so
// the pattern's buffers work on both. A blocking send() to self is an
// isend that the next recv() waits for after its receive: in read mode a
// blocking send waits for the ack of its own receive, which one thread
// could never give.
//
// One-sided put, get and flush (NGX_CAP_ONE_SIDED, ABI 1.7; onesided.hpp):
// expose makes a OneSided on the Conn the message path uses then (the
// peer's, a link's after select_peer), and put, get and flush go through the
// active Conn's.
//
//     ngx -m ibv -x pingpong --ibv-mode write
//     ngx -m ibv --ibv-device mlx5_0 --ibv-port 1 --ibv-gid 3
#include "conn.hpp"
#include "device.hpp"
#include "onesided.hpp"

#include <ngx/module.h>
#include <ngx/module_support.hpp>

#include <algorithm>
#include <memory>
#include <new>
#include <string_view>
#include <utility>
#include <vector>

namespace {

using ngx::ibv::Conn;
using ngx::ibv::DeviceChoice;
using ngx::ibv::DeviceRequest;
using ngx::ibv::Mode;
using ngx::ibv::OneSided;
using ngx::ibv::Settings;
using ngx::mod::fail;

constexpr size_t default_slot = 1 << 20;        // when the core gives no max_message_size
constexpr size_t ring_limit = size_t(64) << 20; // receive ring memory above which rx-depth shrinks

namespace row = ngx::opt::row;
constexpr auto ibv_mode = row::choice("ibv-mode", "send", {"send", "write", "read"},
                                      "send (send/recv), write (RDMA write with immediate) or read (the receiver "
                                      "pulls)");
constexpr auto ibv_device =
    row::text("ibv-device", ngx::opt::no_default, "RDMA device name (default: the first with an ACTIVE port)");
constexpr auto ibv_port = row::whole_number("ibv-port", ngx::opt::no_default, 1, 255,
                                            "port number (default: the device's first ACTIVE port)");
constexpr auto ibv_gid = row::whole_number(
    "ibv-gid", ngx::opt::no_default, 0, 65535,
    "GID index (default: on RoCE the IPv4-mapped RoCE v2 GID, never link-local; InfiniBand uses LIDs)");
constexpr auto ibv_rx_depth =
    row::whole_number("ibv-rx-depth", "32", 1, 254,
                      "receives kept pre-posted (send) or ring buffers the peer writes into (write); fewer when they "
                      "would need more than 64 MiB");
constexpr auto ibv_sq_depth = row::whole_number("ibv-sq-depth", "128", 4, 4096, "send queue depth");
constexpr auto ibv_signal =
    row::whole_number("ibv-signal", "16", 1, 2048, "request a send completion every N-th send (at most sq-depth/2)");
constexpr auto ibv_inline = row::whole_number("ibv-inline", "256", 0, 4096,
                                              "inline data to ask the device for (it may give less; 0: never inline)");
const ngx::mod::OptionTable option_table("ibv", {ibv_mode, ibv_device, ibv_port, ibv_gid, ibv_rx_depth, ibv_sq_depth,
                                                 ibv_signal, ibv_inline});

Mode read_mode(ngx::mod::ModuleOptions& read)
{
    std::string mode = read(ibv_mode);
    return mode == "write" ? Mode::write : mode == "read" ? Mode::read : Mode::send;
}

void read_settings(ngx::mod::ModuleOptions& read, const ngx_init_args* args, Settings& s)
{
    s.mode = read_mode(read);
    uint64_t rx = read(ibv_rx_depth);
    uint64_t sq = read(ibv_sq_depth);
    uint64_t sig = read(ibv_signal);
    if (read.ok() && sig > sq / 2)
        read.reject(ibv_signal, "must be in 1.." + std::to_string(sq / 2));
    uint64_t inl = read(ibv_inline);
    size_t max = args->max_message_size != 0 ? args->max_message_size : default_slot;
    s.slot_size = (std::max<size_t>(max, 64) + 4095) / 4096 * 4096;
    s.rx_depth = unsigned(std::min<uint64_t>(rx, std::max<uint64_t>(2, ring_limit / s.slot_size)));
    s.sq_depth = unsigned(sq);
    s.signal_every = unsigned(std::min(sig, sq / 2));
    s.inline_request = unsigned(inl);
    s.timeout_ns = args->timeout_ns;
    s.cancel = args->cancel;
}

void read_device(ngx::mod::ModuleOptions& read, DeviceRequest& req)
{
    req.name = read.optional(ibv_device).value_or(req.name);
    req.port = unsigned(read(ibv_port));
    if (std::optional<uint64_t> gid = read.optional(ibv_gid))
        req.gid = uint32_t(*gid);
}

struct Link {
    int peer = -1;
    std::unique_ptr<Conn> conn;
};

struct Context {
    Settings settings;
    DeviceRequest request;
    std::unique_ptr<Conn> peer; // the connection to the peer (to peer_rank); owns alloc()'s buffers
    int peer_rank = -1;         // -1: connect only set up (the links come from open_link)
    std::vector<Link> links;    // open_link's connections to further peers
    Conn* selected = nullptr;   // select_peer's choice: peer or one of links
    std::unique_ptr<Conn> self; // send to self, made at the first set_layout with to_self
    Conn* active = nullptr;     // selected, or self while set_layout's to_self holds
    bool to_self = false;
    ngx_request self_send = 0; // send() to self: the isend the next recv() waits for
    bool self_send_pending = false;
    std::vector<std::pair<void*, size_t>> buffers;  // alloc()'s, for self to register
    std::vector<std::unique_ptr<OneSided>> windows; // expose()'s, one per Conn
};

// A Conn on `dev` (which it then owns) with its PD, CQ, QP and pool.
ngx_status open_conn(const Settings& settings, DeviceChoice dev, std::unique_ptr<Conn>& out, ngx_error* err)
{
    out.reset(new (std::nothrow) Conn(settings, dev));
    if (!out) {
        ngx::ibv::close_device(dev);
        return fail(err, NGX_ERR_NO_MEMORY, "out of memory");
    }
    return out->setup(err);
}

ngx_status ibv_init(const ngx_init_args* args, void** ctx, ngx_error* err)
{
    Settings settings;
    DeviceRequest request;
    ngx::mod::ModuleOptions read(args, option_table);
    read_settings(read, args, settings);
    read_device(read, request);
    if (ngx_status st = read.status(err); st != NGX_OK)
        return st;
    DeviceChoice dev;
    if (ngx_status st = ngx::ibv::open_device(request, dev, err); st != NGX_OK)
        return st;
    if (args->max_message_size > dev.port_attr.max_msg_sz) {
        ngx::ibv::close_device(dev);
        return fail(err, NGX_ERR_UNSUPPORTED, "%s port %u carries messages up to %u bytes, %zu requested",
                    dev.name.c_str(), unsigned(dev.port), dev.port_attr.max_msg_sz, args->max_message_size);
    }
    auto c = std::unique_ptr<Context>(new (std::nothrow) Context);
    if (!c) {
        ngx::ibv::close_device(dev);
        return fail(err, NGX_ERR_NO_MEMORY, "out of memory");
    }
    c->settings = settings;
    c->request = request;
    if (ngx_status st = open_conn(settings, dev, c->peer, err); st != NGX_OK)
        return st;
    c->selected = c->active = c->peer.get();
    *ctx = c.release();
    return NGX_OK;
}

Context* context_of(void* ctx)
{
    return static_cast<Context*>(ctx);
}

// A further Conn on the device (send to self, or a link to another peer),
// connected by `connect_it`, with every buffer alloc() gave registered.
template <typename Connect>
ngx_status open_further(Context* c, Connect connect_it, std::unique_ptr<Conn>& out, ngx_error* err)
{
    DeviceChoice dev;
    if (ngx_status st = ngx::ibv::open_device(c->request, dev, err); st != NGX_OK)
        return st;
    std::unique_ptr<Conn> conn;
    if (ngx_status st = open_conn(c->settings, dev, conn, err); st != NGX_OK)
        return st;
    if (ngx_status st = connect_it(*conn); st != NGX_OK)
        return st;
    for (const auto& [buf, len] : c->buffers)
        if (ngx_status st = conn->adopt(buf, len, err); st != NGX_OK)
            return st;
    out = std::move(conn);
    return NGX_OK;
}

// The Conn of send to self, connected to itself.
ngx_status open_self(Context* c, ngx_error* err)
{
    return open_further(
        c, [err](Conn& conn) { return conn.connect_to_itself(err); }, c->self, err);
}

// The Conn to `peer`, or nullptr.
Conn* conn_to(Context* c, int peer)
{
    if (peer == c->peer_rank)
        return c->peer.get();
    for (const Link& link : c->links)
        if (link.peer == peer)
            return link.conn.get();
    return nullptr;
}

void update_active(Context* c)
{
    c->active = c->to_self ? c->self.get() : c->selected;
}

// Only the address changes: ibv moves bytes, the pattern packs strided data.
ngx_status ibv_set_layout(void* ctx, const ngx_layout* layout, ngx_error* err)
{
    Context* c = context_of(ctx);
    if (layout->stride != 1)
        return fail(err, NGX_ERR_UNSUPPORTED, "set_layout: ibv moves contiguous bytes, not stride %zu", layout->stride);
    if (layout->to_self && !c->self)
        if (ngx_status st = open_self(c, err); st != NGX_OK)
            return st;
    c->to_self = layout->to_self != 0;
    update_active(c);
    return NGX_OK;
}

ngx_status ibv_connect(void* ctx, const ngx_bootstrap* boot, ngx_error* err)
{
    Context* c = context_of(ctx);
    if (boot->peer == boot->rank) // ABI 1.5: set up only; the connections come from open_link
        return NGX_OK;
    if (ngx_status st = c->peer->connect(boot, err); st != NGX_OK)
        return st;
    c->peer_rank = boot->peer;
    return NGX_OK;
}

// ABI 1.5 select_peer: the message path uses the connection to `peer`.
ngx_status ibv_select_peer(void* ctx, int peer, ngx_error* err)
{
    Context* c = context_of(ctx);
    Conn* conn = conn_to(c, peer);
    if (conn == nullptr)
        return fail(err, NGX_ERR_PROTOCOL, "select_peer: no queue pair to rank %d was connected", peer);
    c->selected = conn;
    update_active(c);
    return NGX_OK;
}

// ABI 1.5 open_link: one more Conn, connected to boot->peer, and selected.
ngx_status ibv_open_link(void* ctx, const ngx_bootstrap* boot, ngx_error* err)
{
    Context* c = context_of(ctx);
    if (conn_to(c, boot->peer) != nullptr)
        return fail(err, NGX_ERR_PROTOCOL, "open_link: the queue pair to rank %d is connected already", boot->peer);
    Link link{boot->peer, nullptr};
    if (ngx_status st = open_further(
            c, [boot, err](Conn& conn) { return conn.connect(boot, err); }, link.conn, err);
        st != NGX_OK)
        return st;
    try {
        c->links.push_back(std::move(link));
    } catch (const std::bad_alloc&) {
        return fail(err, NGX_ERR_NO_MEMORY, "open_link: out of memory");
    }
    return ibv_select_peer(ctx, boot->peer, err);
}

ngx_status ibv_alloc(void* ctx, size_t len, void** buf, ngx_error* err)
{
    Context* c = context_of(ctx);
    if (ngx_status st = c->peer->alloc(len, buf, err); st != NGX_OK)
        return st;
    try {
        c->buffers.emplace_back(*buf, len);
    } catch (const std::bad_alloc&) {
        c->peer->release(*buf);
        return fail(err, NGX_ERR_NO_MEMORY, "alloc: out of memory");
    }
    for (const Link& link : c->links)
        if (ngx_status st = link.conn->adopt(*buf, len, err); st != NGX_OK)
            return st;
    if (c->self)
        return c->self->adopt(*buf, len, err);
    return NGX_OK;
}

void ibv_free(void* ctx, void* buf)
{
    Context* c = context_of(ctx);
    std::erase_if(c->buffers, [buf](const auto& b) { return b.first == buf; });
    if (c->self)
        c->self->release(buf);
    for (const Link& link : c->links)
        link.conn->release(buf);
    c->peer->release(buf);
}

ngx_status self_send(Context* c, const void* buf, size_t len, ngx_error* err)
{
    if (c->self_send_pending)
        return fail(err, NGX_ERR_PROTOCOL, "send to self: the previous message was not received");
    ngx_status st = c->self->isend(buf, len, &c->self_send, err);
    c->self_send_pending = st == NGX_OK;
    return st;
}

ngx_status self_recv(Context* c, void* buf, size_t len, ngx_error* err)
{
    if (ngx_status st = c->self->recv(buf, len, err); st != NGX_OK)
        return st;
    if (!c->self_send_pending)
        return NGX_OK; // the message came by isend()
    c->self_send_pending = false;
    return c->self->wait(&c->self_send, err);
}

ngx_status ibv_send(void* ctx, const void* buf, size_t len, ngx_error* err)
{
    Context* c = context_of(ctx);
    if (c->to_self) [[unlikely]]
        return self_send(c, buf, len, err);
    return c->active->send(buf, len, err);
}

ngx_status ibv_recv(void* ctx, void* buf, size_t len, ngx_error* err)
{
    Context* c = context_of(ctx);
    if (c->to_self) [[unlikely]]
        return self_recv(c, buf, len, err);
    return c->active->recv(buf, len, err);
}

// A request stays with the Conn it was posted on (select_peer may point
// the path elsewhere before its test or wait): the Conn's own number (1..64)
// in the low bits, which Conn it is above them (0: peer, k: links[k-1],
// self: one past the links).
constexpr unsigned request_bits = 16;
constexpr ngx_request request_mask = (ngx_request(1) << request_bits) - 1;

ngx_request conn_number(Context* c, const Conn* conn)
{
    for (size_t k = 0; k < c->links.size(); ++k)
        if (c->links[k].conn.get() == conn)
            return k + 1;
    return conn == c->self.get() ? c->links.size() + 1 : 0;
}

Conn* conn_numbered(Context* c, ngx_request number)
{
    if (number == 0)
        return c->peer.get();
    if (number <= c->links.size())
        return c->links[number - 1].conn.get();
    return number == c->links.size() + 1 ? c->self.get() : nullptr;
}

template <typename Post>
ngx_status post_request(Context* c, ngx_request* req, Post post)
{
    ngx_request own = 0;
    ngx_status st = post(*c->active, &own);
    *req = st == NGX_OK ? own | conn_number(c, c->active) << request_bits : 0;
    return st;
}

template <typename Finish>
ngx_status finish_request(Context* c, ngx_request* req, Finish finish, ngx_error* err)
{
    Conn* conn = conn_numbered(c, *req >> request_bits);
    if (conn == nullptr)
        return fail(err, NGX_ERR_PROTOCOL, "unknown request %lu", static_cast<unsigned long>(*req));
    ngx_request own = *req & request_mask;
    ngx_status st = finish(*conn, &own);
    if (own == 0)
        *req = 0; // done
    return st;
}

ngx_status ibv_isend(void* ctx, const void* buf, size_t len, ngx_request* req, ngx_error* err)
{
    return post_request(context_of(ctx), req,
                        [&](Conn& conn, ngx_request* own) { return conn.isend(buf, len, own, err); });
}

ngx_status ibv_irecv(void* ctx, void* buf, size_t len, ngx_request* req, ngx_error* err)
{
    return post_request(context_of(ctx), req,
                        [&](Conn& conn, ngx_request* own) { return conn.irecv(buf, len, own, err); });
}

ngx_status ibv_test(void* ctx, ngx_request* req, int* done, ngx_error* err)
{
    return finish_request(
        context_of(ctx), req, [&](Conn& conn, ngx_request* own) { return conn.test(own, done, err); }, err);
}

ngx_status ibv_wait(void* ctx, ngx_request* req, ngx_error* err)
{
    return finish_request(
        context_of(ctx), req, [&](Conn& conn, ngx_request* own) { return conn.wait(own, err); }, err);
}

// ABI 1.7 one-sided: the active Conn's OneSided (made by expose), or nullptr.
OneSided* one_sided(Context* c)
{
    for (const auto& w : c->windows)
        if (&w->conn() == c->active)
            return w.get();
    return nullptr;
}

template <typename Op>
ngx_status with_window(void* ctx, const char* op, Op call, ngx_error* err)
{
    OneSided* w = one_sided(context_of(ctx));
    if (w == nullptr)
        return fail(err, NGX_ERR_PROTOCOL, "%s: no window exposed (both peers call expose first)", op);
    return call(*w);
}

ngx_status ibv_expose(void* ctx, const ngx_bootstrap* boot, void* buf, size_t len, ngx_error* err)
{
    Context* c = context_of(ctx);
    OneSided* w = one_sided(c);
    if (w == nullptr) {
        auto made = std::unique_ptr<OneSided>(new (std::nothrow) OneSided(*c->active));
        if (!made)
            return fail(err, NGX_ERR_NO_MEMORY, "expose: out of memory");
        w = made.get();
        try {
            c->windows.push_back(std::move(made));
        } catch (const std::bad_alloc&) {
            return fail(err, NGX_ERR_NO_MEMORY, "expose: out of memory");
        }
    }
    return w->expose(boot, buf, len, err);
}

ngx_status ibv_put(void* ctx, const void* local, size_t offset, size_t len, ngx_error* err)
{
    return with_window(
        ctx, "put", [&](OneSided& w) { return w.put(local, offset, len, err); }, err);
}

ngx_status ibv_get(void* ctx, void* local, size_t offset, size_t len, ngx_error* err)
{
    return with_window(
        ctx, "get", [&](OneSided& w) { return w.get(local, offset, len, err); }, err);
}

ngx_status ibv_flush(void* ctx, ngx_error* err)
{
    return with_window(
        ctx, "flush", [&](OneSided& w) { return w.flush(err); }, err);
}

void ibv_finalize(void* ctx)
{
    Context* c = context_of(ctx);
    if (c != nullptr) { // deregister the adopted buffers before the peer's Conn unmaps them
        c->windows.clear();
        c->self.reset();
        c->links.clear();
    }
    delete c;
}

const ngx_module_ops ibv_ops = {
    sizeof(ngx_module_ops),
    ibv_init,
    ibv_connect,
    ibv_alloc,
    ibv_free,
    ibv_send,
    ibv_recv,
    ibv_isend,
    ibv_irecv,
    ibv_test,
    ibv_wait,
    ibv_finalize,
    nullptr, // resync (ABI 1.1): RC is reliable, a message is never lost without an error
    ibv_set_layout,
    nullptr, // bcast
    nullptr, // prepare_recv
    nullptr, // virtual_clock: real time
    ibv_open_link,
    ibv_select_peer,
    nullptr, // collective
    ibv_expose,
    ibv_put,
    ibv_get,
    ibv_flush,
};

const ngx_module ibv_module = {
    NGX_MODULE_ABI_MAJOR,
    NGX_MODULE_ABI_MINOR,
    sizeof(ngx_module),
    "ibv",
    "InfiniBand verbs (libibverbs RC: send/recv, RDMA write with immediate, RDMA read; one-sided put/get; IB and "
    "RoCE)",
    "1.2",
    NGX_CAP_RELIABLE | NGX_CAP_NONBLOCKING | NGX_CAP_RDMA | NGX_CAP_REGISTERED_MEMORY | NGX_CAP_ZERO_BYTE |
        NGX_CAP_SEND_TO_SELF | NGX_CAP_PEER_LINKS | NGX_CAP_ONE_SIDED,
    uint64_t(1) << 30,
    option_table.specs(),
    option_table.size(),
    &ibv_ops,
};

} // namespace

NGX_MODULE_EXPORT(ibv_module)
