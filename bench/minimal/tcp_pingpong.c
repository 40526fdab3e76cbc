/*
 * tcp_pingpong.c: the minimal hand-written TCP ping-pong, the reference that
 * ngx's tcp module is compared with (bench/run-tcp-shm.sh).
 *
 * Two processes (fork) on loopback: the parent listens on an ephemeral port
 * of 127.0.0.1, the child connects; both set TCP_NODELAY and keep the
 * kernel's default socket buffers. Each side is pinned to one CPU with
 * sched_setaffinity (parent: -a, child: -b). For every size the parent does
 * W warm-up round trips, then N timed ones, timing each with
 * clock_gettime(CLOCK_MONOTONIC); the child echoes. Blocking send()/recv()
 * loops, one buffer allocated up front, nothing allocated per message.
 *
 * Output, one row per size (whitespace separated, '#' lines are comments):
 *   size_bytes median_us min_us mean_us MBps iters
 * median_us is the median half round trip; MBps = size / median half round
 * trip (10^6 bytes/s). If 1 MiB was measured, a last line
 *   bw_1MiB_MBps <value>
 * repeats its bandwidth.
 */
#include "common.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_SIZES 64

struct options {
    int cpu_a; /* parent (timing side); -1: not pinned */
    int cpu_b; /* child (echo side); -1: not pinned */
    long warmup;
    long iters;
    size_t sizes[MAX_SIZES];
    int nsizes;
    long page_offset; /* -O: the buffer this many bytes past a page boundary; -1: where malloc puts it */
};

static void usage(void)
{
    fprintf(stderr, "usage: tcp_pingpong [-a CPU] [-b CPU] [-w WARMUP] [-n ITERS] "
                    "[-s SIZE[,SIZE...]]\n"
                    "  -a CPU   pin the timing (parent) process to CPU (default 0)\n"
                    "  -b CPU   pin the echo (child) process to CPU (default 1)\n"
                    "           a negative CPU leaves that process unpinned\n"
                    "  -w N     warm-up round trips per size (default 1000)\n"
                    "  -n N     timed round trips per size (default 20000)\n"
                    "  -O B     the buffer B bytes past a page boundary, 0-4095 (default: where\n"
                    "           malloc puts it); ngx's --buffer-offset does the same\n"
                    "  -s LIST  sizes in bytes; suffixes Ki, Mi accepted "
                    "(default 1,1Mi)\n");
    exit(2);
}

/* Parses "4096", "4Ki", "1Mi", "1k", "1M" (binary multiples in all cases). */
static int parse_size(const char* s, size_t* out)
{
    char* end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || end == s)
        return -1;
    if (*end == 'K' || *end == 'k') {
        v <<= 10;
        end++;
    } else if (*end == 'M' || *end == 'm') {
        v <<= 20;
        end++;
    }
    if (*end == 'i')
        end++;
    if (*end == 'B')
        end++;
    if (*end != '\0' || v == 0)
        return -1;
    *out = (size_t)v;
    return 0;
}

static void parse_args(int argc, char** argv, struct options* o)
{
    o->cpu_a = 0;
    o->cpu_b = 1;
    o->warmup = 1000;
    o->iters = 20000;
    o->nsizes = 0;
    o->page_offset = -1;
    int c;
    while ((c = getopt(argc, argv, "a:b:w:n:s:O:h")) != -1) {
        switch (c) {
        case 'a':
            o->cpu_a = (int)parse_long(optarg);
            break;
        case 'b':
            o->cpu_b = (int)parse_long(optarg);
            break;
        case 'w':
            o->warmup = parse_long(optarg);
            break;
        case 'n':
            o->iters = parse_long(optarg);
            break;
        case 'O':
            o->page_offset = parse_long(optarg);
            if (o->page_offset < 0 || o->page_offset > 4095)
                usage();
            break;
        case 's': {
            char* list = strdup(optarg);
            if (!list)
                die("strdup");
            for (char* tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
                if (o->nsizes == MAX_SIZES || parse_size(tok, &o->sizes[o->nsizes]) != 0)
                    usage();
                o->nsizes++;
            }
            free(list);
            break;
        }
        default:
            usage();
        }
    }
    if (optind != argc || o->warmup < 0 || o->iters < 1)
        usage();
    if (o->nsizes == 0) {
        o->sizes[0] = 1;
        o->sizes[1] = (size_t)1 << 20;
        o->nsizes = 2;
    }
}

static void send_all(int fd, const char* buf, size_t len)
{
    while (len > 0) {
        ssize_t n = send(fd, buf, len, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            die("send");
        }
        buf += n;
        len -= (size_t)n;
    }
}

static void recv_all(int fd, char* buf, size_t len)
{
    while (len > 0) {
        ssize_t n = recv(fd, buf, len, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            die("recv");
        }
        if (n == 0) {
            fprintf(stderr, "tcp_pingpong: peer closed the connection\n");
            exit(1);
        }
        buf += n;
        len -= (size_t)n;
    }
}

static void set_nodelay(int fd)
{
    int one = 1;
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0)
        die("setsockopt(TCP_NODELAY)");
}

/* Echo side: the same sequence of sizes and counts as the timing side. */
static void run_echo(int fd, const struct options* o, char* buf)
{
    for (int s = 0; s < o->nsizes; s++) {
        long total = o->warmup + o->iters;
        for (long i = 0; i < total; i++) {
            recv_all(fd, buf, o->sizes[s]);
            send_all(fd, buf, o->sizes[s]);
        }
    }
}

static void run_timer(int fd, const struct options* o, char* buf, double* samples)
{
    printf("# tcp_pingpong: loopback TCP, TCP_NODELAY, blocking send/recv, "
           "cpus %d,%d, warmup %ld, iters %ld\n",
           o->cpu_a, o->cpu_b, o->warmup, o->iters);
    printf("# size_bytes median_us min_us mean_us MBps iters\n");
    double bw_1mib = -1.0;
    for (int s = 0; s < o->nsizes; s++) {
        size_t len = o->sizes[s];
        for (long i = 0; i < o->warmup; i++) {
            send_all(fd, buf, len);
            recv_all(fd, buf, len);
        }
        for (long i = 0; i < o->iters; i++) {
            double t0 = now_us();
            send_all(fd, buf, len);
            recv_all(fd, buf, len);
            double t1 = now_us();
            samples[i] = (t1 - t0) * 0.5;
        }
        double sum = 0.0;
        for (long i = 0; i < o->iters; i++)
            sum += samples[i];
        long n = o->iters;
        double median = sort_median(samples, n);
        double mbps = (double)len / median;
        printf("%zu %.3f %.3f %.3f %.1f %ld\n", len, median, samples[0], sum / (double)n, mbps, n);
        fflush(stdout);
        if (len == ((size_t)1 << 20))
            bw_1mib = mbps;
    }
    if (bw_1mib > 0.0)
        printf("bw_1MiB_MBps %.1f\n", bw_1mib);
}

int main(int argc, char** argv)
{
    struct options o;
    parse_args(argc, argv, &o);

    size_t max = 0;
    for (int s = 0; s < o.nsizes; s++)
        if (o.sizes[s] > max)
            max = o.sizes[s];

    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    if (lfd < 0)
        die("socket");
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0; /* ephemeral: concurrent runs never collide */
    socklen_t alen = sizeof addr;
    if (bind(lfd, (struct sockaddr*)&addr, sizeof addr) != 0)
        die("bind");
    if (listen(lfd, 1) != 0)
        die("listen");
    if (getsockname(lfd, (struct sockaddr*)&addr, &alen) != 0)
        die("getsockname");

    /* Touch the whole buffer before timing; inherited by the child. Where
     * it starts within a page moves a 1 MiB copy (bench/README.md). */
    char* base = malloc(max + (o.page_offset >= 0 ? 4096 : 0));
    if (!base)
        die("malloc");
    char* buf = base;
    if (o.page_offset >= 0)
        buf += ((size_t)o.page_offset + 4096 - (uintptr_t)base % 4096) % 4096;
    memset(buf, 0x5a, max);
    printf("# buffer page offset %lu\n", (unsigned long)((uintptr_t)buf % 4096));

    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        close(lfd);
        pin(o.cpu_b);
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0)
            die("socket");
        if (connect(fd, (struct sockaddr*)&addr, sizeof addr) != 0)
            die("connect");
        set_nodelay(fd);
        run_echo(fd, &o, buf);
        close(fd);
        _exit(0);
    }

    pin(o.cpu_a);
    int fd = accept(lfd, NULL, NULL);
    if (fd < 0) {
        kill(pid, SIGKILL);
        die("accept");
    }
    close(lfd);
    set_nodelay(fd);
    double* samples = malloc((size_t)o.iters * sizeof *samples);
    if (!samples)
        die("malloc");
    memset(samples, 0, (size_t)o.iters * sizeof *samples);
    run_timer(fd, &o, buf, samples);
    close(fd);

    int status = 0;
    if (waitpid(pid, &status, 0) < 0)
        die("waitpid");
    free(samples);
    free(base);
    return (WIFEXITED(status) && WEXITSTATUS(status) == 0) ? 0 : 1;
}
