// ngx transport module "ibv": libibverbs RC queue pairs in three modes
// (send/recv, RDMA write with immediate, RDMA read), on InfiniBand or RoCE.
// This file is the C ABI glue: the descriptor, option parsing, the ops
// table and send to self; conn.hpp has the data path and device.hpp the
// device/port/GID rule.
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
//     ngx -m ibv -x pingpong --ibv-mode write
//     ngx -m ibv --ibv-device mlx5_0 --ibv-port 1 --ibv-gid 3
#include "conn.hpp"
#include "device.hpp"

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
using ngx::ibv::Settings;
using ngx::mod::fail;

constexpr size_t default_slot = 1 << 20;        // when the core gives no max_message_size
constexpr size_t ring_limit = size_t(64) << 20; // receive ring memory above which rx-depth shrinks

const ngx_option_spec option_specs[] = {
    {"ibv-mode", "send", "send (send/recv), write (RDMA write with immediate) or read (the receiver pulls)"},
    {"ibv-device", nullptr, "RDMA device name (default: the first with an ACTIVE port)"},
    {"ibv-port", nullptr, "port number (default: the device's first ACTIVE port)"},
    {"ibv-gid", nullptr,
     "GID index (default: on RoCE the IPv4-mapped RoCE v2 GID, never link-local; InfiniBand uses LIDs)"},
    {"ibv-rx-depth", "32",
     "receives kept pre-posted (send) or ring buffers the peer writes into (write); "
     "at most 254, fewer when they would need more than 64 MiB"},
    {"ibv-sq-depth", "128", "send queue depth"},
    {"ibv-signal", "16", "request a send completion every N-th send (at most sq-depth/2)"},
    {"ibv-inline", "256", "inline data to ask the device for (it may give less; 0: never inline)"},
};

Mode read_mode(ngx::mod::ModuleOptions& read)
{
    std::string mode = read.choice("ibv-mode", "send", {"send", "write", "read"});
    return mode == "write" ? Mode::write : mode == "read" ? Mode::read : Mode::send;
}

void read_settings(ngx::mod::ModuleOptions& read, const ngx_init_args* args, Settings& s)
{
    s.mode = read_mode(read);
    uint64_t rx = read.whole_number("ibv-rx-depth", 32, 1, 254);
    uint64_t sq = read.whole_number("ibv-sq-depth", s.sq_depth, 4, 4096);
    uint64_t sig = read.whole_number("ibv-signal", s.signal_every, 1, sq / 2);
    uint64_t inl = read.whole_number("ibv-inline", s.inline_request, 0, 4096);
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
    req.name = read.text("ibv-device", req.name);
    req.port = unsigned(read.whole_number("ibv-port", 0, 1, 255));
    if (read.given("ibv-gid"))
        req.gid = uint32_t(read.whole_number("ibv-gid", 0, 0, 65535));
}

struct Context {
    Settings settings;
    DeviceRequest request;
    std::unique_ptr<Conn> peer; // the connection to the peer
    std::unique_ptr<Conn> self; // send to self, made at the first set_layout with to_self
    Conn* active = nullptr;     // peer, or self while set_layout's to_self holds
    bool to_self = false;
    ngx_request self_send = 0; // send() to self: the isend the next recv() waits for
    bool self_send_pending = false;
    std::vector<std::pair<void*, size_t>> buffers; // alloc()'s, for self to register
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
    ngx::mod::ModuleOptions read(args);
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
    c->active = c->peer.get();
    *ctx = c.release();
    return NGX_OK;
}

Context* context_of(void* ctx)
{
    return static_cast<Context*>(ctx);
}

// The Conn the message path uses: the peer's, or the one to self.
Conn* conn_of(void* ctx)
{
    return context_of(ctx)->active;
}

// The Conn of send to self, connected to itself, with every buffer alloc() gave registered.
ngx_status open_self(Context* c, ngx_error* err)
{
    DeviceChoice dev;
    if (ngx_status st = ngx::ibv::open_device(c->request, dev, err); st != NGX_OK)
        return st;
    std::unique_ptr<Conn> self;
    if (ngx_status st = open_conn(c->settings, dev, self, err); st != NGX_OK)
        return st;
    if (ngx_status st = self->connect_to_itself(err); st != NGX_OK)
        return st;
    for (const auto& [buf, len] : c->buffers)
        if (ngx_status st = self->adopt(buf, len, err); st != NGX_OK)
            return st;
    c->self = std::move(self);
    return NGX_OK;
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
    c->active = c->to_self ? c->self.get() : c->peer.get();
    return NGX_OK;
}

ngx_status ibv_connect(void* ctx, const ngx_bootstrap* boot, ngx_error* err)
{
    return context_of(ctx)->peer->connect(boot, err);
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

ngx_status ibv_isend(void* ctx, const void* buf, size_t len, ngx_request* req, ngx_error* err)
{
    return conn_of(ctx)->isend(buf, len, req, err);
}

ngx_status ibv_irecv(void* ctx, void* buf, size_t len, ngx_request* req, ngx_error* err)
{
    return conn_of(ctx)->irecv(buf, len, req, err);
}

ngx_status ibv_test(void* ctx, ngx_request* req, int* done, ngx_error* err)
{
    return conn_of(ctx)->test(req, done, err);
}

ngx_status ibv_wait(void* ctx, ngx_request* req, ngx_error* err)
{
    return conn_of(ctx)->wait(req, err);
}

void ibv_finalize(void* ctx)
{
    Context* c = context_of(ctx);
    if (c != nullptr)
        c->self.reset(); // deregisters the adopted buffers before the peer's Conn unmaps them
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
};

const ngx_module ibv_module = {
    NGX_MODULE_ABI_MAJOR,
    NGX_MODULE_ABI_MINOR,
    sizeof(ngx_module),
    "ibv",
    "InfiniBand verbs (libibverbs RC: send/recv, RDMA write with immediate, RDMA read; IB and RoCE)",
    "1.0",
    NGX_CAP_RELIABLE | NGX_CAP_NONBLOCKING | NGX_CAP_RDMA | NGX_CAP_REGISTERED_MEMORY | NGX_CAP_ZERO_BYTE |
        NGX_CAP_SEND_TO_SELF,
    uint64_t(1) << 30,
    option_specs,
    sizeof option_specs / sizeof option_specs[0],
    &ibv_ops,
};

} // namespace

NGX_MODULE_EXPORT(ibv_module)
