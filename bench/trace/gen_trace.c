/* gen_trace.c: a synthetic trace of libngx-trace.so's format (tools/trace/
 * ngx_trace_format.h) for the streaming benchmark of `ngx trace analyze`:
 * P ranks, N iterations of Irecv from the left, Isend of 1 KiB to the right
 * and a Waitall completing both (5 records per rank and iteration), 2 us of
 * computation between calls.
 *
 *     gen_trace DIR P N
 */
#include "../../tools/trace/ngx_trace_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put(FILE* f, struct ngx_trace_record* r, unsigned kind, int64_t* t, int peer, uint64_t bytes,
                uint64_t request, int aux, unsigned flags)
{
    memset(r, 0, sizeof *r);
    r->kind = (uint16_t)kind;
    r->flags = (uint16_t)flags;
    r->peer = peer;
    r->t_call = *t;
    r->t_return = *t + 500;
    r->bytes = bytes;
    r->request = request;
    r->aux = aux;
    *t += 2500;
    fwrite(r, sizeof *r, 1, f);
}

int main(int argc, char** argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: gen_trace DIR P N\n");
        return 2;
    }
    const int P = atoi(argv[2]);
    const long N = atol(argv[3]);
    for (int rank = 0; rank < P; ++rank) {
        char path[4096];
        snprintf(path, sizeof path, "%s/" NGX_TRACE_FILE_FORMAT, argv[1], rank);
        FILE* f = fopen(path, "wb");
        if (!f) {
            perror(path);
            return 1;
        }
        struct ngx_trace_header h;
        memset(&h, 0, sizeof h);
        memcpy(h.magic, NGX_TRACE_MAGIC, 8);
        h.version = NGX_TRACE_VERSION;
        h.byte_order = NGX_TRACE_BYTE_ORDER;
        h.header_size = NGX_TRACE_HEADER_SIZE;
        h.record_size = NGX_TRACE_RECORD_SIZE;
        h.rank = rank;
        h.world_size = P;
        h.flags = NGX_TRACE_FLAG_FINALIZED;
        h.clock_id = 1;
        fwrite(&h, sizeof h, 1, f);
        const int left = (rank + P - 1) % P, right = (rank + 1) % P;
        int64_t t = 1000;
        struct ngx_trace_record r;
        for (long i = 0; i < N; ++i) {
            const uint64_t id = 2 * (uint64_t)i + 1;
            put(f, &r, NGX_TRACE_IRECV, &t, left, 1024, id, 0, 0);
            put(f, &r, NGX_TRACE_ISEND, &t, right, 1024, id + 1, 0, 0);
            put(f, &r, NGX_TRACE_WAITALL, &t, -1, 2, 0, 2, 0);
            put(f, &r, NGX_TRACE_COMPLETION, &t, left, 1024, id, 0, 0);
            put(f, &r, NGX_TRACE_COMPLETION, &t, right, 0, id + 1, 1, NGX_TRACE_RF_SEND);
        }
        if (fclose(f) != 0) {
            perror(path);
            return 1;
        }
    }
    return 0;
}
