/* ngx_trace.c: the recorder of libngx-trace.so, a PMPI interposition library.
 *
 * Put it under any MPI program without recompiling it:
 *
 *     NGX_TRACE_DIR=out mpirun -np 4 -x LD_PRELOAD=.../libngx-trace.so -x NGX_TRACE_DIR ./app
 *
 * This file holds the one per-process tracer state (a PMPI interposer
 * inherently has one: the MPI library calls it through fixed symbols, with no
 * context pointer), the record buffer and its flushing, the communicator and
 * request tables, and the clock alignment at MPI_Init / MPI_Finalize. The C
 * wrappers are in ngx_trace_c.c, the Fortran ones in ngx_trace_fortran.c
 * (which also caches the addresses of Open MPI's Fortran functions); both
 * only time the call and hand the arguments to the ngx_trace_note_*
 * functions of ngx_trace_notes.c, which fill records through the functions
 * here. The file format is described in ngx_trace_format.h.
 *
 * Environment: NGX_TRACE_DIR (required; without it the tracer stays off and
 * says so once), NGX_TRACE_BUFFER_EVENTS (records per flush, default 65536).
 * No I/O happens inside a traced call except when the buffer is full (the
 * flush is recorded as an NGX_TRACE_FLUSH record). Not safe under
 * MPI_THREAD_MULTIPLE with concurrent MPI calls (records would interleave).
 */
#define _GNU_SOURCE
#include "ngx_trace_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define COMM_SLOTS 256
#define ALIGN_ROUNDS 10
#define ALIGN_TAG 7301

struct comm_slot {
    MPI_Comm comm;
    uint32_t id;
    int size;
    int* world; /* world rank of each (remote, for intercommunicators) rank */
};

struct req_slot {
    uintptr_t key; /* 0 = empty */
    uint64_t id;
    MPI_Comm comm;
    int32_t peer; /* world rank posted (send: destination) */
    int is_send;
};

/* What the process has used since it started: CPU time, time runnable but
 * off a CPU (-1: the kernel keeps no schedstat), involuntary switches. */
struct cpu_use {
    uint64_t cpu_ns;
    int64_t waiting_ns;
    uint64_t involuntary_switches;
};

/* The calling thread's run-queue delay (the thread that calls MPI_Init and
 * MPI_Finalize, the program's own), in ns; -1 when the kernel keeps none. */
static int64_t run_queue_wait_ns(void)
{
    FILE* f = fopen("/proc/thread-self/schedstat", "r");
    unsigned long long running = 0, waiting = 0;
    int ok = f && fscanf(f, "%llu %llu", &running, &waiting) == 2;
    if (f)
        fclose(f);
    return ok ? (int64_t)waiting : -1;
}

static struct cpu_use read_cpu_use(void)
{
    struct cpu_use use = {0, run_queue_wait_ns(), 0};
    struct rusage self;
    if (getrusage(RUSAGE_SELF, &self) == 0) {
        use.cpu_ns = (uint64_t)(self.ru_utime.tv_sec + self.ru_stime.tv_sec) * 1000000000ull +
                     (uint64_t)(self.ru_utime.tv_usec + self.ru_stime.tv_usec) * 1000ull;
        use.involuntary_switches = (uint64_t)self.ru_nivcsw;
    }
    return use;
}

static uint32_t load_average_milli(void)
{
    double load = 0;
    FILE* f = fopen("/proc/loadavg", "r");
    if (f && fscanf(f, "%lf", &load) != 1)
        load = 0;
    if (f)
        fclose(f);
    return (uint32_t)(load * 1000 + 0.5);
}

/* The header's cpu fields: this rank's use since MPI_Init. */
static void record_cpu_use(struct ngx_trace_header* h, const struct cpu_use* start)
{
    struct cpu_use now = read_cpu_use();
    h->cpu_ns = now.cpu_ns - start->cpu_ns;
    if (now.waiting_ns < 0 || start->waiting_ns < 0)
        h->waiting_ns = -1;
    else /* threads that ended took their waits along: never below 0 */
        h->waiting_ns = now.waiting_ns > start->waiting_ns ? now.waiting_ns - start->waiting_ns : 0;
    h->involuntary_switches = now.involuntary_switches - start->involuntary_switches;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    h->cpus_online = cpus > 0 ? (uint32_t)cpus : 0;
    h->load_milli = load_average_milli();
    h->flags |= NGX_TRACE_FLAG_CPU;
}

/* The per-process tracer state (see the overview above). */
static struct tracer {
    int started; /* ngx_trace_start ran (the alignment communicator exists) */
    int active;  /* records are being taken */
    int rank, size;
    int fd;
    struct ngx_trace_header header;
    struct ngx_trace_record* buf;
    size_t cap, len;
    MPI_Comm align_comm;
    uint64_t next_request;
    struct req_slot* reqs;
    size_t req_cap; /* power of two */
    size_t req_used;
    struct comm_slot comms[COMM_SLOTS];
    int ncomms;
    struct cpu_use cpu_at_start; /* at MPI_Init, for the header's cpu fields */
    uint32_t next_comm_id;
    void* scratch; /* request/status copies for Waitall & co. */
    size_t scratch_size;
} tr = {.fd = -1};

int64_t ngx_trace_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int ngx_trace_active(void)
{
    return tr.active;
}

/* ---- writing ---------------------------------------------------------- */

static void write_all(const void* data, size_t n, off_t at)
{
    const char* p = data;
    while (n > 0) {
        ssize_t w = at >= 0 ? pwrite(tr.fd, p, n, at) : write(tr.fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            fprintf(stderr, "ngx-trace: rank %d: cannot write the trace: %s; tracing stops\n", tr.rank,
                    strerror(errno));
            tr.active = 0;
            return;
        }
        p += w;
        n -= (size_t)w;
        if (at >= 0)
            at += w;
    }
}

static void flush_buffer(void)
{
    if (tr.len == 0 || tr.fd < 0)
        return;
    write_all(tr.buf, tr.len * sizeof *tr.buf, -1);
    tr.len = 0;
}

/* A fresh record at the end of the buffer; flushes first when it is full. */
struct ngx_trace_record* ngx_trace_record_new(uint16_t kind, int64_t t_call, int64_t t_return)
{
    if (tr.len == tr.cap) {
        int64_t t0 = ngx_trace_now();
        flush_buffer();
        struct ngx_trace_record* f = &tr.buf[tr.len++];
        memset(f, 0, sizeof *f);
        f->kind = NGX_TRACE_FLUSH;
        f->t_call = t0;
        f->t_return = ngx_trace_now();
        f->peer = NGX_TRACE_PEER_NONE;
    }
    struct ngx_trace_record* r = &tr.buf[tr.len++];
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->t_call = t_call;
    r->t_return = t_return;
    r->peer = NGX_TRACE_PEER_NONE;
    return r;
}

/* ---- communicators ---------------------------------------------------- */

static uint64_t hash_ranks(const int* world, int n)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a over the world ranks */
    for (int i = 0; i < n; i++) {
        h ^= (uint32_t)world[i];
        h *= 1099511628211ull;
    }
    return h;
}

static void fill_world_ranks(MPI_Comm comm, struct comm_slot* s)
{
    int inter = 0;
    MPI_Group group, world_group;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter) {
        PMPI_Comm_remote_group(comm, &group);
    } else {
        PMPI_Comm_group(comm, &group);
    }
    PMPI_Group_size(group, &s->size);
    PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
    int* local = malloc(sizeof(int) * (size_t)s->size);
    s->world = malloc(sizeof(int) * (size_t)s->size);
    for (int i = 0; i < s->size; i++)
        local[i] = i;
    PMPI_Group_translate_ranks(group, s->size, local, world_group, s->world);
    free(local);
    PMPI_Group_free(&group);
    PMPI_Group_free(&world_group);
}

/* The cached slot of a communicator, created (with a COMM_DEF record) on first sight; NULL if the table is full. */
static struct comm_slot* comm_slot(MPI_Comm comm)
{
    for (int i = 0; i < tr.ncomms; i++)
        if (tr.comms[i].comm == comm)
            return &tr.comms[i];
    if (tr.ncomms == COMM_SLOTS)
        return NULL;
    struct comm_slot* s = &tr.comms[tr.ncomms++];
    s->comm = comm;
    s->id = tr.next_comm_id++;
    fill_world_ranks(comm, s);
    int64_t t = ngx_trace_now();
    struct ngx_trace_record* r = ngx_trace_record_new(NGX_TRACE_COMM_DEF, t, t);
    r->comm = s->id;
    r->aux = s->size;
    r->request = hash_ranks(s->world, s->size);
    return s;
}

uint32_t ngx_trace_comm_id(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD)
        return 0;
    if (comm == MPI_COMM_SELF)
        return 1;
    struct comm_slot* s = comm_slot(comm);
    return s ? s->id : UINT32_MAX;
}

int32_t ngx_trace_world_rank(MPI_Comm comm, int rank)
{
    if (rank == MPI_ANY_SOURCE)
        return NGX_TRACE_PEER_ANY;
    if (rank == MPI_PROC_NULL)
        return NGX_TRACE_PEER_NULL;
    if (rank < 0)
        return NGX_TRACE_PEER_NONE; /* MPI_ROOT and the like */
    if (comm == MPI_COMM_WORLD)
        return rank;
    if (comm == MPI_COMM_SELF)
        return tr.rank;
    struct comm_slot* s = comm_slot(comm);
    if (s == NULL || rank >= s->size)
        return NGX_TRACE_PEER_NONE;
    return s->world[rank];
}

int ngx_trace_comm_size(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD)
        return tr.size;
    struct comm_slot* s = comm == MPI_COMM_SELF ? NULL : comm_slot(comm);
    if (s)
        return s->size;
    int n = 1;
    PMPI_Comm_size(comm, &n);
    return n;
}

void ngx_trace_comm_forget(MPI_Comm comm)
{
    for (int i = 0; i < tr.ncomms; i++) {
        if (tr.comms[i].comm == comm) {
            free(tr.comms[i].world);
            tr.comms[i] = tr.comms[--tr.ncomms];
            return;
        }
    }
}

/* ---- requests (open addressing, linear probing, backward-shift delete) - */

static size_t req_hash(uintptr_t key)
{
    return (size_t)((key >> 3) * 0x9E3779B97F4A7C15ull) & (tr.req_cap - 1);
}

static void req_insert(struct req_slot s)
{
    size_t i = req_hash(s.key);
    while (tr.reqs[i].key != 0)
        i = (i + 1) & (tr.req_cap - 1);
    tr.reqs[i] = s;
    tr.req_used++;
}

/* Doubles the request table (rare: only when more requests are pending than ever before). */
static int req_grow(void)
{
    struct req_slot* old = tr.reqs;
    size_t old_cap = tr.req_cap;
    struct req_slot* bigger = calloc(old_cap * 2, sizeof *bigger);
    if (bigger == NULL)
        return -1;
    tr.reqs = bigger;
    tr.req_cap = old_cap * 2;
    tr.req_used = 0;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].key != 0)
            req_insert(old[i]);
    free(old);
    return 0;
}

uint64_t ngx_trace_request_new(MPI_Request req, MPI_Comm comm, int32_t peer, int is_send)
{
    uint64_t id = ++tr.next_request;
    uintptr_t key = (uintptr_t)req;
    if (key == 0 || (tr.req_used * 4 >= tr.req_cap * 3 && req_grow() != 0)) {
        tr.header.requests_untracked++;
        return id;
    }
    /* the same handle may be live twice (Open MPI hands out one for sends that completed at once), so keys repeat */
    req_insert((struct req_slot){key, id, comm, peer, is_send});
    return id;
}

static void req_delete_at(size_t i)
{
    size_t mask = tr.req_cap - 1;
    size_t j = i;
    tr.reqs[i].key = 0;
    for (;;) {
        j = (j + 1) & mask;
        if (tr.reqs[j].key == 0)
            break;
        size_t home = req_hash(tr.reqs[j].key);
        /* move j back to i unless its home lies cyclically in (i, j] */
        if (((j - home) & mask) >= ((j - i) & mask)) {
            tr.reqs[i] = tr.reqs[j];
            tr.reqs[j].key = 0;
            i = j;
        }
    }
    tr.req_used--;
}

/* Takes the request out of the table (the oldest entry if the handle is there more than once); *found = 0 when it
 * was never recorded. */
static struct req_slot request_take(MPI_Request req, int* found)
{
    uintptr_t key = (uintptr_t)req;
    struct req_slot out = {0, 0, MPI_COMM_NULL, NGX_TRACE_PEER_NONE, 0};
    size_t oldest = SIZE_MAX;
    *found = 0;
    if (key == 0)
        return out;
    for (size_t i = req_hash(key); tr.reqs[i].key != 0; i = (i + 1) & (tr.req_cap - 1))
        if (tr.reqs[i].key == key && (oldest == SIZE_MAX || tr.reqs[i].id < tr.reqs[oldest].id))
            oldest = i;
    if (oldest == SIZE_MAX)
        return out;
    out = tr.reqs[oldest];
    *found = 1;
    req_delete_at(oldest);
    return out;
}

void ngx_trace_request_forget(MPI_Request req)
{
    int found;
    (void)request_take(req, &found);
}

/* A COMPLETION record for a request handle that the call completed. Everything that may add a COMM_DEF record
 * is computed before the record is taken from the buffer (a flush would move it). */
void ngx_trace_note_completion(MPI_Request handle, const MPI_Status* st, int index, int64_t t, uint16_t flags)
{
    int found, count = 0;
    struct req_slot s = request_take(handle, &found);
    uint32_t comm = found ? ngx_trace_comm_id(s.comm) : UINT32_MAX;
    int32_t peer = s.peer;
    if (!(found && s.is_send)) {
        PMPI_Get_count(st, MPI_BYTE, &count);
        peer = found ? ngx_trace_world_rank(s.comm, st->MPI_SOURCE) : st->MPI_SOURCE;
    }
    struct ngx_trace_record* r = ngx_trace_record_new(NGX_TRACE_COMPLETION, t, t);
    r->flags = flags | (found ? 0 : NGX_TRACE_RF_UNKNOWN_REQ) | (s.is_send ? NGX_TRACE_RF_SEND : 0);
    r->request = s.id;
    r->aux = index;
    r->comm = comm;
    r->peer = peer;
    if (!(found && s.is_send)) {
        r->tag = st->MPI_TAG;
        r->bytes = count == MPI_UNDEFINED ? 0 : (uint64_t)count;
    }
}

void* ngx_trace_scratch(size_t bytes)
{
    if (bytes > tr.scratch_size) {
        void* p = realloc(tr.scratch, bytes);
        if (p == NULL)
            return NULL;
        tr.scratch = p;
        tr.scratch_size = bytes;
    }
    return tr.scratch;
}

uint64_t ngx_trace_bytes(int count, MPI_Datatype type)
{
    int size = 0;
    if (count <= 0 || type == MPI_DATATYPE_NULL)
        return 0;
    PMPI_Type_size(type, &size);
    return (uint64_t)count * (uint64_t)(size > 0 ? size : 0);
}

/* ---- clock alignment -------------------------------------------------- */

/* Rank 0's side with one peer: ALIGN_ROUNDS ping-pongs, the smallest round trip kept, its offset sent back. */
static void align_with(int peer)
{
    int64_t best_rtt = INT64_MAX, best_offset = 0;
    for (int i = 0; i < ALIGN_ROUNDS; i++) {
        int64_t t_remote = 0;
        int64_t t0 = ngx_trace_now();
        PMPI_Send(&t0, 0, MPI_BYTE, peer, ALIGN_TAG, tr.align_comm);
        PMPI_Recv(&t_remote, 1, MPI_INT64_T, peer, ALIGN_TAG, tr.align_comm, MPI_STATUS_IGNORE);
        int64_t t1 = ngx_trace_now();
        if (t1 - t0 < best_rtt) {
            best_rtt = t1 - t0;
            best_offset = t_remote - (t0 + (t1 - t0) / 2);
        }
    }
    int64_t result[2] = {best_offset, best_rtt};
    PMPI_Send(result, 2, MPI_INT64_T, peer, ALIGN_TAG, tr.align_comm);
}

static void align_clocks(struct ngx_trace_clock* c)
{
    memset(c, 0, sizeof *c);
    if (tr.rank == 0) {
        for (int peer = 1; peer < tr.size; peer++)
            align_with(peer);
        c->t_local = ngx_trace_now();
        return;
    }
    for (int i = 0; i < ALIGN_ROUNDS; i++) {
        char dummy;
        PMPI_Recv(&dummy, 0, MPI_BYTE, 0, ALIGN_TAG, tr.align_comm, MPI_STATUS_IGNORE);
        int64_t t = ngx_trace_now();
        PMPI_Send(&t, 1, MPI_INT64_T, 0, ALIGN_TAG, tr.align_comm);
    }
    int64_t result[2];
    PMPI_Recv(result, 2, MPI_INT64_T, 0, ALIGN_TAG, tr.align_comm, MPI_STATUS_IGNORE);
    c->t_local = ngx_trace_now();
    c->offset = result[0];
    c->rtt = result[1];
}

/* ---- start and stop --------------------------------------------------- */

static int make_dirs(const char* dir)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
        return -1;
    for (char* p = path + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            if (mkdir(path, 0777) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    }
    return mkdir(path, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

static size_t buffer_events(void)
{
    const char* s = getenv("NGX_TRACE_BUFFER_EVENTS");
    char* end = NULL;
    long n = s ? strtol(s, &end, 10) : 0;
    if (s && (end == s || *end != '\0' || n < 2)) {
        fprintf(stderr, "ngx-trace: NGX_TRACE_BUFFER_EVENTS='%s' is not a number >= 2; using 65536\n", s);
        n = 0;
    }
    return n >= 2 ? (size_t)n : 65536;
}

static int open_trace_file(const char* dir)
{
    char path[4200];
    if (make_dirs(dir) != 0) {
        fprintf(stderr, "ngx-trace: rank %d: cannot create NGX_TRACE_DIR '%s': %s; not tracing\n", tr.rank, dir,
                strerror(errno));
        return -1;
    }
    snprintf(path, sizeof path, "%s/" NGX_TRACE_FILE_FORMAT, dir, tr.rank);
    /* Streamed as the program runs, so not through the core's write_atomically
       (nor can a library inside someone's MPI program link the C++ core); but
       never through a symbolic link planted at the rank's predictable name. */
    tr.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (tr.fd < 0)
        fprintf(stderr, "ngx-trace: rank %d: cannot open '%s': %s; not tracing\n", tr.rank, path, strerror(errno));
    return tr.fd < 0 ? -1 : 0;
}

static void fill_header(void)
{
    struct ngx_trace_header* h = &tr.header;
    memset(h, 0, sizeof *h);
    memcpy(h->magic, NGX_TRACE_MAGIC, 8);
    h->version = NGX_TRACE_VERSION;
    h->byte_order = NGX_TRACE_BYTE_ORDER;
    h->header_size = NGX_TRACE_HEADER_SIZE;
    h->record_size = NGX_TRACE_RECORD_SIZE;
    h->rank = tr.rank;
    h->world_size = tr.size;
    h->clock_id = 1;
    h->pid = getpid();
    gethostname(h->hostname, sizeof h->hostname - 1);
}

static int allocate_tables(void)
{
    tr.cap = buffer_events();
    tr.buf = malloc(tr.cap * sizeof *tr.buf);
    if (tr.buf)
        memset(tr.buf, 0, tr.cap * sizeof *tr.buf); /* fault the pages in now, not inside traced calls */
    tr.req_cap = 1024;
    tr.reqs = calloc(tr.req_cap, sizeof *tr.reqs);
    tr.next_comm_id = 2;
    return tr.buf && tr.reqs ? 0 : -1;
}

/* Called once MPI_Init(_thread) has returned: opens the file, aligns the clocks, writes the header. */
void ngx_trace_start(void)
{
    if (tr.started)
        return;
    tr.started = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &tr.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &tr.size);
    const char* dir = getenv("NGX_TRACE_DIR");
    int ok = dir != NULL && *dir != '\0';
    if (!ok && tr.rank == 0)
        fprintf(stderr, "ngx-trace: NGX_TRACE_DIR is not set; not tracing (use ngx-trace-run -o DIR)\n");
    ok = ok && open_trace_file(dir) == 0 && allocate_tables() == 0;
    /* every rank joins the alignment, so one rank that cannot trace does not hang the others */
    PMPI_Comm_dup(MPI_COMM_WORLD, &tr.align_comm);
    align_clocks(&tr.header.init);
    struct ngx_trace_clock init = tr.header.init;
    if (!ok)
        return;
    fill_header();
    tr.header.init = init;
    tr.cpu_at_start = read_cpu_use();
    write_all(&tr.header, sizeof tr.header, 0);
    lseek(tr.fd, NGX_TRACE_HEADER_SIZE, SEEK_SET);
    tr.active = 1;
}

/* Called before MPI_Finalize: the second alignment, the last flush, the final header. */
void ngx_trace_stop(void)
{
    if (!tr.started)
        return;
    struct ngx_trace_clock fini;
    align_clocks(&fini);
    PMPI_Comm_free(&tr.align_comm);
    if (!tr.active) {
        tr.started = 0;
        return;
    }
    flush_buffer();
    tr.header.fini = fini;
    record_cpu_use(&tr.header, &tr.cpu_at_start);
    tr.header.flags |= NGX_TRACE_FLAG_FINALIZED;
    write_all(&tr.header, sizeof tr.header, 0);
    tr.active = 0;
    close(tr.fd);
    tr.fd = -1;
    free(tr.buf);
    free(tr.reqs);
    free(tr.scratch);
    for (int i = 0; i < tr.ncomms; i++)
        free(tr.comms[i].world);
    tr = (struct tracer){.fd = -1};
}

/* MPI_Abort: write what is buffered, the header stays unfinalized. */
void ngx_trace_abort(void)
{
    if (!tr.active)
        return;
    flush_buffer();
    write_all(&tr.header, sizeof tr.header, 0);
    tr.active = 0;
}
