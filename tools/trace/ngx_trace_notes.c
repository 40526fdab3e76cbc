/* ngx_trace_notes.c: turns the arguments of one traced call into records
 * (see ngx_trace_format.h for what each field means per kind). Shared by the
 * C wrappers (ngx_trace_c.c) and the Fortran ones (ngx_trace_fortran.c).
 */
#include "ngx_trace_internal.h"

struct ngx_trace_record* ngx_trace_note_p2p(uint16_t kind, int64_t t0, int64_t t1, MPI_Comm comm, int peer, int tag,
                                            uint64_t bytes, uint16_t flags)
{
    uint32_t comm_id = ngx_trace_comm_id(comm); /* may emit a COMM_DEF record first */
    int32_t world = ngx_trace_world_rank(comm, peer);
    struct ngx_trace_record* r = ngx_trace_record_new(kind, t0, t1);
    r->flags = flags;
    r->comm = comm_id;
    r->peer = world;
    r->tag = tag == MPI_ANY_TAG ? NGX_TRACE_TAG_ANY : tag;
    r->bytes = bytes;
    return r;
}

void ngx_trace_note_start(uint16_t kind, int64_t t0, int64_t t1, MPI_Comm comm, int peer, int tag, uint64_t bytes,
                          MPI_Request req, uint16_t flags)
{
    struct ngx_trace_record* r = ngx_trace_note_p2p(kind, t0, t1, comm, peer, tag, bytes, flags);
    r->request = ngx_trace_request_new(req, comm, r->peer, kind != NGX_TRACE_IRECV);
}

void ngx_trace_note_recv(uint16_t kind, int64_t t0, int64_t t1, MPI_Comm comm, int source, const MPI_Status* st,
                         uint16_t flags)
{
    int count = 0;
    PMPI_Get_count(st, MPI_BYTE, &count);
    struct ngx_trace_record* r = ngx_trace_note_p2p(kind, t0, t1, comm, st->MPI_SOURCE, st->MPI_TAG,
                                                    count == MPI_UNDEFINED ? 0 : (uint64_t)count, flags);
    r->aux = ngx_trace_world_rank(comm, source);
}

void ngx_trace_note_sendrecv(int64_t t0, int64_t t1, MPI_Comm comm, int dest, int sendtag, uint64_t bytes,
                             const MPI_Status* st, uint16_t flags)
{
    int count = 0;
    PMPI_Get_count(st, MPI_BYTE, &count);
    struct ngx_trace_record* r = ngx_trace_note_p2p(NGX_TRACE_SENDRECV, t0, t1, comm, dest, sendtag, bytes, flags);
    r->bytes_recv = count == MPI_UNDEFINED ? 0 : (uint64_t)count;
    r->aux = ngx_trace_world_rank(comm, st->MPI_SOURCE);
    r->tag_recv = st->MPI_TAG;
}

void ngx_trace_note_probe(uint16_t kind, int64_t t0, int64_t t1, MPI_Comm comm, const MPI_Status* st, int flag,
                          uint16_t flags)
{
    if (!flag) {
        struct ngx_trace_record* r = ngx_trace_note_p2p(kind, t0, t1, comm, MPI_PROC_NULL, 0, 0, flags);
        r->flags |= NGX_TRACE_RF_FLAG_FALSE;
        r->peer = NGX_TRACE_PEER_NONE;
        return;
    }
    ngx_trace_note_recv(kind, t0, t1, comm, st->MPI_SOURCE, st, flags);
}

void ngx_trace_note_completions(uint16_t kind, int64_t t0, int64_t t1, int n, const MPI_Request* handles,
                                const MPI_Status* st, const int* done, uint16_t flags)
{
    int completed = 0;
    for (int i = 0; i < n; i++)
        completed += done[i] && handles[i] != MPI_REQUEST_NULL;
    struct ngx_trace_record* r = ngx_trace_record_new(kind, t0, t1);
    int is_test = kind >= NGX_TRACE_TEST && kind <= NGX_TRACE_TESTSOME;
    r->flags = flags | (is_test && completed == 0 ? NGX_TRACE_RF_FLAG_FALSE : 0);
    r->aux = completed;
    r->bytes = (uint64_t)n;
    for (int i = 0; i < n; i++)
        if (done[i] && handles[i] != MPI_REQUEST_NULL)
            ngx_trace_note_completion(handles[i], &st[i], i, t1, flags);
}

void ngx_trace_note_coll(uint16_t kind, int64_t t0, int64_t t1, MPI_Comm comm, int root, uint64_t bytes,
                         uint64_t bytes_recv, uint16_t flags)
{
    struct ngx_trace_record* r = ngx_trace_note_p2p(kind, t0, t1, comm, root, 0, bytes, flags);
    if (root == MPI_PROC_NULL)
        r->peer = NGX_TRACE_PEER_NONE;
    r->bytes_recv = bytes_recv;
}

uint64_t ngx_trace_bytes_v(const int* counts, int n, MPI_Datatype type)
{
    uint64_t total = 0;
    if (counts == NULL)
        return 0;
    for (int i = 0; i < n; i++)
        total += ngx_trace_bytes(counts[i], type);
    return total;
}

/* This rank is ROOT of COMM: root-side arguments (counts arrays) may be read only then. */
static int is_root(MPI_Comm comm, int root)
{
    int me = -1;
    PMPI_Comm_rank(comm, &me);
    return me == root;
}

void ngx_trace_note_rooted(uint16_t kind, int64_t t0, int64_t t1, MPI_Comm comm, int root,
                           const struct ngx_trace_root_side* side, uint64_t own_bytes, uint16_t flags)
{
    uint64_t at_root = 0;
    if (is_root(comm, root)) {
        int p = ngx_trace_comm_size(comm);
        at_root = side->counts ? ngx_trace_bytes_v(side->counts, p, side->type)
                               : ngx_trace_bytes(side->count, side->type) * (uint64_t)p;
    }
    ngx_trace_note_coll(kind, t0, t1, comm, root, side->sends ? at_root : own_bytes, side->sends ? own_bytes : at_root,
                        flags);
}

void ngx_trace_note_bcast(uint16_t kind, int64_t t0, int64_t t1, MPI_Comm comm, int root, uint64_t bytes,
                          uint16_t flags)
{
    int at_root = is_root(comm, root);
    if (kind == NGX_TRACE_REDUCE) /* every rank contributes, the root receives */
        ngx_trace_note_coll(kind, t0, t1, comm, root, bytes, at_root ? bytes : 0, flags);
    else /* Bcast: the root sends, the others receive */
        ngx_trace_note_coll(kind, t0, t1, comm, root, at_root ? bytes : 0, at_root ? 0 : bytes, flags);
}
