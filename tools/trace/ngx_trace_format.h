/* ngx_trace_format.h: the binary trace format of libngx-trace.so.
 *
 * A trace is a directory with one file per world rank, "rank-NNNNN.ngxt"
 * (NNNNN = the world rank, 5 digits). Each file is
 *
 *     struct ngx_trace_header          (NGX_TRACE_HEADER_SIZE bytes)
 *     struct ngx_trace_record[N]       (NGX_TRACE_RECORD_SIZE bytes each)
 *
 * in the host's byte order (header.byte_order tells which). The header is
 * written when MPI_Init returns and rewritten at MPI_Finalize with the second
 * clock alignment and NGX_TRACE_FLAG_FINALIZED; records are appended in
 * blocks when the per-rank buffer is full and at MPI_Finalize, so a killed
 * program leaves a valid file up to its last flush (without the flag). A file
 * whose record area is not a multiple of the record size is truncated.
 *
 * Times are nanoseconds of the rank's CLOCK_MONOTONIC. Clocks are aligned to
 * rank 0 twice (ping-pong rounds, the round with the smallest round trip is
 * kept): offset = t_rank - (t0 + t1) / 2, where t0, t1 are rank 0's send and
 * receive times and t_rank the rank's time in between. A local time t maps
 * to rank 0's clock as
 *
 *     t_rank0(t) = t - (offset_init + drift * (t - t_init)),
 *     drift = (offset_fini - offset_init) / (t_fini - t_init)
 *
 * (offset and drift per rank, as ReproMPI and mpiP-style tools do).
 *
 * Records: one per intercepted call, written when the call returns. Peers and
 * roots are world ranks. A call that completes requests (Wait, Waitall,
 * Waitany, Test, ...) is followed by one NGX_TRACE_COMPLETION record per
 * request it completed, carrying the request id, and for receives the
 * status' source (world rank), tag and byte count; Sendrecv and Recv carry
 * their receive status the same way (Recv in its own record). Isend, Issend
 * and Irecv get a request id unique within the rank (1, 2, ...; 0 = none).
 * Communicators are numbered per rank (0 = MPI_COMM_WORLD, 1 =
 * MPI_COMM_SELF); the first use of any other is preceded by an
 * NGX_TRACE_COMM_DEF record whose
 * `request` is a hash of its world-rank list, so that analyses can match the
 * communicator across ranks. FLUSH and COMM_DEF records may sit anywhere,
 * also between a call and its completion records.
 *
 * For analyses (replay under LogGPS, what-if, collectives, GOAL export):
 * a send and a receive match when they have the same communicator (the
 * COMM_DEF hash; 0 = world on every rank), the sender's and receiver's world
 * ranks and the tag, in the order the sends and the receives were posted on
 * each rank (MPI's non-overtaking rule); a wildcard receive's actual source
 * and tag are in its Recv record or its request's completion record. Place
 * the times of all ranks on rank 0's clock with the formula above before
 * comparing them.
 */
#ifndef NGX_TRACE_FORMAT_H
#define NGX_TRACE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define NGX_TRACE_MAGIC "NGXTRACE"
#define NGX_TRACE_VERSION 1u
#define NGX_TRACE_BYTE_ORDER 0x01020304u
#define NGX_TRACE_HEADER_SIZE 256u
#define NGX_TRACE_RECORD_SIZE 64u
#define NGX_TRACE_FILE_FORMAT "rank-%05d.ngxt"

/* Peer values besides world ranks. */
#define NGX_TRACE_PEER_NONE (-1)
#define NGX_TRACE_PEER_ANY (-2)  /* MPI_ANY_SOURCE, resolved in the completion */
#define NGX_TRACE_PEER_NULL (-3) /* MPI_PROC_NULL */
#define NGX_TRACE_TAG_ANY (-1)   /* MPI_ANY_TAG as posted */

/* header.flags */
#define NGX_TRACE_FLAG_FINALIZED 0x1u /* MPI_Finalize ran: the second alignment is valid */
#define NGX_TRACE_FLAG_CPU 0x2u       /* the header's cpu fields hold the rank's use between the alignments */

/* record.flags */
#define NGX_TRACE_RF_FORTRAN 0x1u     /* called through the Fortran bindings */
#define NGX_TRACE_RF_FLAG_FALSE 0x2u  /* Test/Probe-like call whose flag came back false */
#define NGX_TRACE_RF_SEND 0x4u        /* completion of a send request */
#define NGX_TRACE_RF_UNKNOWN_REQ 0x8u /* request not created by a traced call */

struct ngx_trace_clock {
    int64_t t_local; /* this rank's clock at the alignment (ns) */
    int64_t offset;  /* t_rank - t_rank0 (ns) */
    int64_t rtt;     /* round trip of the kept round (ns); 0 on rank 0 */
    int64_t reserved;
};

struct ngx_trace_header {
    char magic[8];               /* NGX_TRACE_MAGIC, no terminating NUL */
    uint32_t version;            /* NGX_TRACE_VERSION */
    uint32_t byte_order;         /* NGX_TRACE_BYTE_ORDER as written */
    uint32_t header_size;        /* NGX_TRACE_HEADER_SIZE */
    uint32_t record_size;        /* NGX_TRACE_RECORD_SIZE */
    int32_t rank;                /* world rank */
    int32_t world_size;          /* size of MPI_COMM_WORLD */
    uint32_t flags;              /* NGX_TRACE_FLAG_* */
    uint32_t clock_id;           /* 1 = CLOCK_MONOTONIC */
    int64_t pid;                 /* process id */
    uint64_t requests_untracked; /* requests created while the id table could not grow */
    struct ngx_trace_clock init;
    struct ngx_trace_clock fini;
    char hostname[64];
    /* The rank's CPU use from MPI_Init to MPI_Finalize (NGX_TRACE_FLAG_CPU):
     * whether the CPUs, not the network, set the program's time. */
    uint64_t cpu_ns;               /* user + system time, every thread (getrusage) */
    int64_t waiting_ns;            /* the main thread runnable but off a CPU (schedstat); -1: unknown */
    uint64_t involuntary_switches; /* preempted (getrusage ru_nivcsw) */
    uint32_t cpus_online;          /* of the rank's host */
    uint32_t load_milli;           /* the host's 1-minute load average x 1000 at MPI_Finalize */
    char reserved[40];
};

enum ngx_trace_kind {
    NGX_TRACE_COMPLETION = 1, /* a request completed by the preceding call */
    NGX_TRACE_COMM_DEF = 2,   /* a communicator first seen: comm, aux = size, request = hash */
    NGX_TRACE_FLUSH = 3,      /* the tracer wrote its buffer (t_call..t_return) */

    NGX_TRACE_SEND = 16,
    NGX_TRACE_SSEND,
    NGX_TRACE_BSEND,
    NGX_TRACE_RSEND,
    NGX_TRACE_ISEND,
    NGX_TRACE_ISSEND,
    NGX_TRACE_IRECV,
    NGX_TRACE_RECV,
    NGX_TRACE_SENDRECV,
    NGX_TRACE_PROBE,
    NGX_TRACE_IPROBE,
    NGX_TRACE_WAIT,
    NGX_TRACE_WAITALL,
    NGX_TRACE_WAITANY,
    NGX_TRACE_WAITSOME,
    NGX_TRACE_TEST,
    NGX_TRACE_TESTALL,
    NGX_TRACE_TESTANY,
    NGX_TRACE_TESTSOME,

    NGX_TRACE_BARRIER = 48,
    NGX_TRACE_BCAST,
    NGX_TRACE_REDUCE,
    NGX_TRACE_ALLREDUCE,
    NGX_TRACE_ALLGATHER,
    NGX_TRACE_ALLGATHERV,
    NGX_TRACE_ALLTOALL,
    NGX_TRACE_ALLTOALLV,
    NGX_TRACE_GATHER,
    NGX_TRACE_GATHERV,
    NGX_TRACE_SCATTER,
    NGX_TRACE_SCATTERV,
    NGX_TRACE_KIND_END
};

/* One event, 64 bytes. Field meaning per kind:
 *   point-to-point: peer (world rank, or NGX_TRACE_PEER_*), tag, bytes;
 *     Recv: peer/tag/bytes as received, aux = the posted source (world rank
 *     or NGX_TRACE_PEER_ANY); Isend/Irecv: request = the new id;
 *     Sendrecv: peer/tag/bytes of the send, bytes_recv, aux = the actual
 *     source, tag_recv; Probe/Iprobe: peer/tag/bytes of the probed message.
 *   Wait*, Test*: aux = number of completion records that follow, bytes =
 *     number of requests passed.
 *   completion: request, peer = status source, tag = status tag, bytes =
 *     received bytes (0 for sends), aux = index in the array.
 *   collectives: peer = root (world rank) or NONE, bytes = bytes this rank
 *     passes in its send buffer(s), bytes_recv = in its receive buffer(s),
 *     all blocks together (Allgather receives P blocks, Alltoall sends and
 *     receives P); Bcast: the root sends, the others receive; Reduce: all
 *     send, the root receives; Gather(v)/Scatter(v): the root's P-block
 *     buffer counts only at the root.
 */
struct ngx_trace_record {
    uint16_t kind;  /* enum ngx_trace_kind */
    uint16_t flags; /* NGX_TRACE_RF_* */
    uint32_t comm;  /* communicator id (see above) */
    int32_t peer;   /* world rank or NGX_TRACE_PEER_* */
    int32_t tag;    /* tag, or NGX_TRACE_TAG_ANY */
    int64_t t_call; /* local clock at the call (ns) */
    int64_t t_return;
    uint64_t bytes;
    uint64_t bytes_recv;
    uint64_t request; /* request id (0 = none), or the COMM_DEF hash */
    int32_t aux;
    int32_t tag_recv; /* Sendrecv: the received message's tag; 0 otherwise */
};

/* The lower-case MPI name of a kind ("send", "waitall", ...), NULL if unknown. */
static inline const char* ngx_trace_kind_name(unsigned kind)
{
    static const char* const p2p[] = {"send",     "ssend",    "bsend",   "rsend",   "isend",   "issend",  "irecv",
                                      "recv",     "sendrecv", "probe",   "iprobe",  "wait",    "waitall", "waitany",
                                      "waitsome", "test",     "testall", "testany", "testsome"};
    static const char* const coll[] = {"barrier",  "bcast",     "reduce", "allreduce", "allgather", "allgatherv",
                                       "alltoall", "alltoallv", "gather", "gatherv",   "scatter",   "scatterv"};
    if (kind == NGX_TRACE_COMPLETION)
        return "completion";
    if (kind == NGX_TRACE_COMM_DEF)
        return "comm_def";
    if (kind == NGX_TRACE_FLUSH)
        return "flush";
    if (kind >= NGX_TRACE_SEND && kind < NGX_TRACE_SEND + sizeof p2p / sizeof p2p[0])
        return p2p[kind - NGX_TRACE_SEND];
    if (kind >= NGX_TRACE_BARRIER && kind < NGX_TRACE_KIND_END)
        return coll[kind - NGX_TRACE_BARRIER];
    return NULL;
}

/* True for the kinds followed by completion records (Wait*, Test*). */
static inline int ngx_trace_kind_completes(unsigned kind)
{
    return kind >= NGX_TRACE_WAIT && kind <= NGX_TRACE_TESTSOME;
}

#ifdef __cplusplus
static_assert(sizeof(struct ngx_trace_header) == NGX_TRACE_HEADER_SIZE, "header size");
static_assert(sizeof(struct ngx_trace_record) == NGX_TRACE_RECORD_SIZE, "record size");
#else
_Static_assert(sizeof(struct ngx_trace_header) == NGX_TRACE_HEADER_SIZE, "header size");
_Static_assert(sizeof(struct ngx_trace_record) == NGX_TRACE_RECORD_SIZE, "record size");
#endif

#endif
