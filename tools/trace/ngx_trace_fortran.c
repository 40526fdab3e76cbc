/* ngx_trace_fortran.c: the Fortran MPI bindings libngx-trace.so intercepts.
 *
 * Open MPI 4.1's Fortran bindings do not come back through the C MPI_*
 * symbols: mpif.h and `use mpi` programs call mpi_send_ (libmpi_mpifh),
 * which calls PMPI_Send directly, and `use mpi_f08` calls mpi_send_f08_
 * (libmpi_usempif08), which calls ompi_send_f in libmpi_mpifh. So the
 * tracer defines the Fortran entry points itself: mpi_send_, mpi_send__ and
 * ompi_send_f are one function that times the real pmpi_send_ (found with
 * dlsym(RTLD_NEXT)) and notes the call with NGX_TRACE_RF_FORTRAN.
 * mpi_init_ and mpi_finalize_ likewise start and stop the recorder.
 *
 * Covered: Init, Init_thread, Finalize, Abort (flushes), Send, Ssend, Bsend, Rsend, Isend,
 * Irecv, Recv, Sendrecv, Probe, Wait, Waitall, Waitany, Test, Barrier, Bcast,
 * Reduce, Allreduce, Allgather(v), Alltoall(v), Gather(v), Scatter(v).
 * Other Fortran calls run untraced. MPI_IN_PLACE is not recognised in
 * Fortran: an in-place collective counts its send arguments as given.
 */
#define _GNU_SOURCE
#include "ngx_trace_internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#define FSTATUS_MAX 16 /* Fortran MPI_STATUS_SIZE is 6 in Open MPI 4.1 */

/* The next definition of a Fortran symbol (Open MPI's), looked up once per symbol by the caller. */
static void* real_fortran(const char* name)
{
    void* f = dlsym(RTLD_NEXT, name);
    if (f == NULL) {
        fprintf(stderr, "ngx-trace: the Fortran MPI function %s is not found: %s\n", name, dlerror());
        abort();
    }
    return f;
}

/* The real function NAME (a pmpi_*_ symbol), resolved on first use; the cache is part of the tracer state. */
#define REAL(TYPE, NAME)                                                                                               \
    static TYPE real_fn = NULL;                                                                                        \
    if (real_fn == NULL)                                                                                               \
    real_fn = (TYPE)real_fortran(NAME)

/* The three names one Fortran wrapper answers to. */
#define FORTRAN_NAMES(IMPL, LOWER)                                                                                     \
    NGX_TRACE_EXPORT __attribute__((alias(#IMPL))) __typeof__(IMPL) mpi_##LOWER##_;                                    \
    NGX_TRACE_EXPORT __attribute__((alias(#IMPL))) __typeof__(IMPL) mpi_##LOWER##__;                                   \
    NGX_TRACE_EXPORT __attribute__((alias(#IMPL))) __typeof__(IMPL) ompi_##LOWER##_f;

/* A C status from a Fortran one, or from our own when the program passed MPI_STATUS_IGNORE. */
static MPI_Fint* fstatus_or_own(MPI_Fint* status, MPI_Fint* own)
{
    return status == MPI_F_STATUS_IGNORE ? own : status;
}

/* ---- lifetime --------------------------------------------------------- */

typedef void (*init_fn)(MPI_Fint*);
static void trace_init_f(MPI_Fint* ierr)
{
    REAL(init_fn, "pmpi_init_");
    real_fn(ierr);
    if (*ierr == MPI_SUCCESS)
        ngx_trace_start();
}
FORTRAN_NAMES(trace_init_f, init)

typedef void (*init_thread_fn)(MPI_Fint*, MPI_Fint*, MPI_Fint*);
static void trace_init_thread_f(MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr)
{
    REAL(init_thread_fn, "pmpi_init_thread_");
    real_fn(required, provided, ierr);
    if (*ierr == MPI_SUCCESS)
        ngx_trace_start();
}
FORTRAN_NAMES(trace_init_thread_f, init_thread)

static void trace_finalize_f(MPI_Fint* ierr)
{
    REAL(init_fn, "pmpi_finalize_");
    ngx_trace_stop();
    real_fn(ierr);
}
FORTRAN_NAMES(trace_finalize_f, finalize)

typedef void (*abort_fn)(MPI_Fint*, MPI_Fint*, MPI_Fint*);
static void trace_abort_f(MPI_Fint* comm, MPI_Fint* code, MPI_Fint* ierr)
{
    REAL(abort_fn, "pmpi_abort_");
    ngx_trace_abort();
    real_fn(comm, code, ierr);
}
FORTRAN_NAMES(trace_abort_f, abort)

/* ---- point-to-point --------------------------------------------------- */

typedef void (*send_fn)(void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*);

static void note_send_f(uint16_t kind, int64_t t0, MPI_Fint* count, MPI_Fint* type, MPI_Fint* dest, MPI_Fint* tag,
                        MPI_Fint* comm)
{
    int64_t t1 = ngx_trace_now();
    ngx_trace_note_p2p(kind, t0, t1, PMPI_Comm_f2c(*comm), *dest, *tag, ngx_trace_bytes(*count, PMPI_Type_f2c(*type)),
                       NGX_TRACE_RF_FORTRAN);
}

#define FORTRAN_SEND(LOWER, KIND)                                                                                      \
    static void trace_##LOWER##_f(void* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* dest, MPI_Fint* tag,           \
                                  MPI_Fint* comm, MPI_Fint* ierr)                                                      \
    {                                                                                                                  \
        REAL(send_fn, "pmpi_" #LOWER "_");                                                                             \
        if (!ngx_trace_active()) {                                                                                     \
            real_fn(buf, count, type, dest, tag, comm, ierr);                                                          \
            return;                                                                                                    \
        }                                                                                                              \
        int64_t t0 = ngx_trace_now();                                                                                  \
        real_fn(buf, count, type, dest, tag, comm, ierr);                                                              \
        note_send_f(KIND, t0, count, type, dest, tag, comm);                                                           \
    }                                                                                                                  \
    FORTRAN_NAMES(trace_##LOWER##_f, LOWER)

FORTRAN_SEND(send, NGX_TRACE_SEND)
FORTRAN_SEND(ssend, NGX_TRACE_SSEND)
FORTRAN_SEND(bsend, NGX_TRACE_BSEND)
FORTRAN_SEND(rsend, NGX_TRACE_RSEND)

typedef void (*start_fn)(void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*);

#define FORTRAN_START(LOWER, KIND)                                                                                     \
    static void trace_##LOWER##_f(void* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* peer, MPI_Fint* tag,           \
                                  MPI_Fint* comm, MPI_Fint* req, MPI_Fint* ierr)                                       \
    {                                                                                                                  \
        REAL(start_fn, "pmpi_" #LOWER "_");                                                                            \
        if (!ngx_trace_active()) {                                                                                     \
            real_fn(buf, count, type, peer, tag, comm, req, ierr);                                                     \
            return;                                                                                                    \
        }                                                                                                              \
        int64_t t0 = ngx_trace_now();                                                                                  \
        real_fn(buf, count, type, peer, tag, comm, req, ierr);                                                         \
        ngx_trace_note_start(KIND, t0, ngx_trace_now(), PMPI_Comm_f2c(*comm), *peer, *tag,                             \
                             ngx_trace_bytes(*count, PMPI_Type_f2c(*type)), PMPI_Request_f2c(*req),                    \
                             NGX_TRACE_RF_FORTRAN);                                                                    \
    }                                                                                                                  \
    FORTRAN_NAMES(trace_##LOWER##_f, LOWER)

FORTRAN_START(isend, NGX_TRACE_ISEND)
FORTRAN_START(irecv, NGX_TRACE_IRECV)

typedef void (*recv_fn)(void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*);
static void trace_recv_f(void* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* source, MPI_Fint* tag, MPI_Fint* comm,
                         MPI_Fint* status, MPI_Fint* ierr)
{
    REAL(recv_fn, "pmpi_recv_");
    MPI_Fint own[FSTATUS_MAX];
    MPI_Fint* fst = fstatus_or_own(status, own);
    if (!ngx_trace_active()) {
        real_fn(buf, count, type, source, tag, comm, status, ierr);
        return;
    }
    int64_t t0 = ngx_trace_now();
    real_fn(buf, count, type, source, tag, comm, fst, ierr);
    int64_t t1 = ngx_trace_now();
    MPI_Status st;
    PMPI_Status_f2c(fst, &st);
    ngx_trace_note_recv(NGX_TRACE_RECV, t0, t1, PMPI_Comm_f2c(*comm), *source, &st, NGX_TRACE_RF_FORTRAN);
}
FORTRAN_NAMES(trace_recv_f, recv)

typedef void (*sendrecv_fn)(void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*,
                            MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*);
static void trace_sendrecv_f(void* sbuf, MPI_Fint* scount, MPI_Fint* stype, MPI_Fint* dest, MPI_Fint* stag, void* rbuf,
                             MPI_Fint* rcount, MPI_Fint* rtype, MPI_Fint* source, MPI_Fint* rtag, MPI_Fint* comm,
                             MPI_Fint* status, MPI_Fint* ierr)
{
    REAL(sendrecv_fn, "pmpi_sendrecv_");
    MPI_Fint own[FSTATUS_MAX];
    MPI_Fint* fst = fstatus_or_own(status, own);
    if (!ngx_trace_active()) {
        real_fn(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, status, ierr);
        return;
    }
    int64_t t0 = ngx_trace_now();
    real_fn(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, fst, ierr);
    int64_t t1 = ngx_trace_now();
    MPI_Status st;
    PMPI_Status_f2c(fst, &st);
    ngx_trace_note_sendrecv(t0, t1, PMPI_Comm_f2c(*comm), *dest, *stag, ngx_trace_bytes(*scount, PMPI_Type_f2c(*stype)),
                            &st, NGX_TRACE_RF_FORTRAN);
}
FORTRAN_NAMES(trace_sendrecv_f, sendrecv)

/* ---- completion ------------------------------------------------------- */

typedef void (*wait_fn)(MPI_Fint*, MPI_Fint*, MPI_Fint*);
static void trace_wait_f(MPI_Fint* req, MPI_Fint* status, MPI_Fint* ierr)
{
    REAL(wait_fn, "pmpi_wait_");
    MPI_Fint own[FSTATUS_MAX];
    MPI_Fint* fst = fstatus_or_own(status, own);
    if (!ngx_trace_active()) {
        real_fn(req, status, ierr);
        return;
    }
    MPI_Request handle = PMPI_Request_f2c(*req);
    int done = 1;
    int64_t t0 = ngx_trace_now();
    real_fn(req, fst, ierr);
    int64_t t1 = ngx_trace_now();
    MPI_Status st;
    PMPI_Status_f2c(fst, &st);
    ngx_trace_note_completions(NGX_TRACE_WAIT, t0, t1, 1, &handle, &st, &done, NGX_TRACE_RF_FORTRAN);
}
FORTRAN_NAMES(trace_wait_f, wait)

typedef void (*waitall_fn)(MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*);

/* Scratch for Waitall: C handles, C statuses, done flags, and Fortran statuses when the program ignores them. */
struct fwait_copy {
    MPI_Status* st;
    MPI_Request* h;
    int* done;
    MPI_Fint* fst;
};

static int fwait_copy(int n, const MPI_Fint* reqs, int done, struct fwait_copy* c)
{
    size_t m = n > 0 ? (size_t)n : 1;
    char* p = ngx_trace_scratch(
        m * (sizeof(MPI_Status) + sizeof(MPI_Request) + sizeof(int) + FSTATUS_MAX * sizeof(MPI_Fint)));
    if (p == NULL)
        return -1;
    c->st = (MPI_Status*)p;
    c->h = (MPI_Request*)(p + m * sizeof(MPI_Status));
    c->fst = (MPI_Fint*)(p + m * (sizeof(MPI_Status) + sizeof(MPI_Request)));
    c->done = (int*)(p + m * (sizeof(MPI_Status) + sizeof(MPI_Request) + FSTATUS_MAX * sizeof(MPI_Fint)));
    for (int i = 0; i < n; i++) {
        c->h[i] = PMPI_Request_f2c(reqs[i]);
        c->done[i] = done;
    }
    return 0;
}

static void trace_waitall_f(MPI_Fint* count, MPI_Fint* reqs, MPI_Fint* statuses, MPI_Fint* ierr)
{
    REAL(waitall_fn, "pmpi_waitall_");
    struct fwait_copy c;
    if (!ngx_trace_active() || fwait_copy(*count, reqs, 1, &c) != 0) {
        real_fn(count, reqs, statuses, ierr);
        return;
    }
    MPI_Fint* fst = statuses == MPI_F_STATUSES_IGNORE ? c.fst : statuses;
    int64_t t0 = ngx_trace_now();
    real_fn(count, reqs, fst, ierr);
    int64_t t1 = ngx_trace_now();
    int fsize = (int)(sizeof(MPI_Status) / sizeof(MPI_Fint)); /* MPI_STATUS_SIZE */
    for (int i = 0; i < *count; i++)
        PMPI_Status_f2c(fst + (size_t)i * (size_t)fsize, &c.st[i]);
    ngx_trace_note_completions(NGX_TRACE_WAITALL, t0, t1, *count, c.h, c.st, c.done, NGX_TRACE_RF_FORTRAN);
}
FORTRAN_NAMES(trace_waitall_f, waitall)

typedef void (*test_fn)(MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*);
static void trace_test_f(MPI_Fint* req, MPI_Fint* flag, MPI_Fint* status, MPI_Fint* ierr)
{
    REAL(test_fn, "pmpi_test_");
    MPI_Fint own[FSTATUS_MAX];
    MPI_Fint* fst = fstatus_or_own(status, own);
    if (!ngx_trace_active()) {
        real_fn(req, flag, status, ierr);
        return;
    }
    MPI_Request handle = PMPI_Request_f2c(*req);
    int64_t t0 = ngx_trace_now();
    real_fn(req, flag, fst, ierr);
    int64_t t1 = ngx_trace_now();
    MPI_Status st;
    PMPI_Status_f2c(fst, &st);
    int done = *flag != 0;
    ngx_trace_note_completions(NGX_TRACE_TEST, t0, t1, 1, &handle, &st, &done, NGX_TRACE_RF_FORTRAN);
}
FORTRAN_NAMES(trace_test_f, test)

typedef void (*waitany_fn)(MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*);
static void trace_waitany_f(MPI_Fint* count, MPI_Fint* reqs, MPI_Fint* index, MPI_Fint* status, MPI_Fint* ierr)
{
    REAL(waitany_fn, "pmpi_waitany_");
    MPI_Fint own[FSTATUS_MAX];
    MPI_Fint* fst = fstatus_or_own(status, own);
    struct fwait_copy c;
    if (!ngx_trace_active() || fwait_copy(*count, reqs, 0, &c) != 0) {
        real_fn(count, reqs, index, status, ierr);
        return;
    }
    int64_t t0 = ngx_trace_now();
    real_fn(count, reqs, index, fst, ierr);
    int64_t t1 = ngx_trace_now();
    int i = *index - 1; /* Fortran indices start at 1 */
    if (*index != MPI_UNDEFINED && i >= 0 && i < *count) {
        c.done[i] = 1;
        PMPI_Status_f2c(fst, &c.st[i]);
    }
    ngx_trace_note_completions(NGX_TRACE_WAITANY, t0, t1, *count, c.h, c.st, c.done, NGX_TRACE_RF_FORTRAN);
}
FORTRAN_NAMES(trace_waitany_f, waitany)

typedef void (*probe_fn)(MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*);
static void trace_probe_f(MPI_Fint* source, MPI_Fint* tag, MPI_Fint* comm, MPI_Fint* status, MPI_Fint* ierr)
{
    REAL(probe_fn, "pmpi_probe_");
    MPI_Fint own[FSTATUS_MAX];
    MPI_Fint* fst = fstatus_or_own(status, own);
    if (!ngx_trace_active()) {
        real_fn(source, tag, comm, status, ierr);
        return;
    }
    int64_t t0 = ngx_trace_now();
    real_fn(source, tag, comm, fst, ierr);
    int64_t t1 = ngx_trace_now();
    MPI_Status st;
    PMPI_Status_f2c(fst, &st);
    ngx_trace_note_probe(NGX_TRACE_PROBE, t0, t1, PMPI_Comm_f2c(*comm), &st, 1, NGX_TRACE_RF_FORTRAN);
}
FORTRAN_NAMES(trace_probe_f, probe)

/* ---- collectives ------------------------------------------------------ */

typedef void (*barrier_fn)(MPI_Fint*, MPI_Fint*);
static void trace_barrier_f(MPI_Fint* comm, MPI_Fint* ierr)
{
    REAL(barrier_fn, "pmpi_barrier_");
    int64_t t0 = ngx_trace_now();
    real_fn(comm, ierr);
    if (ngx_trace_active())
        ngx_trace_note_coll(NGX_TRACE_BARRIER, t0, ngx_trace_now(), PMPI_Comm_f2c(*comm), MPI_PROC_NULL, 0, 0,
                            NGX_TRACE_RF_FORTRAN);
}
FORTRAN_NAMES(trace_barrier_f, barrier)

typedef void (*bcast_fn)(void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*);
static void trace_bcast_f(void* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* root, MPI_Fint* comm, MPI_Fint* ierr)
{
    REAL(bcast_fn, "pmpi_bcast_");
    int64_t t0 = ngx_trace_now();
    real_fn(buf, count, type, root, comm, ierr);
    if (!ngx_trace_active())
        return;
    ngx_trace_note_bcast(NGX_TRACE_BCAST, t0, ngx_trace_now(), PMPI_Comm_f2c(*comm), *root,
                         ngx_trace_bytes(*count, PMPI_Type_f2c(*type)), NGX_TRACE_RF_FORTRAN);
}
FORTRAN_NAMES(trace_bcast_f, bcast)

typedef void (*reduce_fn)(void*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*);
static void trace_reduce_f(void* sbuf, void* rbuf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* op, MPI_Fint* root,
                           MPI_Fint* comm, MPI_Fint* ierr)
{
    REAL(reduce_fn, "pmpi_reduce_");
    int64_t t0 = ngx_trace_now();
    real_fn(sbuf, rbuf, count, type, op, root, comm, ierr);
    if (!ngx_trace_active())
        return;
    ngx_trace_note_bcast(NGX_TRACE_REDUCE, t0, ngx_trace_now(), PMPI_Comm_f2c(*comm), *root,
                         ngx_trace_bytes(*count, PMPI_Type_f2c(*type)), NGX_TRACE_RF_FORTRAN);
}
FORTRAN_NAMES(trace_reduce_f, reduce)

typedef void (*allreduce_fn)(void*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*);
static void trace_allreduce_f(void* sbuf, void* rbuf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* op, MPI_Fint* comm,
                              MPI_Fint* ierr)
{
    REAL(allreduce_fn, "pmpi_allreduce_");
    int64_t t0 = ngx_trace_now();
    real_fn(sbuf, rbuf, count, type, op, comm, ierr);
    if (!ngx_trace_active())
        return;
    uint64_t b = ngx_trace_bytes(*count, PMPI_Type_f2c(*type));
    ngx_trace_note_coll(NGX_TRACE_ALLREDUCE, t0, ngx_trace_now(), PMPI_Comm_f2c(*comm), MPI_PROC_NULL, b, b,
                        NGX_TRACE_RF_FORTRAN);
}
FORTRAN_NAMES(trace_allreduce_f, allreduce)

/* The Fortran collectives' byte counts go through the C handles of their type and communicator. */
static uint64_t fbytes(const MPI_Fint* count, const MPI_Fint* type)
{
    return ngx_trace_bytes(*count, PMPI_Type_f2c(*type));
}

typedef void (*allgather_fn)(void*, MPI_Fint*, MPI_Fint*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*);

/* Allgather and Alltoall share a signature; bytes of all P blocks are received (and for Alltoall sent). */
#define FORTRAN_ALL(LOWER, KIND, SEND_BLOCKS)                                                                          \
    static void trace_##LOWER##_f(void* sbuf, MPI_Fint* scount, MPI_Fint* stype, void* rbuf, MPI_Fint* rcount,         \
                                  MPI_Fint* rtype, MPI_Fint* comm, MPI_Fint* ierr)                                     \
    {                                                                                                                  \
        REAL(allgather_fn, "pmpi_" #LOWER "_");                                                                        \
        int64_t t0 = ngx_trace_now();                                                                                  \
        real_fn(sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr);                                                 \
        if (!ngx_trace_active())                                                                                       \
            return;                                                                                                    \
        MPI_Comm c = PMPI_Comm_f2c(*comm);                                                                             \
        uint64_t p = (uint64_t)ngx_trace_comm_size(c);                                                                 \
        ngx_trace_note_coll(KIND, t0, ngx_trace_now(), c, MPI_PROC_NULL, fbytes(scount, stype) * (SEND_BLOCKS),        \
                            fbytes(rcount, rtype) * p, NGX_TRACE_RF_FORTRAN);                                          \
    }                                                                                                                  \
    FORTRAN_NAMES(trace_##LOWER##_f, LOWER)

FORTRAN_ALL(allgather, NGX_TRACE_ALLGATHER, 1)
FORTRAN_ALL(alltoall, NGX_TRACE_ALLTOALL, p)

typedef void (*gather_fn)(void*, MPI_Fint*, MPI_Fint*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*);

/* Gather and Scatter: the root's buffer holds P blocks and counts only at the root. */
#define FORTRAN_ROOTED(LOWER, KIND, ROOT_SENDS)                                                                        \
    static void trace_##LOWER##_f(void* sbuf, MPI_Fint* scount, MPI_Fint* stype, void* rbuf, MPI_Fint* rcount,         \
                                  MPI_Fint* rtype, MPI_Fint* root, MPI_Fint* comm, MPI_Fint* ierr)                     \
    {                                                                                                                  \
        REAL(gather_fn, "pmpi_" #LOWER "_");                                                                           \
        int64_t t0 = ngx_trace_now();                                                                                  \
        real_fn(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, ierr);                                           \
        if (!ngx_trace_active())                                                                                       \
            return;                                                                                                    \
        struct ngx_trace_root_side side = {ROOT_SENDS, NULL, ROOT_SENDS ? *scount : *rcount,                           \
                                           PMPI_Type_f2c(ROOT_SENDS ? *stype : *rtype)};                               \
        uint64_t own = ROOT_SENDS ? fbytes(rcount, rtype) : fbytes(scount, stype);                                     \
        ngx_trace_note_rooted(KIND, t0, ngx_trace_now(), PMPI_Comm_f2c(*comm), *root, &side, own,                      \
                              NGX_TRACE_RF_FORTRAN);                                                                   \
    }                                                                                                                  \
    FORTRAN_NAMES(trace_##LOWER##_f, LOWER)

FORTRAN_ROOTED(gather, NGX_TRACE_GATHER, 0)
FORTRAN_ROOTED(scatter, NGX_TRACE_SCATTER, 1)

typedef void (*gatherv_fn)(void*, MPI_Fint*, MPI_Fint*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*,
                           MPI_Fint*);
static void trace_gatherv_f(void* sbuf, MPI_Fint* scount, MPI_Fint* stype, void* rbuf, MPI_Fint* rcounts,
                            MPI_Fint* displs, MPI_Fint* rtype, MPI_Fint* root, MPI_Fint* comm, MPI_Fint* ierr)
{
    REAL(gatherv_fn, "pmpi_gatherv_");
    int64_t t0 = ngx_trace_now();
    real_fn(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, ierr);
    struct ngx_trace_root_side side = {0, rcounts, 0, PMPI_Type_f2c(*rtype)};
    if (ngx_trace_active())
        ngx_trace_note_rooted(NGX_TRACE_GATHERV, t0, ngx_trace_now(), PMPI_Comm_f2c(*comm), *root, &side,
                              fbytes(scount, stype), NGX_TRACE_RF_FORTRAN);
}
FORTRAN_NAMES(trace_gatherv_f, gatherv)

typedef void (*scatterv_fn)(void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*,
                            MPI_Fint*);
static void trace_scatterv_f(void* sbuf, MPI_Fint* scounts, MPI_Fint* displs, MPI_Fint* stype, void* rbuf,
                             MPI_Fint* rcount, MPI_Fint* rtype, MPI_Fint* root, MPI_Fint* comm, MPI_Fint* ierr)
{
    REAL(scatterv_fn, "pmpi_scatterv_");
    int64_t t0 = ngx_trace_now();
    real_fn(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, ierr);
    struct ngx_trace_root_side side = {1, scounts, 0, PMPI_Type_f2c(*stype)};
    if (ngx_trace_active())
        ngx_trace_note_rooted(NGX_TRACE_SCATTERV, t0, ngx_trace_now(), PMPI_Comm_f2c(*comm), *root, &side,
                              fbytes(rcount, rtype), NGX_TRACE_RF_FORTRAN);
}
FORTRAN_NAMES(trace_scatterv_f, scatterv)

typedef void (*allgatherv_fn)(void*, MPI_Fint*, MPI_Fint*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*,
                              MPI_Fint*);
static void trace_allgatherv_f(void* sbuf, MPI_Fint* scount, MPI_Fint* stype, void* rbuf, MPI_Fint* rcounts,
                               MPI_Fint* displs, MPI_Fint* rtype, MPI_Fint* comm, MPI_Fint* ierr)
{
    REAL(allgatherv_fn, "pmpi_allgatherv_");
    int64_t t0 = ngx_trace_now();
    real_fn(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, ierr);
    if (!ngx_trace_active())
        return;
    MPI_Comm c = PMPI_Comm_f2c(*comm);
    ngx_trace_note_coll(NGX_TRACE_ALLGATHERV, t0, ngx_trace_now(), c, MPI_PROC_NULL, fbytes(scount, stype),
                        ngx_trace_bytes_v(rcounts, ngx_trace_comm_size(c), PMPI_Type_f2c(*rtype)),
                        NGX_TRACE_RF_FORTRAN);
}
FORTRAN_NAMES(trace_allgatherv_f, allgatherv)

typedef void (*alltoallv_fn)(void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*,
                             MPI_Fint*);
static void trace_alltoallv_f(void* sbuf, MPI_Fint* scounts, MPI_Fint* sdispls, MPI_Fint* stype, void* rbuf,
                              MPI_Fint* rcounts, MPI_Fint* rdispls, MPI_Fint* rtype, MPI_Fint* comm, MPI_Fint* ierr)
{
    REAL(alltoallv_fn, "pmpi_alltoallv_");
    int64_t t0 = ngx_trace_now();
    real_fn(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, ierr);
    if (!ngx_trace_active())
        return;
    MPI_Comm c = PMPI_Comm_f2c(*comm);
    int p = ngx_trace_comm_size(c);
    ngx_trace_note_coll(NGX_TRACE_ALLTOALLV, t0, ngx_trace_now(), c, MPI_PROC_NULL,
                        ngx_trace_bytes_v(scounts, p, PMPI_Type_f2c(*stype)),
                        ngx_trace_bytes_v(rcounts, p, PMPI_Type_f2c(*rtype)), NGX_TRACE_RF_FORTRAN);
}
FORTRAN_NAMES(trace_alltoallv_f, alltoallv)
