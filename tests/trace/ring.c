/* ring.c: the MPI program the trace suite runs under libngx-trace.so. It
 * makes a known set of calls, which ring.sh finds again in the dump:
 *
 *   token rings of MPI_Send / MPI_Recv, SMALL and LARGE bytes (tags 10, 11),
 *   Irecv from left and right + Isend to right and left, one MPI_Waitall (tags 20, 21),
 *   rank size-1 sends 8 bytes to rank 0, received with MPI_ANY_SOURCE (tag 30),
 *   MPI_Sendrecv of 64 bytes to the right, from the left (tag 40),
 *   in a communicator with reversed ranks, its rank 0 (world size-1) sends
 *     4 bytes to its rank 1 (world size-2) (tag 50),
 *   MPI_Allreduce of one double, MPI_Bcast of 100 bytes from root 1,
 *   MANY Irecv from the left and Isend to the right of one int (tag 80), one MPI_Waitall,
 *   rank 0 Isends 12 bytes to rank 1 (tag 90) and MPI_Waits; rank 1 MPI_Probes with
 *     MPI_ANY_SOURCE, posts the Irecv and MPI_Tests until it completes,
 *   the other collectives, one int per block (see collectives()): Barrier, Reduce (root 2),
 *     Allgather, Alltoall, Gather (root 0, in place), Scatter (root 1), Gatherv (root 0),
 *     Scatterv (root 3), Allgatherv, Alltoallv.
 *
 *     ring                 the calls above, then MPI_Finalize
 *     ring --hang DIR      the calls above, then writes DIR/ready.RANK (its pid) and sleeps (to be killed)
 *     ring --abort         the calls above, then rank 0 calls MPI_Abort (exit code 3), the others wait
 *     ring --test-loop N   N MPI_Test calls on a pending receive; prints "ns_per_test X" (rank 0)
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SMALL 64
#define LARGE (1 << 20)
#define MANY 1000

static void token_ring(char* buf, int bytes, int tag, int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    if (rank == 0) {
        MPI_Send(buf, bytes, MPI_BYTE, right, tag, MPI_COMM_WORLD);
        MPI_Recv(buf, bytes, MPI_BYTE, left, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(buf, bytes, MPI_BYTE, left, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, bytes, MPI_BYTE, right, tag, MPI_COMM_WORLD);
    }
}

static void exchange(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int in[2][32], out[2][32] = {{0}};
    MPI_Request reqs[4];
    MPI_Irecv(in[0], 32, MPI_INT, left, 20, MPI_COMM_WORLD, &reqs[0]);
    MPI_Irecv(in[1], 16, MPI_INT, right, 21, MPI_COMM_WORLD, &reqs[1]);
    MPI_Isend(out[0], 32, MPI_INT, right, 20, MPI_COMM_WORLD, &reqs[2]);
    MPI_Isend(out[1], 16, MPI_INT, left, 21, MPI_COMM_WORLD, &reqs[3]);
    MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
}

static void wildcard(int rank, int size)
{
    double x = 1.0;
    if (rank == size - 1)
        MPI_Send(&x, 1, MPI_DOUBLE, 0, 30, MPI_COMM_WORLD);
    if (rank == 0)
        MPI_Recv(&x, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void reversed(int rank, int size)
{
    MPI_Comm rev;
    int r, v = 7;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &rev);
    MPI_Comm_rank(rev, &r);
    if (r == 0)
        MPI_Send(&v, 1, MPI_INT, 1, 50, rev);
    if (r == 1)
        MPI_Recv(&v, 1, MPI_INT, 0, 50, rev, MPI_STATUS_IGNORE);
    MPI_Comm_free(&rev);
}

static void many(int rank, int size)
{
    static int in[MANY], out[MANY];
    static MPI_Request reqs[2 * MANY];
    for (int i = 0; i < MANY; i++)
        MPI_Irecv(&in[i], 1, MPI_INT, (rank + size - 1) % size, 80, MPI_COMM_WORLD, &reqs[i]);
    for (int i = 0; i < MANY; i++)
        MPI_Isend(&out[i], 1, MPI_INT, (rank + 1) % size, 80, MPI_COMM_WORLD, &reqs[MANY + i]);
    MPI_Waitall(2 * MANY, reqs, MPI_STATUSES_IGNORE);
}

static void probe_test(int rank)
{
    char buf[12] = {0};
    MPI_Request req;
    MPI_Status st;
    int flag = 0;
    if (rank == 0) {
        MPI_Isend(buf, 12, MPI_BYTE, 1, 90, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Probe(MPI_ANY_SOURCE, 90, MPI_COMM_WORLD, &st);
        MPI_Irecv(buf, 12, MPI_BYTE, st.MPI_SOURCE, 90, MPI_COMM_WORLD, &req);
        while (!flag)
            MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    }
}

static void collectives(int rank, int size)
{
    int one = rank, many[64] = {0}, all[64] = {0}, counts[64], displs[64];
    for (int i = 0; i < size && i < 64; i++) {
        counts[i] = 1;
        displs[i] = i;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Reduce(&one, all, 1, MPI_INT, MPI_SUM, 2 % size, MPI_COMM_WORLD);
    MPI_Allgather(&one, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoall(many, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Gather(rank == 0 ? MPI_IN_PLACE : (void*)&one, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Scatter(many, 1, MPI_INT, &one, 1, MPI_INT, 1, MPI_COMM_WORLD);
    MPI_Gatherv(&one, 1, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Scatterv(many, counts, displs, MPI_INT, &one, 1, MPI_INT, size - 1, MPI_COMM_WORLD);
    MPI_Allgatherv(&one, 1, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoallv(many, counts, displs, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
}

static void the_calls(int rank, int size)
{
    char* buf = calloc(1, LARGE);
    char out[64] = {0}, in[64];
    double one = 1.0, sum = 0.0;
    token_ring(buf, SMALL, 10, rank, size);
    token_ring(buf, LARGE, 11, rank, size);
    exchange(rank, size);
    wildcard(rank, size);
    MPI_Sendrecv(out, 64, MPI_BYTE, (rank + 1) % size, 40, in, 64, MPI_BYTE, (rank + size - 1) % size, 40,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    reversed(rank, size);
    MPI_Allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Bcast(buf, 100, MPI_BYTE, 1 % size, MPI_COMM_WORLD);
    many(rank, size);
    probe_test(rank);
    collectives(rank, size);
    free(buf);
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void test_loop(long n, int rank)
{
    int x = 0, flag = 0;
    MPI_Request req;
    MPI_Irecv(&x, 1, MPI_INT, 0, 99, MPI_COMM_SELF, &req);
    double t0 = now_ns();
    for (long i = 0; i < n; i++)
        MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    double t1 = now_ns();
    MPI_Send(&x, 1, MPI_INT, 0, 99, MPI_COMM_SELF);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (rank == 0)
        printf("ns_per_test %.1f\n", (t1 - t0) / (double)n);
}

static void hang(const char* dir, int rank)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/ready.%d", dir, rank);
    FILE* f = fopen(path, "w");
    if (f == NULL) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
    for (;;)
        sleep(60);
}

static void abort_from_0(int rank)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MPI_Abort(MPI_COMM_WORLD, 3);
    for (;;)
        sleep(60);
}

int main(int argc, char** argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc == 3 && strcmp(argv[1], "--test-loop") == 0) {
        test_loop(atol(argv[2]), rank);
    } else if (size < 2) {
        fprintf(stderr, "ring: needs at least 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    } else {
        the_calls(rank, size);
        if (argc == 3 && strcmp(argv[1], "--hang") == 0)
            hang(argv[2], rank);
        if (argc == 2 && strcmp(argv[1], "--abort") == 0)
            abort_from_0(rank);
    }
    MPI_Finalize();
    return 0;
}
