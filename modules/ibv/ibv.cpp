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
using ngx::mod::option;
using ngx::mod::parse_unsigned;

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

ngx_status unsigned_option(const ngx_init_args* args, const char* name, uint64_t min, uint64_t max, uint64_t* out,
                           ngx_error* err)
{
    const char* text = option(args, name);
    if (text == nullptr)
        return NGX_OK;
    auto value = parse_unsigned(text, min, max);
    if (!value)
        return fail(err, NGX_ERR_INVALID_OPTION, "--%s %s: expected an integer in %llu..%llu", name, text,
                    static_cast<unsigned long long>(min), static_cast<unsigned long long>(max));
    *out = *value;
    return NGX_OK;
}

ngx_status parse_mode(const ngx_init_args* args, Mode* mode, ngx_error* err)
{
    const char* text = option(args, "ibv-mode");
    std::string_view m = text != nullptr ? text : "send";
    if (m == "send")
        *mode = Mode::send;
    else if (m == "write")
        *mode = Mode::write;
    else if (m == "read")
        *mode = Mode::read;
    else
        return fail(err, NGX_ERR_INVALID_OPTION, "--ibv-mode %s: expected send, write or read", text);
    return NGX_OK;
}

ngx_status parse_settings(const ngx_init_args* args, Settings& s, ngx_error* err)
{
    uint64_t rx = 32, sq = s.sq_depth, sig = s.signal_every, inl = s.inline_request;
    ngx_status st = parse_mode(args, &s.mode, err);
    if (st == NGX_OK)
        st = unsigned_option(args, "ibv-rx-depth", 1, 254, &rx, err);
    if (st == NGX_OK)
        st = unsigned_option(args, "ibv-sq-depth", 4, 4096, &sq, err);
    if (st == NGX_OK)
        st = unsigned_option(args, "ibv-signal", 1, sq / 2, &sig, err);
    if (st == NGX_OK)
        st = unsigned_option(args, "ibv-inline", 0, 4096, &inl, err);
    if (st != NGX_OK)
        return st;
    size_t max = args->max_message_size != 0 ? args->max_message_size : default_slot;
    s.slot_size = (std::max<size_t>(max, 64) + 4095) / 4096 * 4096;
    s.rx_depth = unsigned(std::min<uint64_t>(rx, std::max<uint64_t>(2, ring_limit / s.slot_size)));
    s.sq_depth = unsigned(sq);
    s.signal_every = unsigned(std::min(sig, sq / 2));
    s.inline_request = unsigned(inl);
    s.timeout_ns = args->timeout_ns;
    s.cancel = args->cancel;
    return NGX_OK;
}

ngx_status parse_device(const ngx_init_args* args, DeviceRequest& req, ngx_error* err)
{
    if (const char* name = option(args, "ibv-device"))
        req.name = name;
    uint64_t port = 0, gid = UINT64_MAX;
    ngx_status st = unsigned_option(args, "ibv-port", 1, 255, &port, err);
    if (st == NGX_OK)
        st = unsigned_option(args, "ibv-gid", 0, 65535, &gid, err);
    req.port = unsigned(port);
    if (gid != UINT64_MAX)
        req.gid = uint32_t(gid);
    return st;
}

ngx_status ibv_init(const ngx_init_args* args, void** ctx, ngx_error* err)
{
    Settings settings;
    DeviceRequest request;
    if (ngx_status st = parse_settings(args, settings, err); st != NGX_OK)
        return st;
    if (ngx_status st = parse_device(args, request, err); st != NGX_OK)
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
