/*
 * common.h: what the two minimal ping-pong programs share (header-only, C):
 * dying with errno's text, whole-number arguments, CPU pinning, the clock,
 * and the median of the sorted samples. Each program defines its own usage().
 */
#ifndef NGX_BENCH_MINIMAL_COMMON_H
#define NGX_BENCH_MINIMAL_COMMON_H

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void usage(void); /* exits 2 */

/* "<program>: <what>: <errno text>", exit 1. */
static void die(const char* what)
{
    fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what, strerror(errno));
    exit(1);
}

/* A whole decimal number, or usage(). */
static long parse_long(const char* s)
{
    char* end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0')
        usage();
    return v;
}

/* Pins this process to one CPU; a negative CPU leaves it unpinned. */
static void pin(int cpu)
{
    if (cpu < 0)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET((size_t)cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        die("sched_setaffinity");
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int cmp_double(const void* a, const void* b)
{
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

/* Sorts the n samples (so samples[0] is the min) and returns their median. */
static double sort_median(double* samples, long n)
{
    qsort(samples, (size_t)n, sizeof *samples, cmp_double);
    return (n % 2) ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
}

#endif
