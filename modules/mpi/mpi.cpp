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
#include "progress.hpp"
#include "window.hpp"

#include <algorithm>
#include <limits>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string_view>
#include <vector>

namespace {

using ngx::mod::fail;
using ngx::mpi::mpi_fail;

constexpr int tag_message = 7;
constexpr int tag_ready = 8;
constexpr size_t buffer_alignment = 64;

enum class Mode { standard, synchronous, ready, buffered, isend, issend, irsend, ibsend };

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

bool is_nonblocking(Mode m)
{
    return m >= Mode::isend;
}
bool is_ready(Mode m)
{
    return m == Mode::ready || m == Mode::irsend;
}
bool is_buffered(Mode m)
{
    return m == Mode::buffered || m == Mode::ibsend;
}

struct Options {
    Mode mode = Mode::standard;
    bool poll = false;
    uint64_t bsend_messages = 4;
    uint64_t vector_stride = 0;
    uint64_t vector_block = 1;
    ngx::mpi::RmaSync rma_sync = ngx::mpi::RmaSync::flush;
};

struct Context {
    Options options;
    uint64_t timeout_ns = 0;
    const volatile int* cancel = nullptr;
    size_t max_message_size = 0;
    MPI_Comm comm = MPI_COMM_NULL;
    int peer = -1;
    void* bsend_buffer = nullptr;
    // Ready mode: the receive kept posted, and whether the peer said it posted one.
    MPI_Request preposted = MPI_REQUEST_NULL;
    void* preposted_buffer = nullptr;
    size_t preposted_capacity = 0;
    bool peer_ready = false;
    bool repost_due = false;      // a completed pre-posted receive awaits its successor
    void* ready_target = nullptr; // irecv in ready mode: where the pre-posted message goes
    size_t ready_len = 0;
    // Derived datatypes, cached for the last length used.
    MPI_Datatype vector_type = MPI_DATATYPE_NULL;
    size_t vector_len = 0;
    // set_layout(): element type and stride (elements; 1: contiguous), and
    // the rank messages go to (the peer, or this rank for send to self).
    MPI_Datatype element_type = MPI_BYTE;
    size_t element_size = 1;
    size_t element_stride = 1;
    int self = -1;
    int target = -1;
    bool to_self = false;
    // ABI 1.5: the peers whose link is open. MPI reaches every rank already;
    // a link is this bookkeeping, and select_peer() changes the peer.
    std::vector<int> linked;
    // Blocking standard mode on contiguous bytes, no polling: send and recv
    // call MPI_Send/MPI_Recv with nothing in between. Set by
    // update_plain_path() whenever the mode or the layout changes.
    bool plain_path = false;
    ngx::mpi::Window window; // one-sided (ABI 1.7)
};

// Whether the blocking calls may go straight to MPI_Send/MPI_Recv: what
// mpi_send/mpi_recv would choose anyway, decided once instead of per call.
void update_plain_path(Context* c)
{
    c->plain_path = c->options.mode == Mode::standard && !c->options.poll && c->options.vector_stride == 0 &&
                    c->element_type == MPI_BYTE && c->element_stride == 1;
}

static_assert(sizeof(MPI_Request) <= sizeof(ngx_request), "an MPI_Request must fit an ngx_request");

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

// ---- waiting -----------------------------------------------------------------------

// Completes a request: MPI_Wait, or with --mpi-progress=poll an MPI_Test
// loop bounded by the deadline and the cancel flag.
ngx_status complete(Context* c, MPI_Request* request, MPI_Status* status, const char* step, ngx_error* err)
{
    if (!c->options.poll) {
        int code = MPI_Wait(request, status);
        return code == MPI_SUCCESS ? NGX_OK : mpi_fail(err, code, step);
    }
    return ngx::mpi::poll_until([&](int* done) { return MPI_Test(request, done, status); }, c->timeout_ns, c->cancel,
                                step, err);
}

// ---- datatypes (the hook for strided data) ---------------------------------------

// The bytes a message of `len` data bytes spans in its buffer: len, or with
// a vector type (len / block) blocks `stride` apart.
size_t layout_extent(const Options& o, size_t len)
{
    if (o.vector_stride == 0 || len < o.vector_block)
        return len;
    return (len / o.vector_block - 1) * o.vector_stride + o.vector_block;
}

// The datatype and count for a message of `len` bytes: MPI_BYTE x len, or
// one MPI_Type_vector when --mpi-vector-stride is set.
ngx_status make_element_vector(Context* c, size_t len, MPI_Datatype* type, int* count, ngx_error* err)
{
    if (len % c->element_size != 0)
        return fail(err, NGX_ERR_INVALID_OPTION, "message of %zu bytes is not a whole number of %zu-byte elements", len,
                    c->element_size);
    if (c->element_stride == 1) {
        *type = c->element_type;
        *count = int(len / c->element_size);
        return NGX_OK;
    }
    if (c->vector_type == MPI_DATATYPE_NULL || c->vector_len != len) {
        if (c->vector_type != MPI_DATATYPE_NULL)
            MPI_Type_free(&c->vector_type);
        int code =
            MPI_Type_vector(int(len / c->element_size), 1, int(c->element_stride), c->element_type, &c->vector_type);
        if (code == MPI_SUCCESS)
            code = MPI_Type_commit(&c->vector_type);
        if (code != MPI_SUCCESS)
            return mpi_fail(err, code, "MPI_Type_vector");
        c->vector_len = len;
    }
    *type = c->vector_type;
    *count = 1;
    return NGX_OK;
}

ngx_status make_datatype(Context* c, size_t len, MPI_Datatype* type, int* count, ngx_error* err)
{
    if (len != 0 && (c->element_type != MPI_BYTE || c->element_stride != 1))
        return make_element_vector(c, len, type, count, err);
    if (c->options.vector_stride == 0 || len == 0) {
        *type = MPI_BYTE;
        *count = int(len);
        return NGX_OK;
    }
    if (c->vector_type == MPI_DATATYPE_NULL || c->vector_len != len) {
        if (c->vector_type != MPI_DATATYPE_NULL)
            MPI_Type_free(&c->vector_type);
        size_t block = c->options.vector_block;
        if (len % block != 0)
            return fail(err, NGX_ERR_INVALID_OPTION, "message of %zu bytes is not a multiple of --mpi-vector-block=%zu",
                        len, block);
        int code =
            MPI_Type_vector(int(len / block), int(block), int(c->options.vector_stride), MPI_BYTE, &c->vector_type);
        if (code == MPI_SUCCESS)
            code = MPI_Type_commit(&c->vector_type);
        if (code != MPI_SUCCESS)
            return mpi_fail(err, code, "MPI_Type_vector");
        c->vector_len = len;
    }
    *type = c->vector_type;
    *count = 1;
    return NGX_OK;
}

// ---- ready mode: the pre-posted receive -------------------------------------------

ngx_status post_receive(Context* c, ngx_error* err)
{
    int code = MPI_Irecv(c->preposted_buffer, int(c->preposted_capacity), MPI_BYTE, c->peer, tag_message, c->comm,
                         &c->preposted);
    return code == MPI_SUCCESS ? NGX_OK : mpi_fail(err, code, "MPI_Irecv (pre-posted)");
}

// The successor of a completed pre-posted receive (prepare_recv, ABI 1.3),
// posted before this rank's next send or receive at the latest.
ngx_status repost_if_due(Context* c, ngx_error* err)
{
    if (!c->repost_due)
        return NGX_OK;
    c->repost_due = false;
    return post_receive(c, err);
}

ngx_status mpi_prepare_recv(void* ctx, ngx_error* err)
{
    return repost_if_due(static_cast<Context*>(ctx), err);
}

// Before the first ready send: the peer's token says its receive is posted.
ngx_status await_peer_ready(Context* c, ngx_error* err)
{
    if (c->peer_ready)
        return NGX_OK;
    MPI_Request request;
    int code = MPI_Irecv(nullptr, 0, MPI_BYTE, c->peer, tag_ready, c->comm, &request);
    if (code != MPI_SUCCESS)
        return mpi_fail(err, code, "MPI_Irecv (ready token)");
    if (ngx_status s = complete(c, &request, MPI_STATUS_IGNORE, "waiting for the peer's pre-posted receive", err);
        s != NGX_OK)
        return s;
    c->peer_ready = true;
    return NGX_OK;
}

// Before a ready send: this rank's next receive posted, the peer's known posted.
ngx_status ready_to_send(Context* c, ngx_error* err)
{
    if (ngx_status s = repost_if_due(c, err); s != NGX_OK)
        return s;
    return await_peer_ready(c, err);
}

// Ready-mode recv: completes the pre-posted receive; the next one is due.
ngx_status recv_preposted(Context* c, void* buf, size_t len, ngx_error* err)
{
    MPI_Status status;
    if (ngx_status s = complete(c, &c->preposted, &status, "recv", err); s != NGX_OK)
        return s;
    int received = 0;
    MPI_Get_count(&status, MPI_BYTE, &received);
    if (size_t(received) != len)
        return fail(err, NGX_ERR_PROTOCOL, "recv: expected %zu bytes, the peer sent %d", len, received);
    if (buf != c->preposted_buffer)
        std::memcpy(buf, c->preposted_buffer, len);
    c->repost_due = true;
    return NGX_OK;
}

// An irecv in ready mode is the pre-posted receive itself (a second
// MPI_Irecv would never match: the message goes to the pre-posted one). Its
// request is this marker; test and wait complete the pre-posted receive.
constexpr ngx_request preposted_request = ~ngx_request(0);

ngx_status irecv_preposted(Context* c, void* buf, size_t len, ngx_request* req)
{
    c->ready_target = buf;
    c->ready_len = len;
    *req = preposted_request;
    return NGX_OK;
}

ngx_status test_preposted(Context* c, ngx_request* req, int* done, ngx_error* err)
{
    int code = MPI_Test(&c->preposted, done, MPI_STATUS_IGNORE);
    if (code != MPI_SUCCESS)
        return mpi_fail(err, code, "test");
    if (!*done)
        return NGX_OK;
    // Completed: copy; the next pre-posted receive is due.
    c->preposted = MPI_REQUEST_NULL;
    *req = 0;
    if (c->ready_target != c->preposted_buffer)
        std::memcpy(c->ready_target, c->preposted_buffer, c->ready_len);
    c->repost_due = true;
    return NGX_OK;
}

// ---- message path ---------------------------------------------------------------------

int start_send(const Context* c, const void* buf, int count, MPI_Datatype type, MPI_Request* request)
{
    switch (c->options.mode) {
    case Mode::synchronous:
    case Mode::issend:
        return MPI_Issend(buf, count, type, c->target, tag_message, c->comm, request);
    case Mode::ready:
    case Mode::irsend:
        return MPI_Irsend(buf, count, type, c->target, tag_message, c->comm, request);
    case Mode::buffered:
    case Mode::ibsend:
        return MPI_Ibsend(buf, count, type, c->target, tag_message, c->comm, request);
    default:
        return MPI_Isend(buf, count, type, c->target, tag_message, c->comm, request);
    }
}

int blocking_send(const Context* c, const void* buf, int count, MPI_Datatype type)
{
    switch (c->options.mode) {
    case Mode::synchronous:
        return MPI_Ssend(buf, count, type, c->target, tag_message, c->comm);
    case Mode::ready:
        return MPI_Rsend(buf, count, type, c->target, tag_message, c->comm);
    case Mode::buffered:
        return MPI_Bsend(buf, count, type, c->target, tag_message, c->comm);
    default:
        return MPI_Send(buf, count, type, c->target, tag_message, c->comm);
    }
}

ngx_status mpi_isend(void* ctx, const void* buf, size_t len, ngx_request* req, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (is_ready(c->options.mode))
        if (ngx_status s = ready_to_send(c, err); s != NGX_OK)
            return s;
    MPI_Datatype type = MPI_BYTE;
    int count = 0;
    if (ngx_status s = make_datatype(c, len, &type, &count, err); s != NGX_OK)
        return s;
    MPI_Request request;
    int code = start_send(c, buf, count, type, &request);
    if (code != MPI_SUCCESS)
        return mpi_fail(err, code, "isend");
    std::memcpy(req, &request, sizeof request);
    return NGX_OK;
}

ngx_status mpi_send(void* ctx, const void* buf, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (c->plain_path) [[likely]] {
        int code = MPI_Send(buf, int(len), MPI_BYTE, c->target, tag_message, c->comm);
        return code == MPI_SUCCESS ? NGX_OK : mpi_fail(err, code, "send");
    }
    if (c->repost_due)
        if (ngx_status s = repost_if_due(c, err); s != NGX_OK)
            return s;
    if (c->options.poll || is_nonblocking(c->options.mode) || (is_ready(c->options.mode) && !c->peer_ready)) {
        ngx_request req = 0;
        if (ngx_status s = mpi_isend(ctx, buf, len, &req, err); s != NGX_OK)
            return s;
        MPI_Request request;
        std::memcpy(&request, &req, sizeof request);
        return complete(c, &request, MPI_STATUS_IGNORE, "send", err);
    }
    MPI_Datatype type = MPI_BYTE;
    int count = 0;
    if (ngx_status s = make_datatype(c, len, &type, &count, err); s != NGX_OK)
        return s;
    int code = blocking_send(c, buf, count, type);
    return code == MPI_SUCCESS ? NGX_OK : mpi_fail(err, code, "send");
}

ngx_status mpi_irecv(void* ctx, void* buf, size_t len, ngx_request* req, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (ngx_status s = repost_if_due(c, err); s != NGX_OK)
        return s;
    if (c->preposted != MPI_REQUEST_NULL)
        return irecv_preposted(c, buf, len, req);
    MPI_Datatype type = MPI_BYTE;
    int count = 0;
    if (ngx_status s = make_datatype(c, len, &type, &count, err); s != NGX_OK)
        return s;
    MPI_Request request;
    int code = MPI_Irecv(buf, count, type, c->target, tag_message, c->comm, &request);
    if (code != MPI_SUCCESS)
        return mpi_fail(err, code, "irecv");
    std::memcpy(req, &request, sizeof request);
    return NGX_OK;
}

ngx_status mpi_recv(void* ctx, void* buf, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (c->plain_path) [[likely]] {
        int code = MPI_Recv(buf, int(len), MPI_BYTE, c->target, tag_message, c->comm, MPI_STATUS_IGNORE);
        return code == MPI_SUCCESS ? NGX_OK : mpi_fail(err, code, "recv");
    }
    if (c->repost_due)
        if (ngx_status s = repost_if_due(c, err); s != NGX_OK)
            return s;
    if (c->preposted != MPI_REQUEST_NULL)
        return recv_preposted(c, buf, len, err);
    if (c->options.poll || is_nonblocking(c->options.mode)) {
        ngx_request req = 0;
        if (ngx_status s = mpi_irecv(ctx, buf, len, &req, err); s != NGX_OK)
            return s;
        MPI_Request request;
        std::memcpy(&request, &req, sizeof request);
        return complete(c, &request, MPI_STATUS_IGNORE, "recv", err);
    }
    MPI_Datatype type = MPI_BYTE;
    int count = 0;
    if (ngx_status s = make_datatype(c, len, &type, &count, err); s != NGX_OK)
        return s;
    int code = MPI_Recv(buf, count, type, c->target, tag_message, c->comm, MPI_STATUS_IGNORE);
    return code == MPI_SUCCESS ? NGX_OK : mpi_fail(err, code, "recv");
}

ngx_status mpi_test(void* ctx, ngx_request* req, int* done, ngx_error* err)
{
    if (*req == preposted_request)
        return test_preposted(static_cast<Context*>(ctx), req, done, err);
    MPI_Request request;
    std::memcpy(&request, req, sizeof request);
    int code = MPI_Test(&request, done, MPI_STATUS_IGNORE);
    std::memcpy(req, &request, sizeof request);
    return code == MPI_SUCCESS ? NGX_OK : mpi_fail(err, code, "test");
}

ngx_status mpi_wait(void* ctx, ngx_request* req, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (*req == preposted_request) {
        *req = 0;
        return recv_preposted(c, c->ready_target, c->ready_len, err);
    }
    MPI_Request request;
    std::memcpy(&request, req, sizeof request);
    ngx_status s = complete(c, &request, MPI_STATUS_IGNORE, "wait", err);
    std::memcpy(req, &request, sizeof request);
    return s;
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

// ---- ABI 1.2: derived datatypes and the broadcast ---------------------------------------

ngx_status mpi_set_layout(void* ctx, const ngx_layout* layout, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    MPI_Datatype element = MPI_DATATYPE_NULL;
    switch (layout->element) {
    case 1:
        element = MPI_CHAR;
        break;
    case 4:
        element = MPI_INT;
        break;
    case 8:
        element = MPI_DOUBLE;
        break;
    default:
        return fail(err, NGX_ERR_INVALID_OPTION, "set_layout: elements of %zu bytes (expected 1, 4 or 8)",
                    layout->element);
    }
    if (layout->stride < 1 || layout->stride > size_t(INT32_MAX))
        return fail(err, NGX_ERR_INVALID_OPTION, "set_layout: stride %zu (expected 1..%d elements)", layout->stride,
                    INT32_MAX);
    if (layout->to_self && is_ready(c->options.mode))
        return fail(err, NGX_ERR_UNSUPPORTED, "set_layout: send to self is not offered in ready mode");
    if (c->vector_type != MPI_DATATYPE_NULL)
        MPI_Type_free(&c->vector_type);
    c->element_type = element;
    c->element_size = layout->element;
    c->element_stride = layout->stride;
    c->to_self = layout->to_self != 0;
    c->target = layout->to_self ? c->self : c->peer;
    update_plain_path(c);
    return NGX_OK;
}

ngx_status mpi_bcast(void* ctx, void* buf, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    MPI_Datatype type = MPI_BYTE;
    int count = 0;
    if (ngx_status s = make_datatype(c, len, &type, &count, err); s != NGX_OK)
        return s;
    if (!c->options.poll) {
        int code = MPI_Bcast(buf, count, type, 0, c->comm);
        return code == MPI_SUCCESS ? NGX_OK : mpi_fail(err, code, "MPI_Bcast");
    }
    MPI_Request request;
    int code = MPI_Ibcast(buf, count, type, 0, c->comm, &request);
    if (code != MPI_SUCCESS)
        return mpi_fail(err, code, "MPI_Ibcast");
    return complete(c, &request, MPI_STATUS_IGNORE, "bcast", err);
}

// ABI 1.6: the MPI library's own collectives over every rank, root 0
// (the buffers: module.h). With --mpi-poll the non-blocking form (MPI-3)
// completed by polling, as bcast does.
ngx_status start_collective(Context* c, int op, const void* send, void* recv, size_t bytes, MPI_Request* request,
                            ngx_error* err)
{
    const bool doubles = bytes % sizeof(double) == 0;
    const MPI_Datatype sum_type = doubles ? MPI_DOUBLE : MPI_UNSIGNED_CHAR;
    const int sum_count = int(doubles ? bytes / sizeof(double) : bytes), count = int(bytes);
    const bool blocking = !c->options.poll;
    int code = MPI_SUCCESS;
    switch (op) {
    case NGX_COLL_BCAST:
        code = blocking ? MPI_Bcast(recv, count, MPI_BYTE, 0, c->comm)
                        : MPI_Ibcast(recv, count, MPI_BYTE, 0, c->comm, request);
        break;
    case NGX_COLL_REDUCE:
        code = blocking ? MPI_Reduce(send, recv, sum_count, sum_type, MPI_SUM, 0, c->comm)
                        : MPI_Ireduce(send, recv, sum_count, sum_type, MPI_SUM, 0, c->comm, request);
        break;
    case NGX_COLL_ALLREDUCE:
        code = blocking ? MPI_Allreduce(send, recv, sum_count, sum_type, MPI_SUM, c->comm)
                        : MPI_Iallreduce(send, recv, sum_count, sum_type, MPI_SUM, c->comm, request);
        break;
    case NGX_COLL_ALLGATHER:
        code = blocking ? MPI_Allgather(send, count, MPI_BYTE, recv, count, MPI_BYTE, c->comm)
                        : MPI_Iallgather(send, count, MPI_BYTE, recv, count, MPI_BYTE, c->comm, request);
        break;
    case NGX_COLL_ALLTOALL:
        code = blocking ? MPI_Alltoall(send, count, MPI_BYTE, recv, count, MPI_BYTE, c->comm)
                        : MPI_Ialltoall(send, count, MPI_BYTE, recv, count, MPI_BYTE, c->comm, request);
        break;
    case NGX_COLL_GATHER:
        code = blocking ? MPI_Gather(send, count, MPI_BYTE, recv, count, MPI_BYTE, 0, c->comm)
                        : MPI_Igather(send, count, MPI_BYTE, recv, count, MPI_BYTE, 0, c->comm, request);
        break;
    case NGX_COLL_SCATTER:
        code = blocking ? MPI_Scatter(send, count, MPI_BYTE, recv, count, MPI_BYTE, 0, c->comm)
                        : MPI_Iscatter(send, count, MPI_BYTE, recv, count, MPI_BYTE, 0, c->comm, request);
        break;
    case NGX_COLL_BARRIER:
        code = blocking ? MPI_Barrier(c->comm) : MPI_Ibarrier(c->comm, request);
        break;
    default:
        return fail(err, NGX_ERR_UNSUPPORTED, "collective: no operation %d", op);
    }
    return code == MPI_SUCCESS ? NGX_OK : mpi_fail(err, code, "collective");
}

ngx_status mpi_collective(void* ctx, int op, const void* send, void* recv, size_t bytes, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (bytes > size_t(std::numeric_limits<int>::max()))
        return fail(err, NGX_ERR_INVALID_OPTION, "collective: %zu bytes exceed MPI's int count", bytes);
    MPI_Request request = MPI_REQUEST_NULL;
    if (ngx_status s = start_collective(c, op, send, recv, bytes, &request, err); s != NGX_OK)
        return s;
    return c->options.poll ? complete(c, &request, MPI_STATUS_IGNORE, "collective", err) : NGX_OK;
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

// Ends the pre-posted receive and takes an unread ready token, so nothing
// is left pending at MPI_Finalize.
void drop_preposted(Context* c)
{
    if (c->preposted != MPI_REQUEST_NULL) {
        MPI_Cancel(&c->preposted);
        MPI_Wait(&c->preposted, MPI_STATUS_IGNORE);
    }
    int waiting = 0;
    if (!c->peer_ready && c->comm != MPI_COMM_NULL)
        MPI_Iprobe(c->peer, tag_ready, c->comm, &waiting, MPI_STATUS_IGNORE);
    if (waiting)
        MPI_Recv(nullptr, 0, MPI_BYTE, c->peer, tag_ready, c->comm, MPI_STATUS_IGNORE);
}

// ---- ABI 1.7: one-sided (window.hpp) ---------------------------------------------------

ngx_status mpi_expose(void* ctx, const ngx_bootstrap* boot, void* buf, size_t len, ngx_error* err)
{
    auto* c = static_cast<Context*>(ctx);
    if (c->comm == MPI_COMM_NULL)
        return fail(err, NGX_ERR_PROTOCOL, "expose: connect first");
    ngx::mpi::RmaSettings settings{c->options.rma_sync, c->options.poll, c->timeout_ns, c->cancel};
    return c->window.expose(boot, c->comm, boot->peer, buf, len, settings, err);
}

ngx_status mpi_put(void* ctx, const void* local, size_t offset, size_t len, ngx_error* err)
{
    return static_cast<Context*>(ctx)->window.put(local, offset, len, err);
}

ngx_status mpi_get(void* ctx, void* local, size_t offset, size_t len, ngx_error* err)
{
    return static_cast<Context*>(ctx)->window.get(local, offset, len, err);
}

ngx_status mpi_flush(void* ctx, ngx_error* err)
{
    return static_cast<Context*>(ctx)->window.flush(err);
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

NGX_MODULE_EXPORT(mpi_module)
