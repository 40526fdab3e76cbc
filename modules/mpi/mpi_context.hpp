// The state the parts of the `mpi` module share: the send modes, the
// options, the per-module Context that mpi.cpp creates in init, and the two
// helpers every part calls: update_plain_path (whether send/recv may go
// straight to MPI_Send/MPI_Recv) and complete (a request's bounded wait).
// Overview in mpi.cpp.
#ifndef NGX_MPI_CONTEXT_HPP
#define NGX_MPI_CONTEXT_HPP

#include "progress.hpp"
#include "window.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ngx::mpi::detail {

using ngx::mod::fail;
using ngx::mpi::mpi_fail;

constexpr int tag_message = 7;
constexpr int tag_ready = 8;

enum class Mode { standard, synchronous, ready, buffered, isend, issend, irsend, ibsend };

inline bool is_nonblocking(Mode m)
{
    return m >= Mode::isend;
}
inline bool is_ready(Mode m)
{
    return m == Mode::ready || m == Mode::irsend;
}
inline bool is_buffered(Mode m)
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
inline void update_plain_path(Context* c)
{
    c->plain_path = c->options.mode == Mode::standard && !c->options.poll && c->options.vector_stride == 0 &&
                    c->element_type == MPI_BYTE && c->element_stride == 1;
}

static_assert(sizeof(MPI_Request) <= sizeof(ngx_request), "an MPI_Request must fit an ngx_request");

// Completes a request: MPI_Wait, or with --mpi-progress=poll an MPI_Test
// loop bounded by the deadline and the cancel flag.
inline ngx_status complete(Context* c, MPI_Request* request, MPI_Status* status, const char* step, ngx_error* err)
{
    if (!c->options.poll) {
        int code = MPI_Wait(request, status);
        return code == MPI_SUCCESS ? NGX_OK : mpi_fail(err, code, step);
    }
    return ngx::mpi::poll_until([&](int* done) { return MPI_Test(request, done, status); }, c->timeout_ns, c->cancel,
                                step, err);
}

} // namespace ngx::mpi::detail

#endif
