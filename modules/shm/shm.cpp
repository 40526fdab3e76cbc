// ngx module `shm`: two processes on one node exchanging messages through a
// pair of single-producer single-consumer rings in shared memory (ring.hpp,
// channel.hpp). Both sides spin-poll; a small message costs one cache-line
// transfer from the writer's core to the reader's, with no syscall and no
// lock on the way. The deadline, the cancel flag and a pidfd on the peer are
// only looked at while a poll finds nothing.
//
// Several peers (ABI 1.5, NGX_CAP_PEER_LINKS: shift rounds, matchings,
// collectives): one such channel per peer (peer_channels.hpp), made by
// connect and open_link; select_peer picks the one calls use.
//
// Send to self (NGX_CAP_SEND_TO_SELF, set_layout with to_self; the strided
// pattern's T_0,0): a third ring, in this process's own memory, made at the
// first such call. One thread writes and reads it, so a message travels in
// pieces of at most half the ring: send() writes the first, the recv() that
// follows reads each piece and writes the next.
//
// One-sided (ABI 1.7, NGX_CAP_ONE_SIDED; window.hpp): buffers are
// page-aligned mappings; expose() shares the window's in place and maps the
// peer's, put() and get() are one memcpy into or out of the peer's window
// and flush() the fence that orders them before the next message.
#include "peer_channels.hpp"
#include "window.hpp"

#include <ngx/module.h>
#include <ngx/module_support.hpp>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

namespace {

using ngx::mod::fail;

struct FreeRegion {
    void operator()(void* p) const { std::free(p); }
};

// The ring of send to self and what send() left for recv() to write.
struct SelfRing {
    std::unique_ptr<void, FreeRegion> region;
    size_t piece = 0; // largest piece: half the ring, which an empty ring always takes
    ngx::shm::RingWriter out;
    ngx::shm::RingReader in;
    bool sent = false; // a message to self is on its way
    const unsigned char* pending = nullptr;
    size_t pending_len = 0;
};

struct Context {
    size_t ring_bytes = 0;
    uint64_t timeout_ns = 0;
    const volatile int* cancel = nullptr;
    bool connected = false;
    ngx::shm::PeerChannels links; // calls use links.selected()
    bool to_self = false;         // set_layout's to_self: send/recv go through `self`
    SelfRing self;
    ngx::shm::Mappings buffers; // alloc()'s; a buffer still held at finalize stays mapped
    ngx::shm::PeerWindow window;
};

constexpr auto shm_ring_bytes = ngx::opt::row::byte_count(
    "shm-ring-bytes", "65536", 0, ngx::shm::max_ring_bytes,
    "bytes of each of the two rings: a power of two, at least 4096 (the lower rank's value is used)");
const ngx::mod::OptionTable option_table("shm", {shm_ring_bytes});

ngx_status shm_init(const ngx_init_args* args, void** ctx, ngx_error* err)
{
    ngx::mod::ModuleOptions read(args, option_table);
    size_t ring_bytes = ngx::shm::read_ring_bytes(read, shm_ring_bytes, false);
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
    if (boot->peer == boot->rank) { // ABI 1.5: set up only; every link comes from open_link
        c->connected = true;
        return NGX_OK;
    }
    ngx_status s = c->links.open(boot, c->ring_bytes, err);
    c->connected = s == NGX_OK;
    return s;
}

// ABI 1.5 open_link: a channel to one more peer, with the same ring size.
ngx_status shm_open_link(void* ctx, const ngx_bootstrap* boot, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (!c->connected)
        return fail(err, NGX_ERR_PROTOCOL, "open_link: connect first");
    return c->links.open(boot, c->ring_bytes, err);
}

// ABI 1.5 select_peer: send and recv address `peer` (shm has no requests pending).
ngx_status shm_select_peer(void* ctx, int peer, ngx_error* err)
{
    return static_cast<Context*>(ctx)->links.select(peer, err);
}

ngx_status no_link(ngx_error* err, const char* step)
{
    return fail(err, NGX_ERR_PROTOCOL, "%s: no link is open (connect was set-up only; open_link first)", step);
}

// ---- send to self -------------------------------------------------------------

ngx_status open_self_ring(Context* c, ngx_error* err)
{
    size_t bytes = ngx::shm::ring_region_bytes(c->ring_bytes);
    void* region = std::aligned_alloc(ngx::shm::page_bytes, bytes);
    if (region == nullptr)
        return fail(err, NGX_ERR_NO_MEMORY, "send to self: no memory for a ring of %zu bytes", c->ring_bytes);
    std::memset(region, 0, bytes); // the writer expects every header zero
    c->self.region.reset(region);
    c->self.piece = c->ring_bytes / 2;
    c->self.out = ngx::shm::RingWriter(region, c->ring_bytes);
    c->self.in = ngx::shm::RingReader(region, c->ring_bytes);
    return NGX_OK;
}

// Writes the next piece of what is pending into the (empty) self ring.
ngx_status write_piece(Context* c, ngx_error* err)
{
    SelfRing& r = c->self;
    size_t n = std::min(r.pending_len, r.piece);
    ngx::shm::SpinWait wait(c->timeout_ns, c->cancel, nullptr, ngx::shm::Waiting::for_space);
    ngx_status s = r.out.write(nullptr, 0, r.pending, n, wait, err);
    r.pending += n;
    r.pending_len -= n;
    return s;
}

ngx_status self_send(Context* c, const void* buf, size_t len, ngx_error* err)
{
    if (c->self.sent)
        return fail(err, NGX_ERR_PROTOCOL, "send to self: the previous message (%zu bytes left) was not received",
                    c->self.pending_len);
    c->self.sent = true;
    c->self.pending = static_cast<const unsigned char*>(buf);
    c->self.pending_len = len;
    return write_piece(c, err);
}

ngx_status self_recv(Context* c, void* buf, size_t len, ngx_error* err)
{
    SelfRing& r = c->self;
    if (!r.sent)
        return fail(err, NGX_ERR_PROTOCOL, "recv from self: nothing was sent to self");
    auto* p = static_cast<unsigned char*>(buf);
    ngx::shm::SpinWait wait(c->timeout_ns, c->cancel, nullptr, ngx::shm::Waiting::for_message);
    for (;;) {
        size_t n = std::min(len, r.piece);
        if (ngx_status s = r.in.read(nullptr, 0, p, n, wait, err); s != NGX_OK)
            return s;
        p += n;
        len -= n;
        if (len == 0 || r.pending_len == 0)
            break;
        if (ngx_status s = write_piece(c, err); s != NGX_OK)
            return s;
    }
    bool matched = len == 0 && r.pending_len == 0;
    r.sent = false;
    r.pending_len = 0;
    return matched
               ? NGX_OK
               : fail(err, NGX_ERR_PROTOCOL, "recv from self: the message sent to self is shorter than the receive");
}

// Only the address changes: shm moves bytes, the pattern packs strided data.
ngx_status shm_set_layout(void* ctx, const ngx_layout* layout, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (layout->stride != 1)
        return fail(err, NGX_ERR_UNSUPPORTED, "set_layout: shm moves contiguous bytes, not stride %zu", layout->stride);
    if (layout->to_self && !c->self.region)
        if (ngx_status s = open_self_ring(c, err); s != NGX_OK)
            return s;
    c->to_self = layout->to_self != 0;
    return NGX_OK;
}

// ---- message path --------------------------------------------------------------

ngx_status shm_send(void* ctx, const void* buf, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (c->to_self) [[unlikely]]
        return self_send(c, buf, len, err);
    ngx::shm::Channel* channel = c->links.selected();
    if (channel == nullptr) [[unlikely]]
        return no_link(err, "send");
    ngx::shm::SpinWait wait(c->timeout_ns, c->cancel, &channel->peer, ngx::shm::Waiting::for_space);
    return channel->out.write(nullptr, 0, buf, len, wait, err);
}

ngx_status shm_recv(void* ctx, void* buf, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (c->to_self) [[unlikely]]
        return self_recv(c, buf, len, err);
    ngx::shm::Channel* channel = c->links.selected();
    if (channel == nullptr) [[unlikely]]
        return no_link(err, "recv");
    ngx::shm::SpinWait wait(c->timeout_ns, c->cancel, &channel->peer, ngx::shm::Waiting::for_message);
    return channel->in.read(nullptr, 0, buf, len, wait, err);
}

// ---- one-sided (ABI 1.7) ------------------------------------------------------------

ngx_status shm_alloc(void* ctx, size_t len, void** buf, ngx_error* err)
{
    return static_cast<Context*>(ctx)->buffers.alloc(len, buf, err);
}

void shm_free(void* ctx, void* buf)
{
    static_cast<Context*>(ctx)->buffers.free(buf);
}

ngx_status shm_expose(void* ctx, const ngx_bootstrap* boot, void* buf, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    return c->window.expose(boot, buf, len, c->buffers, err);
}

ngx_status shm_put(void* ctx, const void* local, size_t offset, size_t len, ngx_error* err)
{
    return static_cast<Context*>(ctx)->window.put(local, offset, len, err);
}

ngx_status shm_get(void* ctx, void* local, size_t offset, size_t len, ngx_error* err)
{
    return static_cast<Context*>(ctx)->window.get(local, offset, len, err);
}

ngx_status shm_flush(void*, ngx_error*)
{
    ngx::shm::PeerWindow::flush();
    return NGX_OK;
}

void shm_finalize(void* ctx)
{
    delete static_cast<Context*>(ctx);
}

const ngx_module_ops shm_ops = {
    sizeof(ngx_module_ops),
    shm_init,
    shm_connect,
    shm_alloc,
    shm_free,
    shm_send,
    shm_recv,
    nullptr, // isend
    nullptr, // irecv
    nullptr, // test
    nullptr, // wait
    shm_finalize,
    nullptr, // resync: reliable, nothing is ever lost
    shm_set_layout,
    nullptr, // bcast
    nullptr, // prepare_recv
    nullptr, // virtual_clock
    shm_open_link,
    shm_select_peer,
    nullptr, // collective
    shm_expose,
    shm_put,
    shm_get,
    shm_flush,
};

const ngx_module shm_module = {
    NGX_MODULE_ABI_MAJOR,
    NGX_MODULE_ABI_MINOR,
    sizeof(ngx_module),
    "shm",
    "shared memory: spin-polled single-producer single-consumer rings between two processes on one node; put "
    "and get as one memcpy into or out of the peer's shared window",
    "1.0",
    NGX_CAP_RELIABLE | NGX_CAP_SAME_NODE_ONLY | NGX_CAP_ZERO_BYTE | NGX_CAP_SEND_TO_SELF | NGX_CAP_PEER_LINKS |
        NGX_CAP_ONE_SIDED,
    0,
    option_table.specs(),
    option_table.size(),
    &shm_ops,
};

} // namespace

NGX_MODULE_EXPORT(shm_module)
