// ngx transport module "ibv": libibverbs RC queue pairs in three modes
// (send/recv, RDMA write with immediate, RDMA read), on InfiniBand or RoCE.
// This file is the C ABI glue: the descriptor, option parsing and the ops
// table; conn.hpp has the data path and device.hpp the device/port/GID rule.
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
    auto conn = std::unique_ptr<Conn>(new (std::nothrow) Conn(settings, dev));
    if (!conn) {
        ngx::ibv::close_device(dev);
        return fail(err, NGX_ERR_NO_MEMORY, "out of memory");
    }
    if (ngx_status st = conn->setup(err); st != NGX_OK)
        return st;
    *ctx = conn.release();
    return NGX_OK;
}

Conn* conn_of(void* ctx)
{
    return static_cast<Conn*>(ctx);
}

ngx_status ibv_connect(void* ctx, const ngx_bootstrap* boot, ngx_error* err)
{
    return conn_of(ctx)->connect(boot, err);
}

ngx_status ibv_alloc(void* ctx, size_t len, void** buf, ngx_error* err)
{
    return conn_of(ctx)->alloc(len, buf, err);
}

void ibv_free(void* ctx, void* buf)
{
    conn_of(ctx)->release(buf);
}

ngx_status ibv_send(void* ctx, const void* buf, size_t len, ngx_error* err)
{
    return conn_of(ctx)->send(buf, len, err);
}

ngx_status ibv_recv(void* ctx, void* buf, size_t len, ngx_error* err)
{
    return conn_of(ctx)->recv(buf, len, err);
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
    delete conn_of(ctx);
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
};

const ngx_module ibv_module = {
    NGX_MODULE_ABI_MAJOR,
    NGX_MODULE_ABI_MINOR,
    sizeof(ngx_module),
    "ibv",
    "InfiniBand verbs (libibverbs RC: send/recv, RDMA write with immediate, RDMA read; IB and RoCE)",
    "1.0",
    NGX_CAP_RELIABLE | NGX_CAP_NONBLOCKING | NGX_CAP_RDMA | NGX_CAP_REGISTERED_MEMORY | NGX_CAP_ZERO_BYTE,
    uint64_t(1) << 30,
    option_specs,
    sizeof option_specs / sizeof option_specs[0],
    &ibv_ops,
};

} // namespace

NGX_MODULE_EXPORT(ibv_module)
