/* LD_PRELOAD shim for ready-repost.sh: every MPI_Irecv busy-waits
 * SLOW_IRECV_US microseconds (default 30) before the real one (PMPI), so a
 * receive post inside a timed region shows as that much time. */
#include <mpi.h>

#include <stdlib.h>
#include <time.h>

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request* request)
{
    const char* text = getenv("SLOW_IRECV_US");
    double wait = text != NULL ? atof(text) : 30.0;
    double until = now_us() + wait;
    while (now_us() < until) {
    }
    return PMPI_Irecv(buf, count, type, source, tag, comm, request);
}
