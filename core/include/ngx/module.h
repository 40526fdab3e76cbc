/*
 * ngx module ABI: the C interface between the ngx core and a transport module.
 *
 * A module is a shared object that exports exactly one symbol,
 * `ngx_module_entry`, returning a pointer to a static `ngx_module`
 * descriptor. The core checks `abi_major` before it reads anything else,
 * then `size` fields before it touches members that a newer ABI added.
 * Everything crosses the boundary as plain C: status codes plus a message
 * buffer, never exceptions.
 *
 *     static const ngx_module_ops ops = { sizeof(ngx_module_ops), my_init, ... };
 *     static const ngx_module desc = {
 *         NGX_MODULE_ABI_MAJOR, NGX_MODULE_ABI_MINOR, sizeof(ngx_module),
 *         "mynet", "My vendor network", "1.0",
 *         NGX_CAP_RELIABLE, 0, my_options, 2, &ops };
 *     NGX_MODULE_EXPORT(desc)
 *
 * Message semantics: every send() is one message; the peer's recv() with the
 * same length receives it whole. Blocking calls return when the buffer may be
 * reused (send) or holds the message (recv). Every blocking call honours the
 * deadline (`timeout_ns` of ngx_init_args) and the cancel flag, and says on
 * failure what happened in `err->message`.
 */
#ifndef NGX_MODULE_H
#define NGX_MODULE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A module built against another major version is rejected unread. */
#define NGX_MODULE_ABI_MAJOR 1
/* Minor versions only append members; `size` fields tell what is present. */
#define NGX_MODULE_ABI_MINOR 7
#define NGX_MODULE_ENTRY_SYMBOL "ngx_module_entry"

typedef enum ngx_status {
    NGX_OK = 0,
    NGX_ERR_INVALID_OPTION = 1, /* a module option has a bad value (usage error) */
    NGX_ERR_UNSUPPORTED = 2,    /* the module does not implement this operation */
    NGX_ERR_TIMEOUT = 3,        /* a deadline passed: the peer is silent */
    NGX_ERR_PEER_LOST = 4,      /* the peer closed the connection or died */
    NGX_ERR_INTERRUPTED = 5,    /* the cancel flag was raised (Ctrl-C) */
    NGX_ERR_NO_DEVICE = 6,      /* the hardware or device the module needs is absent */
    NGX_ERR_SYSTEM = 7,         /* an OS or library call failed; see the message */
    NGX_ERR_NO_MEMORY = 8,
    NGX_ERR_PROTOCOL = 9, /* the peer sent something unexpected */
    NGX_ERR_LOST = 10     /* 1.1: a message was lost; the peer may be alive (lossy modules:
                                 * the pattern resyncs through resync() and retries) */
} ngx_status;

/* Filled by a failing call: one line, no trailing newline, says what failed. */
#define NGX_ERROR_MESSAGE_SIZE 512
typedef struct ngx_error {
    char message[NGX_ERROR_MESSAGE_SIZE];
} ngx_error;

/* Capability flags (ngx_module.capabilities). */
#define NGX_CAP_RELIABLE (1u << 0)          /* delivery is guaranteed or an error is raised */
#define NGX_CAP_NONBLOCKING (1u << 1)       /* isend/irecv/test/wait are real, not emulated */
#define NGX_CAP_RDMA (1u << 2)              /* one-sided operations underneath */
#define NGX_CAP_REGISTERED_MEMORY (1u << 3) /* message buffers must come from alloc() */
#define NGX_CAP_SAME_NODE_ONLY (1u << 4)    /* both peers must run on one node (shm) */
#define NGX_CAP_ZERO_BYTE (1u << 5)         /* 0-byte messages are real messages */
#define NGX_CAP_DATATYPES (1u << 6)         /* 1.2: set_layout() moves strided data itself (derived datatypes) */
#define NGX_CAP_COLLECTIVES (1u << 7)       /* 1.2: bcast() among every rank of the run */
#define NGX_CAP_SEND_TO_SELF (1u << 8)      /* 1.3: set_layout() with to_self sends to this process */
#define NGX_CAP_PEER_LINKS (1u << 9)        /* 1.5: open_link()/select_peer(): one link per peer, many peers */
#define NGX_CAP_LIBRARY_COLLECTIVES                                                                                    \
    (1u << 10)                       /* 1.6: collective(): the library's own collectives (MPI_Allreduce, ...) */
#define NGX_CAP_ONE_SIDED (1u << 11) /* 1.7: expose(), put(), get(), flush(): one-sided access to the peer's memory */

/* One module option, shown by `ngx -m NAME --help`. `name` carries the module
 * prefix ("tcp-port"); the command line spells it `--tcp-port`. A NULL
 * default_value means "no default": the option is absent unless given. */
typedef struct ngx_option_spec {
    const char* name;
    const char* default_value;
    const char* help;
} ngx_option_spec;

typedef struct ngx_option_value {
    const char* name;
    const char* value;
} ngx_option_value;

/* Lifetimes: `options` (names and values) are valid only during init(); a
 * module copies whatever it keeps. `cancel` stays valid until finalize(). */
typedef struct ngx_init_args {
    size_t size;                     /* sizeof(ngx_init_args) as the core built it */
    const ngx_option_value* options; /* every option of the module, defaults filled in */
    size_t option_count;
    uint64_t timeout_ns;        /* deadline of each blocking step; always > 0 */
    const volatile int* cancel; /* non-zero: stop and return NGX_ERR_INTERRUPTED */
    size_t max_message_size;    /* the largest message the pattern will use */
} ngx_init_args;

/* The bootstrap: how a module exchanges connection data with its peer without
 * using the link it measures. Provided by the core (local fork, TCP
 * rendezvous or MPI). connect() gets the view addressed to the process's
 * first peer; a module with per-peer links (ABI 1.5) gets, in open_link(),
 * a view of the same shape addressed to each further peer. */
typedef struct ngx_bootstrap {
    size_t size; /* sizeof(ngx_bootstrap) as the core built it */
    void* ctx;
    int rank;                  /* this process */
    int nranks;                /* all processes of the run */
    int peer;                  /* the rank this process measures against */
    const char* local_address; /* an address of this host that the peer can reach */
    const char* peer_address;  /* an address of the peer's host */
    /* Sends `mine` to the peer and receives the peer's blob into `theirs`. */
    ngx_status (*exchange)(void* ctx, const void* mine, size_t mine_len, void* theirs, size_t theirs_capacity,
                           size_t* theirs_len, ngx_error* err);
    /* Returns when both peers have called it. */
    ngx_status (*barrier)(void* ctx, ngx_error* err);
} ngx_bootstrap;

/* 1.2: the layout of the data that following send/recv/isend/irecv move
 * (set_layout). A message of len bytes is len / element elements, one every
 * `stride` elements (stride 1: contiguous), so its buffer spans
 * ((len / element - 1) * stride + 1) * element bytes. `to_self` != 0
 * addresses this process instead of the peer (send to self: isend, recv,
 * then wait). element 1 with stride 1 and to_self 0 is the default.
 * A module with NGX_CAP_SEND_TO_SELF but without NGX_CAP_DATATYPES takes
 * stride 1 only: it moves bytes, and a message to itself goes through its
 * own path (tcp: a loopback connection of this process; shm: a ring in this
 * process). One thread cannot block in both ends, so there send() may leave
 * the part of the message that does not fit to the recv() that follows. */
typedef struct ngx_layout {
    size_t size;    /* sizeof(ngx_layout) as the core built it */
    size_t element; /* bytes per element: 1 (char), 4 (int) or 8 (double) */
    size_t stride;  /* elements from one element's start to the next's, >= 1 */
    int to_self;
} ngx_layout;

/* A pending non-blocking operation; the module decides what it holds. */
typedef uintptr_t ngx_request;

/* 1.6: the operations of collective() (NGX_CAP_LIBRARY_COLLECTIVES). */
typedef enum ngx_collective_op {
    NGX_COLL_BCAST = 0,
    NGX_COLL_REDUCE = 1,
    NGX_COLL_ALLREDUCE = 2,
    NGX_COLL_ALLGATHER = 3,
    NGX_COLL_ALLTOALL = 4,
    NGX_COLL_GATHER = 5,
    NGX_COLL_SCATTER = 6,
    NGX_COLL_BARRIER = 7
} ngx_collective_op;

/* 1.4: simulated time. A module that simulates a network in virtual time
 * (sim --sim-clock virtual) keeps, per process, a clock that its calls
 * advance by the model's costs instead of waiting them out; the core then
 * times every sample with that clock, so a pattern measures exactly what a
 * perfect machine would show. `now` reads the clock; `advance_to` is a wait
 * until `ticks` (nothing if the clock is already past it); both are cheap
 * and never fail. Ticks are `ticks_per_us` to a microsecond. */
typedef struct ngx_virtual_clock {
    void* ctx;
    uint64_t (*now)(void* ctx);
    void (*advance_to)(void* ctx, uint64_t ticks);
    double ticks_per_us;
} ngx_virtual_clock;

/* Members added after 1.1 start out NULL in C++ as well, so that a table
 * written for an older minor version still compiles cleanly (no
 * -Wmissing-field-initializers) and reads as "unsupported". */
#ifdef __cplusplus
#define NGX_LATER_MEMBER = nullptr
#else
#define NGX_LATER_MEMBER
#endif

typedef struct ngx_module_ops {
    size_t size; /* sizeof(ngx_module_ops) as the module built it: the table grows at its end */
    ngx_status (*init)(const ngx_init_args* args, void** ctx, ngx_error* err);
    ngx_status (*connect)(void* ctx, const ngx_bootstrap* boot, ngx_error* err);
    ngx_status (*alloc)(void* ctx, size_t len, void** buf, ngx_error* err);
    void (*free)(void* ctx, void* buf);
    ngx_status (*send)(void* ctx, const void* buf, size_t len, ngx_error* err);
    ngx_status (*recv)(void* ctx, void* buf, size_t len, ngx_error* err);
    ngx_status (*isend)(void* ctx, const void* buf, size_t len, ngx_request* req, ngx_error* err);
    ngx_status (*irecv)(void* ctx, void* buf, size_t len, ngx_request* req, ngx_error* err);
    ngx_status (*test)(void* ctx, ngx_request* req, int* done, ngx_error* err);
    ngx_status (*wait)(void* ctx, ngx_request* req, ngx_error* err);
    void (*finalize)(void* ctx); /* releases everything init and connect made */
    /* ABI 1.1, optional (modules without NGX_CAP_RELIABLE): called by both
     * peers after a loss (NGX_ERR_LOST, or NGX_ERR_TIMEOUT of such a module),
     * at the same point of the pattern, before the link is used again. The
     * module agrees with its peer through `boot` on a fresh state so that
     * messages still in flight are stale (udp: both swap their next sequence
     * numbers). The core calls it only when `size` covers this member. */
    ngx_status (*resync)(void* ctx, const ngx_bootstrap* boot, ngx_error* err);
    /* ABI 1.2, optional (NGX_CAP_DATATYPES): the layout of the messages that
     * follow (see ngx_layout), as a derived datatype would describe them. */
    ngx_status (*set_layout)(void* ctx, const ngx_layout* layout, ngx_error* err) NGX_LATER_MEMBER;
    /* ABI 1.2, optional (NGX_CAP_COLLECTIVES): every rank of the run calls
     * it with the same len; rank 0's len bytes (in the current layout) reach
     * every other rank's buf. */
    ngx_status (*bcast)(void* ctx, void* buf, size_t len, ngx_error* err) NGX_LATER_MEMBER;
    /* ABI 1.3 (tiers2), optional: does now, outside the caller's timed
     * region, the work a completed receive leaves for the next one (mpi
     * ready mode: posting the receive the peer's ready send must find). A
     * module with it defers that work from recv()/wait()/test() to this call
     * or, at the latest, to the start of its next send or receive, so that a
     * pattern timing one receive (overhead) times the receive alone. */
    ngx_status (*prepare_recv)(void* ctx, ngx_error* err) NGX_LATER_MEMBER;
    /* ABI 1.4, optional: after connect, a module that runs in virtual time
     * fills `clock` (see ngx_virtual_clock) and returns NGX_OK; one in real
     * time returns NGX_ERR_UNSUPPORTED (the loader's fallback for a module
     * without the op). */
    ngx_status (*virtual_clock)(void* ctx, ngx_virtual_clock* clock, ngx_error* err) NGX_LATER_MEMBER;
    /* ABI 1.5, optional (NGX_CAP_PEER_LINKS): rank layouts in which a
     * process talks with several peers (shift rounds, matchings, one to
     * many). After connect (whose link, to boot->peer of connect's view, stays
     * open), the core calls open_link once per further peer, lazily: when a
     * round first needs that link, on both ranks at the same step, with a view
     * whose `peer`, `peer_address`, exchange() and barrier() address that
     * peer and with the same deadline as connect. The new link keeps the
     * module's options and clock. A module without the op runs the layouts
     * of one peer only; the core refuses the others with a usage error
     * naming the module and the layout. */
    ngx_status (*open_link)(void* ctx, const ngx_bootstrap* boot, ngx_error* err) NGX_LATER_MEMBER;
    /* ABI 1.5, optional (NGX_CAP_PEER_LINKS): the following send, recv,
     * isend and irecv address `peer`, whose link connect or open_link made
     * (requests already posted keep the link they were posted on). */
    ngx_status (*select_peer)(void* ctx, int peer, ngx_error* err) NGX_LATER_MEMBER;
    /* ABI 1.6, optional (NGX_CAP_LIBRARY_COLLECTIVES): the library's own
     * collective `op` (an ngx_collective_op) among every rank of the run,
     * root rank 0; every rank calls it with the same op and bytes. `bytes` is
     * the buffer of bcast, reduce and allreduce and each rank's block of the
     * others (as MPI's count times the type size); the buffers hold: bcast
     * recv (in place); reduce, allreduce send and recv, bytes each, summed as
     * doubles (bytes / 8 of them; as unsigned chars when bytes is not a
     * multiple of 8); allgather, gather send bytes, recv bytes x P (gather:
     * at the root); alltoall send and recv bytes x P; scatter send bytes x P
     * at the root, recv bytes; barrier neither. */
    ngx_status (*collective)(void* ctx, int op, const void* send, void* recv, size_t bytes,
                             ngx_error* err) NGX_LATER_MEMBER;
    /* ABI 1.7, optional (NGX_CAP_ONE_SIDED): one-sided communication (RDMA
     * write and read, MPI_Put and MPI_Get). Both peers call expose() once,
     * at the same step, with a buffer from alloc(): it becomes the window
     * that the peer's put() and get() address (`boot` to exchange what the
     * peer needs: lengths, keys). put() starts writing len bytes of `local`
     * into the peer's window at `offset`, get() reading len bytes of it
     * into `local`; both return when the call's own work is done. flush()
     * returns when every put and get started since the last flush is
     * complete at both ends (a put's bytes are in the peer's window, a
     * get's in `local`). The peer's process takes no part in put and get;
     * a put that a flush completed is seen by the peer once it receives a
     * message sent after that flush. A pattern calls flush() on both peers
     * once per epoch (its window of puts and gets), at the same step: on
     * the side that started nothing it returns at once, except in a module
     * whose synchronization needs the target (mpi --mpi-rma-sync fence or
     * pscw), where it is the target's part of the epoch and returns once
     * the peer's flush has closed it. */
    ngx_status (*expose)(void* ctx, const ngx_bootstrap* boot, void* buf, size_t len, ngx_error* err) NGX_LATER_MEMBER;
    ngx_status (*put)(void* ctx, const void* local, size_t offset, size_t len, ngx_error* err) NGX_LATER_MEMBER;
    ngx_status (*get)(void* ctx, void* local, size_t offset, size_t len, ngx_error* err) NGX_LATER_MEMBER;
    ngx_status (*flush)(void* ctx, ngx_error* err) NGX_LATER_MEMBER;
} ngx_module_ops;

typedef struct ngx_module {
    uint32_t abi_major; /* NGX_MODULE_ABI_MAJOR the module was built with */
    uint32_t abi_minor;
    size_t size;      /* sizeof(ngx_module) as the module built it */
    const char* name; /* matches the file name ngx_<name>.so */
    const char* description;
    const char* version;
    uint32_t capabilities;     /* NGX_CAP_* */
    uint64_t max_message_size; /* 0: no limit */
    const ngx_option_spec* options;
    size_t option_count;
    const ngx_module_ops* ops; /* NULL entries are "unsupported" */
} ngx_module;

typedef const ngx_module* (*ngx_module_entry_fn)(void);

#if defined(__GNUC__)
#define NGX_MODULE_VISIBLE __attribute__((visibility("default")))
#else
#define NGX_MODULE_VISIBLE
#endif

#ifdef __cplusplus
#define NGX_MODULE_EXTERN_C extern "C"
#else
#define NGX_MODULE_EXTERN_C
#endif

/* Exports the one entry symbol returning `descriptor`. */
#define NGX_MODULE_EXPORT(descriptor)                                                                                  \
    NGX_MODULE_EXTERN_C NGX_MODULE_VISIBLE const ngx_module* ngx_module_entry(void)                                    \
    {                                                                                                                  \
        return &(descriptor);                                                                                          \
    }

#ifdef __cplusplus
}
#endif

#endif /* NGX_MODULE_H */
