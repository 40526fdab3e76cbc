/* ngx_trace_dump.c: ngx-trace-dump, the reader of libngx-trace.so traces.
 *
 *     ngx-trace-dump [--json] [--quiet] DIR
 *
 * Validates the trace directory DIR (one rank-NNNNN.ngxt file per world rank,
 * headers consistent, every record well-formed, completion records where a
 * Wait/Test call announces them) and prints the headers and the records as
 * text, or as JSON lines with --json (one object per line, "type" = "header"
 * or "record"; records carry both local times and times on rank 0's clock).
 * --quiet only validates. Exit status: 0 valid (a rank that never reached
 * MPI_Finalize is a warning: its file holds the records up to its last
 * flush), 2 for usage errors and invalid or truncated traces.
 * The format is described in ngx_trace_format.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "ngx_trace_format.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct rank_file {
    char path[4096];
    struct ngx_trace_header h;
    struct ngx_trace_record* recs;
    size_t n;
};

struct options {
    int json;
    int quiet;
    const char* dir;
};

static int usage(const char* why)
{
    fprintf(stderr, "ngx-trace-dump: %s\nusage: ngx-trace-dump [--json] [--quiet] DIR\n", why);
    return 2;
}

static int invalid(const char* path, const char* what)
{
    fprintf(stderr, "ngx-trace-dump: %s: %s\n", path, what);
    return 2;
}

static int read_header(FILE* f, struct rank_file* rf)
{
    char msg[256];
    if (fread(&rf->h, sizeof rf->h, 1, f) != 1)
        return invalid(rf->path, "truncated: shorter than the 256-byte header");
    if (memcmp(rf->h.magic, NGX_TRACE_MAGIC, 8) != 0)
        return invalid(rf->path, "not an ngx trace file (bad magic)");
    if (rf->h.byte_order != NGX_TRACE_BYTE_ORDER)
        return invalid(rf->path, "written on a machine of the other byte order");
    if (rf->h.version != NGX_TRACE_VERSION) {
        snprintf(msg, sizeof msg, "format version %u, this reader knows %u", rf->h.version, NGX_TRACE_VERSION);
        return invalid(rf->path, msg);
    }
    if (rf->h.header_size != NGX_TRACE_HEADER_SIZE || rf->h.record_size != NGX_TRACE_RECORD_SIZE)
        return invalid(rf->path, "header or record size does not match format version 1");
    if (rf->h.world_size <= 0 || rf->h.rank < 0 || rf->h.rank >= rf->h.world_size)
        return invalid(rf->path, "rank or world size out of range");
    return 0;
}

static int read_records(FILE* f, struct rank_file* rf, long size)
{
    char msg[256];
    long body = size - (long)NGX_TRACE_HEADER_SIZE;
    if (body % NGX_TRACE_RECORD_SIZE != 0) {
        snprintf(msg, sizeof msg, "truncated: %ld bytes of records is not a multiple of %u (%ld whole records)", body,
                 NGX_TRACE_RECORD_SIZE, body / NGX_TRACE_RECORD_SIZE);
        return invalid(rf->path, msg);
    }
    rf->n = (size_t)(body / NGX_TRACE_RECORD_SIZE);
    rf->recs = malloc(rf->n ? rf->n * sizeof *rf->recs : 1);
    if (rf->recs == NULL || fread(rf->recs, sizeof *rf->recs, rf->n, f) != rf->n)
        return invalid(rf->path, "cannot read the records");
    return 0;
}

static int load_rank(const char* dir, int rank, struct rank_file* rf)
{
    struct stat st;
    snprintf(rf->path, sizeof rf->path, "%s/" NGX_TRACE_FILE_FORMAT, dir, rank);
    FILE* f = fopen(rf->path, "rb");
    if (f == NULL || fstat(fileno(f), &st) != 0) {
        char msg[256];
        snprintf(msg, sizeof msg, "missing rank file (%s)", strerror(errno));
        if (f)
            fclose(f);
        return invalid(rf->path, msg);
    }
    int rc = read_header(f, rf);
    if (rc == 0 && rf->h.rank != rank)
        rc = invalid(rf->path, "holds another rank than its name says");
    if (rc == 0)
        rc = read_records(f, rf, (long)st.st_size);
    fclose(f);
    return rc;
}

static int is_bookkeeping(uint16_t kind)
{
    return kind == NGX_TRACE_FLUSH || kind == NGX_TRACE_COMM_DEF;
}

/* The completion records after record i (bookkeeping records may sit between them); *cut: the file ends there. */
static size_t completions_after(const struct rank_file* rf, size_t i, int* cut)
{
    size_t k = 0, j = i + 1;
    for (; j < rf->n; j++) {
        if (rf->recs[j].kind == NGX_TRACE_COMPLETION)
            k++;
        else if (!is_bookkeeping(rf->recs[j].kind))
            break;
    }
    *cut = j == rf->n;
    return k;
}

/* What is wrong with record i, or NULL. */
static const char* record_problem(const struct rank_file* rf, size_t i, int* pending)
{
    const struct ngx_trace_record* r = &rf->recs[i];
    int cut = 0;
    if (ngx_trace_kind_name(r->kind) == NULL)
        return "unknown kind";
    if (r->t_call > r->t_return)
        return "returns before it is called";
    if (r->kind == NGX_TRACE_COMPLETION) {
        if (*pending == 0)
            return "completion record that no Wait/Test call announced";
        --*pending;
    } else if (!is_bookkeeping(r->kind)) {
        if (*pending != 0)
            return "a Wait/Test call before it has fewer completion records than it announced";
        if (ngx_trace_kind_completes(r->kind)) {
            size_t k = completions_after(rf, i, &cut);
            /* a file cut at a flush (killed program) may miss the last call's completions */
            if (k > (size_t)r->aux || (k < (size_t)r->aux && !cut))
                return "wrong number of completion records after this Wait/Test call";
            *pending = (int)k;
        }
    }
    return NULL;
}

/* Every record: a known kind, call <= return, and the completion records each Wait/Test announces. */
static int check_records(const struct rank_file* rf)
{
    char msg[256];
    int pending = 0;
    for (size_t i = 0; i < rf->n; i++) {
        const char* bad = record_problem(rf, i, &pending);
        if (bad) {
            const char* name = ngx_trace_kind_name(rf->recs[i].kind);
            snprintf(msg, sizeof msg, "record %zu (%s): %s", i, name ? name : "?", bad);
            return invalid(rf->path, msg);
        }
    }
    return 0;
}

static double drift_of(const struct ngx_trace_header* h)
{
    int64_t dt = h->fini.t_local - h->init.t_local;
    if (!(h->flags & NGX_TRACE_FLAG_FINALIZED) || dt <= 0)
        return 0.0;
    return (double)(h->fini.offset - h->init.offset) / (double)dt;
}

/* A local time on rank 0's clock (ngx_trace_format.h). */
static int64_t aligned(const struct ngx_trace_header* h, int64_t t)
{
    return t - (h->init.offset + (int64_t)(drift_of(h) * (double)(t - h->init.t_local)));
}

/* The rank's CPU use between MPI_Init and MPI_Finalize, when the tracer
 * recorded it: JSON fields (null when not), or a text line. */
static const char* cpu_text(const struct ngx_trace_header* h, int json, char* text, size_t size)
{
    if (!(h->flags & NGX_TRACE_FLAG_CPU))
        return json ? ",\"cpu_ns\":null,\"waiting_ns\":null,\"involuntary_switches\":null,\"cpus_online\":null,"
                      "\"load_average_1min\":null"
                    : "";
    snprintf(text, size,
             json ? ",\"cpu_ns\":%" PRIu64 ",\"waiting_ns\":%" PRId64 ",\"involuntary_switches\":%" PRIu64
                    ",\"cpus_online\":%u,\"load_average_1min\":%.3f"
                  : "#   cpu %" PRIu64 " ns, waiting for a CPU %" PRId64 " ns, involuntary switches %" PRIu64
                    ", %u CPUs online, load %.3f\n",
             h->cpu_ns, h->waiting_ns, h->involuntary_switches, h->cpus_online, h->load_milli / 1000.0);
    return text;
}

static void print_header(const struct rank_file* rf, int json)
{
    const struct ngx_trace_header* h = &rf->h;
    int fin = (h->flags & NGX_TRACE_FLAG_FINALIZED) != 0;
    const char* fmt = json ? "{\"type\":\"header\",\"rank\":%d,\"world_size\":%d,\"host\":\"%s\",\"pid\":%" PRId64
                             ",\"finalized\":%s,\"records\":%zu,\"init_t\":%" PRId64 ",\"init_offset_ns\":%" PRId64
                             ",\"init_rtt_ns\":%" PRId64 ",\"fini_t\":%" PRId64 ",\"fini_offset_ns\":%" PRId64
                             ",\"fini_rtt_ns\":%" PRId64 ",\"drift\":%.9g,\"requests_untracked\":%" PRIu64 "%s}\n"
                           : "# rank %d of %d on %s pid %" PRId64 " finalized %s records %zu\n"
                             "#   init t %" PRId64 " offset %" PRId64 " ns rtt %" PRId64 " ns; fini t %" PRId64
                             " offset %" PRId64 " ns rtt %" PRId64 " ns; drift %.9g; requests untracked %" PRIu64
                             "\n%s";
    char host[65], cpu[256];
    snprintf(host, sizeof host, "%.64s", h->hostname);
    for (char* p = host; *p; p++)
        if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20)
            *p = '?';
    printf(fmt, h->rank, h->world_size, host, h->pid, fin ? "true" : "false", rf->n, h->init.t_local, h->init.offset,
           h->init.rtt, h->fini.t_local, h->fini.offset, h->fini.rtt, drift_of(h), h->requests_untracked,
           cpu_text(h, json, cpu, sizeof cpu));
}

static void print_record(const struct rank_file* rf, const struct ngx_trace_record* r, int json)
{
    const char* fmt =
        json ? "{\"type\":\"record\",\"rank\":%d,\"kind\":\"%s\",\"t_call\":%" PRId64 ",\"t_return\":%" PRId64
               ",\"t_call_aligned\":%" PRId64 ",\"t_return_aligned\":%" PRId64 ",\"comm\":%u,\"peer\":%d,\"tag\":%d"
               ",\"bytes\":%" PRIu64 ",\"bytes_recv\":%" PRIu64 ",\"request\":%" PRIu64
               ",\"aux\":%d,\"tag_recv\":%d,\"flags\":%u}\n"
             : "%d %-10s call %" PRId64 " return %" PRId64 " aligned %" PRId64 " %" PRId64 " comm %u peer %d tag %d"
               " bytes %" PRIu64 " recv %" PRIu64 " req %" PRIu64 " aux %d tag_recv %d flags %u\n";
    printf(fmt, rf->h.rank, ngx_trace_kind_name(r->kind), r->t_call, r->t_return, aligned(&rf->h, r->t_call),
           aligned(&rf->h, r->t_return), r->comm, r->peer, r->tag, r->bytes, r->bytes_recv, r->request, r->aux,
           r->tag_recv, r->flags);
}

static int parse_args(int argc, char** argv, struct options* o)
{
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            o->json = 1;
        else if (strcmp(argv[i], "--quiet") == 0)
            o->quiet = 1;
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return usage("reads and checks a trace directory written by libngx-trace.so");
        else if (argv[i][0] == '-') {
            fprintf(stderr, "ngx-trace-dump: unknown option '%s'\n", argv[i]);
            return usage("options are --json and --quiet");
        } else if (o->dir != NULL)
            return usage("one trace directory only");
        else
            o->dir = argv[i];
    }
    return o->dir ? 0 : usage("no trace directory given");
}

/* Loads rank 0 to learn the world size, then every rank; checks they agree. */
static int load_all(const char* dir, struct rank_file** out, int* size)
{
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return invalid(dir, "not a directory");
    struct rank_file first;
    memset(&first, 0, sizeof first);
    int rc = load_rank(dir, 0, &first);
    if (rc != 0) {
        free(first.recs);
        return rc;
    }
    *size = first.h.world_size;
    struct rank_file* all = calloc((size_t)*size, sizeof *all);
    all[0] = first;
    for (int r = 1; r < *size && rc == 0; r++) {
        rc = load_rank(dir, r, &all[r]);
        if (rc == 0 && all[r].h.world_size != *size)
            rc = invalid(all[r].path, "world size differs from rank 0's");
    }
    for (int r = 0; r < *size && rc == 0; r++)
        rc = check_records(&all[r]);
    *out = all;
    return rc;
}

int main(int argc, char** argv)
{
    struct options o;
    struct rank_file* all = NULL;
    int size = 0;
    int rc = parse_args(argc, argv, &o);
    if (rc == 0)
        rc = load_all(o.dir, &all, &size);
    for (int r = 0; r < size && rc == 0; r++) {
        if (!(all[r].h.flags & NGX_TRACE_FLAG_FINALIZED))
            fprintf(stderr,
                    "ngx-trace-dump: warning: %s: rank %d never reached MPI_Finalize (killed or aborted?): "
                    "records up to its last flush, no closing clock alignment\n",
                    all[r].path, r);
        if (o.quiet)
            continue;
        print_header(&all[r], o.json);
        for (size_t i = 0; i < all[r].n; i++)
            print_record(&all[r], &all[r].recs[i], o.json);
    }
    for (int r = 0; all && r < size; r++)
        free(all[r].recs);
    free(all);
    return rc;
}
