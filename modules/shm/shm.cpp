// ngx module `shm`: two processes on one node exchanging messages through a
// pair of single-producer single-consumer rings in shared memory (ring.hpp,
// channel.hpp). Both sides spin-poll; a small message costs one cache-line
// transfer from the writer's core to the reader's, with no syscall and no
// lock on the way. The deadline, the cancel flag and a pidfd on the peer are
// only looked at while a poll finds nothing.
#include "channel.hpp"

#include <ngx/module.h>
#include <ngx/module_support.hpp>

#include <cstdlib>
#include <new>

namespace {

using ngx::mod::fail;

constexpr size_t buffer_alignment = 64;

struct Context {
    size_t ring_bytes = 0;
    uint64_t timeout_ns = 0;
    const volatile int* cancel = nullptr;
    bool connected = false;
    ngx::shm::Channel channel;
};

const ngx_option_spec option_specs[] = {
    {"shm-ring-bytes", "65536",
     "bytes of each of the two rings: a power of two, at least 4096 (the lower rank's value is used)"},
};

ngx_status shm_init(const ngx_init_args* args, void** ctx, ngx_error* err)
{
    ngx::mod::ModuleOptions read(args);
    size_t ring_bytes = ngx::shm::read_ring_bytes(read, "shm-ring-bytes", 65536, false);
    if (ngx_status s = read.status(err); s != NGX_OK)
        return s;
    auto* c = new (std::nothrow) Context;
    if (c == nullptr)
        return fail(err, NGX_ERR_NO_MEMORY, "init: out of memory");
    c->ring_bytes = ring_bytes;
    c->timeout_ns = args->timeout_ns;
    c->cancel = args->cancel;
    *ctx = c;
    return NGX_OK;
}

ngx_status shm_connect(void* ctx, const ngx_bootstrap* boot, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (c->connected)
        return fail(err, NGX_ERR_PROTOCOL, "connect: already connected");
    ngx_status s = ngx::shm::connect_channel(boot, c->ring_bytes, &c->channel, err);
    c->connected = s == NGX_OK;
    return s;
}

ngx_status shm_send(void* ctx, const void* buf, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    ngx::shm::SpinWait wait(c->timeout_ns, c->cancel, &c->channel.peer, ngx::shm::Waiting::for_space);
    return c->channel.out.write(nullptr, 0, buf, len, wait, err);
}

ngx_status shm_recv(void* ctx, void* buf, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    ngx::shm::SpinWait wait(c->timeout_ns, c->cancel, &c->channel.peer, ngx::shm::Waiting::for_message);
    return c->channel.in.read(nullptr, 0, buf, len, wait, err);
}

void shm_finalize(void* ctx)
{
    delete static_cast<Context*>(ctx);
}

const ngx_module_ops shm_ops = {
    sizeof(ngx_module_ops),
    shm_init,
    shm_connect,
    ngx::mod::heap_alloc<buffer_alignment>,
    ngx::mod::heap_free,
    shm_send,
    shm_recv,
    nullptr, // isend
    nullptr, // irecv
    nullptr, // test
    nullptr, // wait
    shm_finalize,
    nullptr, // resync: reliable, nothing is ever lost
};

const ngx_module shm_module = {
    NGX_MODULE_ABI_MAJOR,
    NGX_MODULE_ABI_MINOR,
    sizeof(ngx_module),
    "shm",
    "shared memory: spin-polled single-producer single-consumer rings between two processes on one node",
    "1.0",
    NGX_CAP_RELIABLE | NGX_CAP_SAME_NODE_ONLY | NGX_CAP_ZERO_BYTE,
    0,
    option_specs,
    sizeof option_specs / sizeof option_specs[0],
    &shm_ops,
};

} // namespace

NGX_MODULE_EXPORT(shm_module)
