/*
 * shm_pingpong.c: the floor for a ping-pong between two processes on one
 * node: what ngx's shm module is compared with (bench/run-tcp-shm.sh).
 *
 * Two processes (fork) share an anonymous mapping (MAP_SHARED|MAP_ANONYMOUS)
 * holding two 64-byte cache lines, one per direction. A line holds a
 * sequence-number flag and the 1-byte payload, so a message is exactly one
 * cache-line transfer between the cores. The sender writes the payload, then
 * stores the flag with release order; the receiver spins on the flag with
 * acquire loads (no pause instruction unless -p), reads the payload and
 * answers on the other line. Each process is pinned to one CPU with
 * sched_setaffinity (parent, the timing side: -a; child, the echo side: -b).
 *
 * W warm-up round trips, then N timed ones, each timed with
 * clock_gettime(CLOCK_MONOTONIC). Output (whitespace separated, '#' lines
 * are comments):
 *   size_bytes median_us min_us mean_us iters
 * with one row for the 1-byte payload; median_us is the median half round
 * trip.
 */
#include "common.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LINE 64

struct line {
    _Alignas(LINE) _Atomic uint64_t seq;
    unsigned char payload;
    unsigned char pad[LINE - sizeof(uint64_t) - 1];
};

struct shared {
    struct line ping; /* parent -> child */
    struct line pong; /* child -> parent */
};

_Static_assert(sizeof(struct line) == LINE, "one cache line per direction");

static int use_pause;

static void usage(void)
{
    fprintf(stderr, "usage: shm_pingpong [-a CPU] [-b CPU] [-w WARMUP] [-n ITERS] [-p]\n"
                    "  -a CPU   pin the timing (parent) process to CPU (default 0)\n"
                    "  -b CPU   pin the echo (child) process to CPU (default 1)\n"
                    "           a negative CPU leaves that process unpinned\n"
                    "  -w N     warm-up round trips (default 1000)\n"
                    "  -n N     timed round trips (default 20000)\n"
                    "  -p       execute a pause/yield instruction in the spin loop\n");
    exit(2);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

static inline void wait_for(struct line* l, uint64_t seq)
{
    if (use_pause) {
        while (atomic_load_explicit(&l->seq, memory_order_acquire) != seq)
            cpu_relax();
    } else {
        while (atomic_load_explicit(&l->seq, memory_order_acquire) != seq)
            ;
    }
}

static inline void post(struct line* l, uint64_t seq, unsigned char byte)
{
    l->payload = byte;
    atomic_store_explicit(&l->seq, seq, memory_order_release);
}

int main(int argc, char** argv)
{
    int cpu_a = 0, cpu_b = 1;
    long warmup = 1000, iters = 20000;
    int c;
    while ((c = getopt(argc, argv, "a:b:w:n:ph")) != -1) {
        switch (c) {
        case 'a':
            cpu_a = (int)parse_long(optarg);
            break;
        case 'b':
            cpu_b = (int)parse_long(optarg);
            break;
        case 'w':
            warmup = parse_long(optarg);
            break;
        case 'n':
            iters = parse_long(optarg);
            break;
        case 'p':
            use_pause = 1;
            break;
        default:
            usage();
        }
    }
    if (optind != argc || warmup < 0 || iters < 1)
        usage();

    struct shared* sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED)
        die("mmap");
    memset(sh, 0, sizeof *sh);

    double* samples = malloc((size_t)iters * sizeof *samples);
    if (!samples)
        die("malloc");
    memset(samples, 0, (size_t)iters * sizeof *samples);

    const uint64_t total = (uint64_t)(warmup + iters);
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        pin(cpu_b);
        for (uint64_t i = 1; i <= total; i++) {
            wait_for(&sh->ping, i);
            post(&sh->pong, i, sh->ping.payload);
        }
        _exit(0);
    }

    pin(cpu_a);
    uint64_t i = 1;
    for (; i <= (uint64_t)warmup; i++) {
        post(&sh->ping, i, (unsigned char)i);
        wait_for(&sh->pong, i);
    }
    for (long k = 0; k < iters; k++, i++) {
        double t0 = now_us();
        post(&sh->ping, i, (unsigned char)i);
        wait_for(&sh->pong, i);
        double t1 = now_us();
        samples[k] = (t1 - t0) * 0.5;
    }
    if (sh->pong.payload != (unsigned char)(i - 1)) {
        fprintf(stderr, "shm_pingpong: payload mismatch\n");
        kill(pid, SIGKILL);
        return 1;
    }

    double sum = 0.0;
    for (long k = 0; k < iters; k++)
        sum += samples[k];
    double median = sort_median(samples, iters);
    printf("# shm_pingpong: shared anonymous mapping, spin on a cache-line flag "
           "(1-byte payload in the same line), %s, cpus %d,%d, warmup %ld, iters %ld\n",
           use_pause ? "pause in spin loop" : "no pause", cpu_a, cpu_b, warmup, iters);
    printf("# size_bytes median_us min_us mean_us iters\n");
    printf("1 %.4f %.4f %.4f %ld\n", median, samples[0], sum / (double)iters, iters);

    int status = 0;
    if (waitpid(pid, &status, 0) < 0)
        die("waitpid");
    free(samples);
    munmap(sh, sizeof *sh);
    return (WIFEXITED(status) && WEXITSTATUS(status) == 0) ? 0 : 1;
}
