// ngx module `mpi`: point-to-point MPI between the two ranks of a pair, in
// every send mode of Al-Tawil and Moritz 1998 Table 1, chosen with --mpi-mode:
//
//   standard     MPI_Send        isend   MPI_Isend  + wait
//   synchronous  MPI_Ssend       issend  MPI_Issend + wait
//   ready        MPI_Rsend       irsend  MPI_Irsend + wait
//   buffered     MPI_Bsend       ibsend  MPI_Ibsend + wait
//
// Receives are MPI_Recv (MPI_Irecv + wait for the non-blocking modes). The
// module's isend/irecv/test/wait ops map to MPI_I<mode>send, MPI_Irecv,
// MPI_Test and MPI_Wait whatever the mode.
//
// MPI itself is initialised by the core's MPI bootstrap (ngx under mpirun or
// srun); without it init fails with a clear message. The peer is the
// bootstrap's peer rank; traffic goes over a duplicate of MPI_COMM_WORLD, so
// it never matches the bootstrap's own messages.
//
// Waiting (--mpi-progress): `block` (default) calls the blocking MPI function
// (MPI_Send/MPI_Recv/MPI_Wait), the thinnest path, but a blocking MPI call has
// no deadline of its own: a dead rank is caught by mpirun (it aborts the job),
// a stopped or unreachable one by the core's watchdog, which sees the run
// make no progress for --timeout, writes the files and calls MPI_Abort
// (core/src/watchdog.hpp). `poll` starts every
// operation non-blocking and polls MPI_Test, checking the deadline and the
// cancel flag, so a silent peer ends in NGX_ERR_TIMEOUT.
//
// Ready mode needs the receive posted before the matching send starts. The
// module keeps one receive pre-posted into the first buffer from alloc():
// alloc() posts it and sends the peer a zero-byte "ready" token; a rank's
// first send waits for the peer's token; a completed receive leaves the next
// one due, posted by prepare_recv (ABI 1.3: the overhead pattern calls it
// after its timed receive, so the post is not in o_r) or, at the latest,
// at the start of this rank's next send or receive, so in alternating
// patterns (ping-pong, overhead) the reply that follows proves the next
// receive is posted.
// Back-to-back sends (ping-ping with n > 1) may reach a receive not yet
// re-posted: MPI calls that erroneous; Open MPI's ob1 treats it like a
// standard send. A recv() into another buffer waits for the pre-posted
// receive and copies (a slow path no built-in pattern takes).
//
// Buffered mode attaches a buffer at init for --mpi-bsend-messages messages
// of max_message_size + MPI_BSEND_OVERHEAD bytes, detached at finalize.
//
// Derived datatypes: --mpi-vector-stride=S (bytes, 0 = contiguous) makes
// send/recv of len bytes use MPI_Type_vector(len/block, block, S) of MPI_BYTE
// with block = --mpi-vector-block; the buffer must span the strided extent.
// The strided pattern sets the layout per message instead through the
// optional set_layout op (ABI 1.2): MPI_Type_vector(n, 1, stride) of
// MPI_DOUBLE, MPI_INT or MPI_CHAR, as an MPI user describes a strided array,
// and, with to_self, messages to this rank itself (send to self). bcast (ABI
// 1.2) is MPI_Bcast from rank 0 over every rank of the run; collective (ABI
// 1.6) the library's own MPI_Bcast, MPI_Reduce, MPI_Allreduce, ... (root 0,
// reductions MPI_SUM of MPI_DOUBLE).
//
// One-sided (ABI 1.7, NGX_CAP_ONE_SIDED; window.hpp): expose() is
// MPI_Win_create over every rank (each addresses its peer's part), put() and get() MPI_Put and MPI_Get, and
// flush() ends the epoch in the synchronization --mpi-rma-sync chooses:
// flush (MPI_Win_flush under a passive lock_all), lock (MPI_Win_lock /
// MPI_Win_unlock per window), fence (MPI_Win_fence) or pscw
// (post-start-complete-wait).
//
// This file holds the options, the lifecycle, alloc and free, and the
// module's descriptor; mpi_message.cpp the message path, mpi_ready.cpp ready
// mode's pre-posted receive, mpi_datatype.cpp the datatypes and set_layout,
// mpi_collective.cpp bcast and the collectives, mpi_onesided.cpp the
// one-sided operations, all of them sharing mpi_context.hpp's Context.
#include "mpi_collective.hpp"
#include "mpi_context.hpp"
#include "mpi_datatype.hpp"
#include "mpi_message.hpp"
#include "mpi_onesided.hpp"
#include "mpi_ready.hpp"

#include <algorithm>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

namespace ngx::mpi::detail {
namespace {

constexpr size_t buffer_alignment = 64;

struct ModeName {
    const char* name;
    Mode mode;
};

const ModeName mode_names[] = {
    {"standard", Mode::standard}, {"synchronous", Mode::synchronous},
    {"ready", Mode::ready},       {"buffered", Mode::buffered},
    {"isend", Mode::isend},       {"issend", Mode::issend},
    {"irsend", Mode::irsend},     {"ibsend", Mode::ibsend},
};

// ---- errors and options -------------------------------------------------------

namespace row = ngx::opt::row;
constexpr auto mpi_mode = row::choice(
    "mpi-mode", "standard", {"standard", "synchronous", "ready", "buffered", "isend", "issend", "irsend", "ibsend"},
    "send mode: standard, synchronous, ready, buffered (blocking) or isend, issend, irsend, ibsend "
    "(non-blocking + wait)");
constexpr auto mpi_progress =
    row::choice("mpi-progress", "block", {"block", "poll"},
                "block: blocking MPI calls (thinnest; a stuck call ends the job by the watchdog past --timeout); "
                "poll: MPI_Test loop with the deadline and Ctrl-C");
constexpr auto mpi_bsend_messages = row::whole_number("mpi-bsend-messages", "4", 1, uint64_t(1) << 30,
                                                      "buffered modes: messages the attached buffer holds");
constexpr auto mpi_vector_stride =
    row::byte_count("mpi-vector-stride", "0", 0, uint64_t(1) << 30,
                    "derived datatype: bytes between block starts (0: contiguous MPI_BYTE)");
constexpr auto mpi_vector_block = row::byte_count("mpi-vector-block", "1", 1, uint64_t(1) << 30,
                                                  "derived datatype: bytes per block when the stride is set");
constexpr auto mpi_rma_sync =
    row::choice("mpi-rma-sync", "flush", {"flush", "lock", "fence", "pscw"},
                "one-sided synchronization of a window of puts or gets: flush (MPI_Win_flush under a passive "
                "lock_all), lock (MPI_Win_lock, exclusive for puts, shared for gets, and MPI_Win_unlock per window), "
                "fence (MPI_Win_fence on both sides), pscw (start/complete; the target's post/wait)");
const ngx::mod::OptionTable option_table("mpi", {mpi_mode, mpi_progress, mpi_bsend_messages, mpi_vector_stride,
                                                 mpi_vector_block, mpi_rma_sync});

ngx_status parse_options(const ngx_init_args* args, Options* out, ngx_error* err)
{
    ngx::mod::ModuleOptions read(args, option_table);
    Options o;
    std::string mode = read(mpi_mode);
    for (const ModeName& m : mode_names)
        if (mode == m.name)
            o.mode = m.mode;
    o.poll = read(mpi_progress) == "poll";
    o.bsend_messages = read(mpi_bsend_messages);
    o.vector_stride = read(mpi_vector_stride);
    o.vector_block = read(mpi_vector_block);
    std::string sync = read(mpi_rma_sync);
    o.rma_sync = sync == "lock"    ? ngx::mpi::RmaSync::lock
                 : sync == "fence" ? ngx::mpi::RmaSync::fence
                 : sync == "pscw"  ? ngx::mpi::RmaSync::pscw
                                   : ngx::mpi::RmaSync::flush;
    if (read.ok() && o.vector_stride != 0 && o.vector_stride < o.vector_block)
        read.reject(mpi_vector_stride, "must be 0 or at least --mpi-vector-block");
    if (ngx_status s = read.status(err); s != NGX_OK)
        return s;
    *out = o;
    return NGX_OK;
}

// ---- lifecycle -----------------------------------------------------------------------

ngx_status attach_bsend_buffer(Context* c, ngx_error* err)
{
    size_t per_message = c->max_message_size + MPI_BSEND_OVERHEAD;
    size_t size = per_message * c->options.bsend_messages;
    if (size > size_t(1) << 31)
        return fail(err, NGX_ERR_INVALID_OPTION, "buffered mode: %zu bytes of bsend buffer exceed MPI's int count",
                    size);
    c->bsend_buffer = std::malloc(size);
    if (c->bsend_buffer == nullptr)
        return fail(err, NGX_ERR_NO_MEMORY, "init: cannot allocate a %zu-byte bsend buffer", size);
    int code = MPI_Buffer_attach(c->bsend_buffer, int(size));
    return code == MPI_SUCCESS ? NGX_OK : mpi_fail(err, code, "MPI_Buffer_attach");
}

void mpi_finalize(void* ctx);

ngx_status mpi_init(const ngx_init_args* args, void** ctx, ngx_error* err)
{
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised)
        return fail(err, NGX_ERR_UNSUPPORTED,
                    "module mpi needs to run under mpirun/srun (the MPI bootstrap); MPI is not initialised "
                    "(try: mpirun -np 2 ngx -m mpi)");
    Options options;
    if (ngx_status s = parse_options(args, &options, err); s != NGX_OK)
        return s;
    auto* c = new (std::nothrow) Context;
    if (c == nullptr)
        return fail(err, NGX_ERR_NO_MEMORY, "init: out of memory");
    c->options = options;
    c->timeout_ns = args->timeout_ns;
    c->cancel = args->cancel;
    c->max_message_size = args->max_message_size;
    update_plain_path(c);
    if (is_buffered(options.mode))
        if (ngx_status s = attach_bsend_buffer(c, err); s != NGX_OK) {
            mpi_finalize(c);
            return s;
        }
    *ctx = c;
    return NGX_OK;
}

// The ready modes keep one receive pre-posted from one peer (alloc()).
ngx_status ready_with_layouts(ngx_error* err)
{
    return fail(err, NGX_ERR_INVALID_OPTION,
                "--mpi-mode ready and irsend pre-post a receive from one peer: rank layouts with several peers need "
                "another mode");
}

ngx_status mpi_connect(void* ctx, const ngx_bootstrap* boot, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    // Collective over every rank of the run; all of them connect together.
    int code = MPI_Comm_dup(MPI_COMM_WORLD, &c->comm);
    if (code != MPI_SUCCESS)
        return mpi_fail(err, code, "MPI_Comm_dup");
    MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN);
    c->peer = boot->peer;
    c->target = boot->peer;
    MPI_Comm_rank(c->comm, &c->self);
    if (boot->peer == boot->rank) // ABI 1.5: set up only; the links come from open_link
        return is_ready(c->options.mode) ? ready_with_layouts(err) : NGX_OK;
    c->linked.push_back(boot->peer);
    return NGX_OK;
}

// ABI 1.5 select_peer: following messages go to (and come from) `peer`.
ngx_status mpi_select_peer(void* ctx, int peer, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (std::find(c->linked.begin(), c->linked.end(), peer) == c->linked.end())
        return fail(err, NGX_ERR_PROTOCOL, "select_peer: no link to rank %d was opened", peer);
    c->peer = peer;
    c->target = c->to_self ? c->self : peer;
    update_plain_path(c);
    return NGX_OK;
}

// ABI 1.5 open_link: one more peer. Both ranks of the link call it together;
// MPI needs no exchange, so neither makes one.
ngx_status mpi_open_link(void* ctx, const ngx_bootstrap* boot, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (is_ready(c->options.mode))
        return ready_with_layouts(err);
    if (c->comm == MPI_COMM_NULL)
        return fail(err, NGX_ERR_PROTOCOL, "open_link: connect first");
    if (std::find(c->linked.begin(), c->linked.end(), boot->peer) == c->linked.end())
        c->linked.push_back(boot->peer);
    return mpi_select_peer(c, boot->peer, err);
}

ngx_status mpi_alloc(void* ctx, size_t len, void** buf, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    size_t extent = layout_extent(c->options, len);
    size_t rounded = (extent + buffer_alignment - 1) / buffer_alignment * buffer_alignment;
    void* p = std::aligned_alloc(buffer_alignment, rounded > 0 ? rounded : buffer_alignment);
    if (p == nullptr)
        return fail(err, NGX_ERR_NO_MEMORY, "alloc: cannot allocate %zu bytes", len);
    *buf = p;
    if (!is_ready(c->options.mode) || c->preposted_buffer != nullptr)
        return NGX_OK;
    c->preposted_buffer = p;
    c->preposted_capacity = len;
    if (ngx_status s = post_receive(c, err); s != NGX_OK)
        return s;
    int code = MPI_Send(nullptr, 0, MPI_BYTE, c->peer, tag_ready, c->comm); // the handshake token
    return code == MPI_SUCCESS ? NGX_OK : mpi_fail(err, code, "MPI_Send (ready token)");
}

void mpi_free(void* ctx, void* buf)
{
    auto* c = static_cast<Context*>(ctx);
    if (c->window.holds(buf)) { // the window goes first (MPI_Win_free, both peers at this step)
        ngx_error ignored{};
        c->window.close(&ignored);
    }
    if (buf == c->preposted_buffer) {
        drop_preposted(c);
        c->preposted_buffer = nullptr;
        c->repost_due = false; // nothing to re-post into; the next alloc() posts afresh
    }
    std::free(buf);
}

void mpi_finalize(void* ctx)
{
    auto* c = static_cast<Context*>(ctx);
    if (c == nullptr)
        return;
    drop_preposted(c);
    ngx_error ignored{};
    c->window.close(&ignored);
    if (c->bsend_buffer != nullptr) {
        void* attached = nullptr;
        int size = 0;
        MPI_Buffer_detach(&attached, &size); // waits until buffered messages left
        std::free(c->bsend_buffer);
    }
    if (c->vector_type != MPI_DATATYPE_NULL)
        MPI_Type_free(&c->vector_type);
    if (c->comm != MPI_COMM_NULL)
        MPI_Comm_free(&c->comm);
    delete c;
}

const ngx_module_ops mpi_ops = {
    sizeof(ngx_module_ops),
    mpi_init,
    mpi_connect,
    mpi_alloc,
    mpi_free,
    mpi_send,
    mpi_recv,
    mpi_isend,
    mpi_irecv,
    mpi_test,
    mpi_wait,
    mpi_finalize,
    nullptr, // resync: reliable, nothing is ever lost
    mpi_set_layout,
    mpi_bcast,
    mpi_prepare_recv,
    nullptr, // virtual_clock: real time
    mpi_open_link,
    mpi_select_peer,
    mpi_collective,
    mpi_expose,
    mpi_put,
    mpi_get,
    mpi_flush,
};

const ngx_module mpi_module = {
    NGX_MODULE_ABI_MAJOR,
    NGX_MODULE_ABI_MINOR,
    sizeof(ngx_module),
    "mpi",
    "MPI point-to-point (Send/Ssend/Rsend/Bsend, Isend/Issend/Irsend/Ibsend) and one-sided (Put/Get) between the "
    "ranks of a pair",
    "1.0",
    NGX_CAP_RELIABLE | NGX_CAP_NONBLOCKING | NGX_CAP_ZERO_BYTE | NGX_CAP_DATATYPES | NGX_CAP_COLLECTIVES |
        NGX_CAP_PEER_LINKS | NGX_CAP_LIBRARY_COLLECTIVES | NGX_CAP_ONE_SIDED,
    0,
    option_table.specs(),
    option_table.size(),
    &mpi_ops,
};

} // namespace
} // namespace ngx::mpi::detail

NGX_MODULE_EXPORT(ngx::mpi::detail::mpi_module)
