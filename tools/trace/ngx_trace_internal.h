/* ngx_trace_internal.h: what the C and Fortran wrappers of libngx-trace.so
 * call in the recorder (ngx_trace.c). A wrapper reads the clock, calls the
 * PMPI function, reads the clock again and passes the arguments to one
 * ngx_trace_note_* function, which fills records in the per-rank buffer:
 *
 *     int64_t t0 = ngx_trace_now();
 *     int rc = PMPI_Send(buf, count, type, dest, tag, comm);
 *     ngx_trace_note_p2p(NGX_TRACE_SEND, t0, ngx_trace_now(), comm, dest, tag, ngx_trace_bytes(count, type), 0);
 */
#ifndef NGX_TRACE_INTERNAL_H
#define NGX_TRACE_INTERNAL_H

#include "ngx_trace_format.h"

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#define NGX_TRACE_EXPORT __attribute__((visibility("default")))

/* the recorder (ngx_trace.c) */
int64_t ngx_trace_now(void);
int ngx_trace_active(void);
void ngx_trace_start(void);
void ngx_trace_stop(void);
void ngx_trace_abort(void);
struct ngx_trace_record* ngx_trace_record_new(uint16_t kind, int64_t t_call, int64_t t_return);
uint32_t ngx_trace_comm_id(MPI_Comm comm);
int32_t ngx_trace_world_rank(MPI_Comm comm, int rank);
int ngx_trace_comm_size(MPI_Comm comm);
void ngx_trace_comm_forget(MPI_Comm comm);
uint64_t ngx_trace_request_new(MPI_Request req, MPI_Comm comm, int32_t peer, int is_send);
void ngx_trace_request_forget(MPI_Request req);
void ngx_trace_note_completion(MPI_Request handle, const MPI_Status* st, int index, int64_t t, uint16_t flags);
void* ngx_trace_scratch(size_t bytes);
uint64_t ngx_trace_bytes(int count, MPI_Datatype type);

/* the notes (ngx_trace_notes.c): one per family of calls */
struct ngx_trace_record* ngx_trace_note_p2p(uint16_t kind, int64_t t0, int64_t t1, MPI_Comm comm, int peer, int tag,
                                            uint64_t bytes, uint16_t flags);
void ngx_trace_note_start(uint16_t kind, int64_t t0, int64_t t1, MPI_Comm comm, int peer, int tag, uint64_t bytes,
                          MPI_Request req, uint16_t flags);
void ngx_trace_note_recv(uint16_t kind, int64_t t0, int64_t t1, MPI_Comm comm, int source, const MPI_Status* st,
                         uint16_t flags);
void ngx_trace_note_sendrecv(int64_t t0, int64_t t1, MPI_Comm comm, int dest, int sendtag, uint64_t bytes,
                             const MPI_Status* st, uint16_t flags);
void ngx_trace_note_probe(uint16_t kind, int64_t t0, int64_t t1, MPI_Comm comm, const MPI_Status* st, int flag,
                          uint16_t flags);
/* handles: the requests as they were before the call; done[i] != 0 for those the call completed */
void ngx_trace_note_completions(uint16_t kind, int64_t t0, int64_t t1, int n, const MPI_Request* handles,
                                const MPI_Status* st, const int* done, uint16_t flags);
void ngx_trace_note_coll(uint16_t kind, int64_t t0, int64_t t1, MPI_Comm comm, int root, uint64_t bytes,
                         uint64_t bytes_recv, uint16_t flags);
uint64_t ngx_trace_bytes_v(const int* counts, int n, MPI_Datatype type);
/* Gather(v) and Scatter(v): the root's buffer of P blocks (counts[i], or count each, of type), which it sends
 * (Scatter) or receives (Gather); only the root's record counts it. */
struct ngx_trace_root_side {
    int sends;
    const int* counts; /* v variants; NULL otherwise */
    int count;
    MPI_Datatype type;
};
/* Bcast (the root sends BYTES, the others receive them) and Reduce (all send, the root receives). */
void ngx_trace_note_bcast(uint16_t kind, int64_t t0, int64_t t1, MPI_Comm comm, int root, uint64_t bytes,
                          uint16_t flags);
void ngx_trace_note_rooted(uint16_t kind, int64_t t0, int64_t t1, MPI_Comm comm, int root,
                           const struct ngx_trace_root_side* side, uint64_t own_bytes, uint16_t flags);

#endif
