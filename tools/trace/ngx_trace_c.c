/* ngx_trace_c.c: the C MPI functions libngx-trace.so intercepts. Each one
 * calls its PMPI_ twin between two clock reads and passes what it needs to a
 * note (ngx_trace_notes.c). MPI_Init(_thread) and MPI_Finalize start and
 * stop the recorder; MPI_Comm_free and MPI_Request_free keep its tables
 * right; MPI_Abort flushes what is buffered.
 */
#include "ngx_trace_internal.h"

#include <stdio.h>
#include <string.h>

#define T0() int64_t t0 = ngx_trace_now()

/* ---- lifetime --------------------------------------------------------- */

NGX_TRACE_EXPORT int MPI_Init(int* argc, char*** argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        ngx_trace_start();
    return rc;
}

NGX_TRACE_EXPORT int MPI_Init_thread(int* argc, char*** argv, int required, int* provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        ngx_trace_start();
    if (rc == MPI_SUCCESS && *provided == MPI_THREAD_MULTIPLE && ngx_trace_active())
        fprintf(stderr, "ngx-trace: MPI_THREAD_MULTIPLE: MPI calls made by several threads at once are traced "
                        "without a lock and may corrupt the trace\n");
    return rc;
}

NGX_TRACE_EXPORT int MPI_Finalize(void)
{
    ngx_trace_stop();
    return PMPI_Finalize();
}

NGX_TRACE_EXPORT int MPI_Abort(MPI_Comm comm, int code)
{
    ngx_trace_abort();
    return PMPI_Abort(comm, code);
}

NGX_TRACE_EXPORT int MPI_Comm_free(MPI_Comm* comm)
{
    if (ngx_trace_active())
        ngx_trace_comm_forget(*comm);
    return PMPI_Comm_free(comm);
}

NGX_TRACE_EXPORT int MPI_Request_free(MPI_Request* req)
{
    if (ngx_trace_active())
        ngx_trace_request_forget(*req);
    return PMPI_Request_free(req);
}

/* ---- point-to-point --------------------------------------------------- */

#define BLOCKING_SEND(NAME, KIND)                                                                                      \
    NGX_TRACE_EXPORT int MPI_##NAME(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)   \
    {                                                                                                                  \
        if (!ngx_trace_active())                                                                                       \
            return PMPI_##NAME(buf, count, type, dest, tag, comm);                                                     \
        T0();                                                                                                          \
        int rc = PMPI_##NAME(buf, count, type, dest, tag, comm);                                                       \
        ngx_trace_note_p2p(KIND, t0, ngx_trace_now(), comm, dest, tag, ngx_trace_bytes(count, type), 0);               \
        return rc;                                                                                                     \
    }

BLOCKING_SEND(Send, NGX_TRACE_SEND)
BLOCKING_SEND(Ssend, NGX_TRACE_SSEND)
BLOCKING_SEND(Bsend, NGX_TRACE_BSEND)
BLOCKING_SEND(Rsend, NGX_TRACE_RSEND)

#define NONBLOCKING_SEND(NAME, KIND)                                                                                   \
    NGX_TRACE_EXPORT int MPI_##NAME(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,   \
                                    MPI_Request* req)                                                                  \
    {                                                                                                                  \
        if (!ngx_trace_active())                                                                                       \
            return PMPI_##NAME(buf, count, type, dest, tag, comm, req);                                                \
        T0();                                                                                                          \
        int rc = PMPI_##NAME(buf, count, type, dest, tag, comm, req);                                                  \
        ngx_trace_note_start(KIND, t0, ngx_trace_now(), comm, dest, tag, ngx_trace_bytes(count, type), *req, 0);       \
        return rc;                                                                                                     \
    }

NONBLOCKING_SEND(Isend, NGX_TRACE_ISEND)
NONBLOCKING_SEND(Issend, NGX_TRACE_ISSEND)

NGX_TRACE_EXPORT int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                               MPI_Request* req)
{
    if (!ngx_trace_active())
        return PMPI_Irecv(buf, count, type, source, tag, comm, req);
    T0();
    int rc = PMPI_Irecv(buf, count, type, source, tag, comm, req);
    ngx_trace_note_start(NGX_TRACE_IRECV, t0, ngx_trace_now(), comm, source, tag, ngx_trace_bytes(count, type), *req,
                         0);
    return rc;
}

NGX_TRACE_EXPORT int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                              MPI_Status* status)
{
    if (!ngx_trace_active())
        return PMPI_Recv(buf, count, type, source, tag, comm, status);
    MPI_Status own;
    MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
    T0();
    int rc = PMPI_Recv(buf, count, type, source, tag, comm, st);
    ngx_trace_note_recv(NGX_TRACE_RECV, t0, ngx_trace_now(), comm, source, st, 0);
    return rc;
}

NGX_TRACE_EXPORT int MPI_Sendrecv(const void* sbuf, int scount, MPI_Datatype stype, int dest, int stag, void* rbuf,
                                  int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm,
                                  MPI_Status* status)
{
    if (!ngx_trace_active())
        return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, status);
    MPI_Status own;
    MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
    T0();
    int rc = PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, st);
    ngx_trace_note_sendrecv(t0, ngx_trace_now(), comm, dest, stag, ngx_trace_bytes(scount, stype), st, 0);
    return rc;
}

NGX_TRACE_EXPORT int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status)
{
    if (!ngx_trace_active())
        return PMPI_Probe(source, tag, comm, status);
    MPI_Status own;
    MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
    T0();
    int rc = PMPI_Probe(source, tag, comm, st);
    ngx_trace_note_probe(NGX_TRACE_PROBE, t0, ngx_trace_now(), comm, st, 1, 0);
    return rc;
}

NGX_TRACE_EXPORT int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status)
{
    if (!ngx_trace_active())
        return PMPI_Iprobe(source, tag, comm, flag, status);
    MPI_Status own;
    MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
    T0();
    int rc = PMPI_Iprobe(source, tag, comm, flag, st);
    ngx_trace_note_probe(NGX_TRACE_IPROBE, t0, ngx_trace_now(), comm, st, *flag, 0);
    return rc;
}

/* ---- completion ------------------------------------------------------- */

/* Copies of the handles (the call overwrites them), statuses when the caller ignores them, and done flags. */
struct wait_copy {
    MPI_Status* st;
    MPI_Status* packed; /* Waitsome's statuses in completion order when the caller ignores them */
    MPI_Request* h;
    int* done;
};

static int wait_copy(int n, const MPI_Request* reqs, struct wait_copy* c)
{
    size_t m = n > 0 ? (size_t)n : 1;
    char* p = ngx_trace_scratch(m * (2 * sizeof(MPI_Status) + sizeof(MPI_Request) + sizeof(int)));
    if (p == NULL)
        return -1;
    c->st = (MPI_Status*)p;
    c->packed = c->st + m;
    c->h = (MPI_Request*)(p + 2 * m * sizeof(MPI_Status));
    c->done = (int*)(p + m * (2 * sizeof(MPI_Status) + sizeof(MPI_Request)));
    if (n > 0)
        memcpy(c->h, reqs, (size_t)n * sizeof *reqs);
    memset(c->done, 0, m * sizeof(int));
    return 0;
}

NGX_TRACE_EXPORT int MPI_Wait(MPI_Request* req, MPI_Status* status)
{
    if (!ngx_trace_active())
        return PMPI_Wait(req, status);
    MPI_Status own;
    MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
    MPI_Request handle = *req;
    int done = 1;
    T0();
    int rc = PMPI_Wait(req, st);
    ngx_trace_note_completions(NGX_TRACE_WAIT, t0, ngx_trace_now(), 1, &handle, st, &done, 0);
    return rc;
}

NGX_TRACE_EXPORT int MPI_Test(MPI_Request* req, int* flag, MPI_Status* status)
{
    if (!ngx_trace_active())
        return PMPI_Test(req, flag, status);
    MPI_Status own;
    MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
    MPI_Request handle = *req;
    T0();
    int rc = PMPI_Test(req, flag, st);
    ngx_trace_note_completions(NGX_TRACE_TEST, t0, ngx_trace_now(), 1, &handle, st, flag, 0);
    return rc;
}

NGX_TRACE_EXPORT int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
    struct wait_copy c;
    if (!ngx_trace_active() || wait_copy(n, reqs, &c) != 0)
        return PMPI_Waitall(n, reqs, statuses);
    MPI_Status* st = statuses == MPI_STATUSES_IGNORE ? c.st : statuses;
    T0();
    int rc = PMPI_Waitall(n, reqs, st);
    for (int i = 0; i < n; i++)
        c.done[i] = 1;
    ngx_trace_note_completions(NGX_TRACE_WAITALL, t0, ngx_trace_now(), n, c.h, st, c.done, 0);
    return rc;
}

NGX_TRACE_EXPORT int MPI_Testall(int n, MPI_Request reqs[], int* flag, MPI_Status statuses[])
{
    struct wait_copy c;
    if (!ngx_trace_active() || wait_copy(n, reqs, &c) != 0)
        return PMPI_Testall(n, reqs, flag, statuses);
    MPI_Status* st = statuses == MPI_STATUSES_IGNORE ? c.st : statuses;
    T0();
    int rc = PMPI_Testall(n, reqs, flag, st);
    for (int i = 0; i < n; i++)
        c.done[i] = *flag;
    ngx_trace_note_completions(NGX_TRACE_TESTALL, t0, ngx_trace_now(), n, c.h, st, c.done, 0);
    return rc;
}

static void note_any(uint16_t kind, int64_t t0, int n, struct wait_copy* c, int index, const MPI_Status* st)
{
    int64_t t1 = ngx_trace_now();
    if (index >= 0 && index < n && index != MPI_UNDEFINED) {
        c->done[index] = 1;
        c->st[index] = *st;
    }
    ngx_trace_note_completions(kind, t0, t1, n, c->h, c->st, c->done, 0);
}

NGX_TRACE_EXPORT int MPI_Waitany(int n, MPI_Request reqs[], int* index, MPI_Status* status)
{
    struct wait_copy c;
    if (!ngx_trace_active() || wait_copy(n, reqs, &c) != 0)
        return PMPI_Waitany(n, reqs, index, status);
    MPI_Status own;
    MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
    T0();
    int rc = PMPI_Waitany(n, reqs, index, st);
    note_any(NGX_TRACE_WAITANY, t0, n, &c, *index, st);
    return rc;
}

NGX_TRACE_EXPORT int MPI_Testany(int n, MPI_Request reqs[], int* index, int* flag, MPI_Status* status)
{
    struct wait_copy c;
    if (!ngx_trace_active() || wait_copy(n, reqs, &c) != 0)
        return PMPI_Testany(n, reqs, index, flag, status);
    MPI_Status own;
    MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
    T0();
    int rc = PMPI_Testany(n, reqs, index, flag, st);
    note_any(NGX_TRACE_TESTANY, t0, n, &c, *flag ? *index : MPI_UNDEFINED, st);
    return rc;
}

/* Waitsome/Testsome: statuses come back packed in completion order; spread them to the request indices. */
static void note_some(uint16_t kind, int64_t t0, int n, struct wait_copy* c, int outcount, const int* indices,
                      const MPI_Status* st)
{
    int64_t t1 = ngx_trace_now();
    for (int k = 0; outcount != MPI_UNDEFINED && k < outcount; k++) {
        c->done[indices[k]] = 1;
        c->st[indices[k]] = st[k];
    }
    ngx_trace_note_completions(kind, t0, t1, n, c->h, c->st, c->done, 0);
}

NGX_TRACE_EXPORT int MPI_Waitsome(int n, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[])
{
    struct wait_copy c;
    if (!ngx_trace_active() || wait_copy(n, reqs, &c) != 0)
        return PMPI_Waitsome(n, reqs, outcount, indices, statuses);
    MPI_Status* st = statuses == MPI_STATUSES_IGNORE ? c.packed : statuses;
    T0();
    int rc = PMPI_Waitsome(n, reqs, outcount, indices, st);
    note_some(NGX_TRACE_WAITSOME, t0, n, &c, *outcount, indices, st);
    return rc;
}

NGX_TRACE_EXPORT int MPI_Testsome(int n, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[])
{
    struct wait_copy c;
    if (!ngx_trace_active() || wait_copy(n, reqs, &c) != 0)
        return PMPI_Testsome(n, reqs, outcount, indices, statuses);
    MPI_Status* st = statuses == MPI_STATUSES_IGNORE ? c.packed : statuses;
    T0();
    int rc = PMPI_Testsome(n, reqs, outcount, indices, st);
    note_some(NGX_TRACE_TESTSOME, t0, n, &c, *outcount, indices, st);
    return rc;
}

/* ---- collectives ------------------------------------------------------ */

static uint64_t own_bytes(const void* sbuf, int scount, MPI_Datatype stype, int rcount, MPI_Datatype rtype)
{
    return sbuf == MPI_IN_PLACE ? ngx_trace_bytes(rcount, rtype) : ngx_trace_bytes(scount, stype);
}

NGX_TRACE_EXPORT int MPI_Barrier(MPI_Comm comm)
{
    if (!ngx_trace_active())
        return PMPI_Barrier(comm);
    T0();
    int rc = PMPI_Barrier(comm);
    ngx_trace_note_coll(NGX_TRACE_BARRIER, t0, ngx_trace_now(), comm, MPI_PROC_NULL, 0, 0, 0);
    return rc;
}

NGX_TRACE_EXPORT int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    if (!ngx_trace_active())
        return PMPI_Bcast(buf, count, type, root, comm);
    T0();
    int rc = PMPI_Bcast(buf, count, type, root, comm);
    ngx_trace_note_bcast(NGX_TRACE_BCAST, t0, ngx_trace_now(), comm, root, ngx_trace_bytes(count, type), 0);
    return rc;
}

NGX_TRACE_EXPORT int MPI_Reduce(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                                MPI_Comm comm)
{
    if (!ngx_trace_active())
        return PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm);
    T0();
    int rc = PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm);
    ngx_trace_note_bcast(NGX_TRACE_REDUCE, t0, ngx_trace_now(), comm, root, ngx_trace_bytes(count, type), 0);
    return rc;
}

NGX_TRACE_EXPORT int MPI_Allreduce(const void* sbuf, void* rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    if (!ngx_trace_active())
        return PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
    T0();
    int rc = PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
    uint64_t b = ngx_trace_bytes(count, type);
    ngx_trace_note_coll(NGX_TRACE_ALLREDUCE, t0, ngx_trace_now(), comm, MPI_PROC_NULL, b, b, 0);
    return rc;
}

NGX_TRACE_EXPORT int MPI_Allgather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                                   MPI_Datatype rtype, MPI_Comm comm)
{
    if (!ngx_trace_active())
        return PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    T0();
    int rc = PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    int p = ngx_trace_comm_size(comm);
    ngx_trace_note_coll(NGX_TRACE_ALLGATHER, t0, ngx_trace_now(), comm, MPI_PROC_NULL,
                        own_bytes(sbuf, scount, stype, rcount, rtype), ngx_trace_bytes(rcount, rtype) * (uint64_t)p, 0);
    return rc;
}

NGX_TRACE_EXPORT int MPI_Allgatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[],
                                    const int displs[], MPI_Datatype rtype, MPI_Comm comm)
{
    if (!ngx_trace_active())
        return PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm);
    T0();
    int rc = PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm);
    int p = ngx_trace_comm_size(comm);
    ngx_trace_note_coll(NGX_TRACE_ALLGATHERV, t0, ngx_trace_now(), comm, MPI_PROC_NULL, ngx_trace_bytes(scount, stype),
                        ngx_trace_bytes_v(rcounts, p, rtype), 0);
    return rc;
}

NGX_TRACE_EXPORT int MPI_Alltoall(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                                  MPI_Datatype rtype, MPI_Comm comm)
{
    if (!ngx_trace_active())
        return PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    T0();
    int rc = PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    uint64_t p = (uint64_t)ngx_trace_comm_size(comm);
    ngx_trace_note_coll(NGX_TRACE_ALLTOALL, t0, ngx_trace_now(), comm, MPI_PROC_NULL,
                        own_bytes(sbuf, scount, stype, rcount, rtype) * p, ngx_trace_bytes(rcount, rtype) * p, 0);
    return rc;
}

NGX_TRACE_EXPORT int MPI_Alltoallv(const void* sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                                   void* rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype,
                                   MPI_Comm comm)
{
    if (!ngx_trace_active())
        return PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
    T0();
    int rc = PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
    int p = ngx_trace_comm_size(comm);
    uint64_t rb = ngx_trace_bytes_v(rcounts, p, rtype);
    ngx_trace_note_coll(NGX_TRACE_ALLTOALLV, t0, ngx_trace_now(), comm, MPI_PROC_NULL,
                        sbuf == MPI_IN_PLACE ? rb : ngx_trace_bytes_v(scounts, p, stype), rb, 0);
    return rc;
}

/* Root-side buffers count only at the root (the MPI standard ignores them elsewhere). */

NGX_TRACE_EXPORT int MPI_Gather(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                                MPI_Datatype rtype, int root, MPI_Comm comm)
{
    if (!ngx_trace_active())
        return PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    T0();
    int rc = PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    struct ngx_trace_root_side side = {0, NULL, rcount, rtype};
    ngx_trace_note_rooted(NGX_TRACE_GATHER, t0, ngx_trace_now(), comm, root, &side,
                          own_bytes(sbuf, scount, stype, rcount, rtype), 0);
    return rc;
}

NGX_TRACE_EXPORT int MPI_Gatherv(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, const int rcounts[],
                                 const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm)
{
    if (!ngx_trace_active())
        return PMPI_Gatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm);
    T0();
    int rc = PMPI_Gatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm);
    struct ngx_trace_root_side side = {0, rcounts, 0, rtype};
    ngx_trace_note_rooted(NGX_TRACE_GATHERV, t0, ngx_trace_now(), comm, root, &side, ngx_trace_bytes(scount, stype), 0);
    return rc;
}

NGX_TRACE_EXPORT int MPI_Scatter(const void* sbuf, int scount, MPI_Datatype stype, void* rbuf, int rcount,
                                 MPI_Datatype rtype, int root, MPI_Comm comm)
{
    if (!ngx_trace_active())
        return PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    T0();
    int rc = PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    struct ngx_trace_root_side side = {1, NULL, scount, stype};
    ngx_trace_note_rooted(NGX_TRACE_SCATTER, t0, ngx_trace_now(), comm, root, &side, ngx_trace_bytes(rcount, rtype), 0);
    return rc;
}

NGX_TRACE_EXPORT int MPI_Scatterv(const void* sbuf, const int scounts[], const int displs[], MPI_Datatype stype,
                                  void* rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    if (!ngx_trace_active())
        return PMPI_Scatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm);
    T0();
    int rc = PMPI_Scatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm);
    struct ngx_trace_root_side side = {1, scounts, 0, stype};
    ngx_trace_note_rooted(NGX_TRACE_SCATTERV, t0, ngx_trace_now(), comm, root, &side, ngx_trace_bytes(rcount, rtype),
                          0);
    return rc;
}
