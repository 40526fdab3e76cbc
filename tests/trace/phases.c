/* phases.c: the MPI program of analyze.sh, whose LogGPS cost
 * check_analyze.py computes by hand (4 ranks; every phase starts after an
 * MPI_Barrier, so that the replay starts it on equal clocks):
 *
 *   1  eager ring: MPI_Send SMALL bytes to the right, MPI_Recv from the left (tag 1)
 *   2  rendezvous ring, LARGE bytes: even ranks send then receive, odd ranks
 *      receive then send (tag 2)
 *   3  late receiver: ranks 0 and 2 sleep W, then MPI_Recv LARGE bytes from
 *      1 and 3, which MPI_Send at once (tag 3)
 *   4  late sender, non-blocking: ranks 0 and 2 MPI_Irecv SMALL bytes from 1
 *      and 3 and MPI_Wait; 1 and 3 sleep W, then MPI_Isend and MPI_Wait (tag 4)
 *   5  pipeline (as a Gaussian elimination's pivot row): rank r receives
 *      PIPE bytes from r-1 (r > 0) and sends them to r+1 (r < 3) (tag 5)
 *
 *     phases W_MS     prints "slept RANK PHASE MICROSECONDS" per sleep (measured)
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { SMALL = 1024, LARGE = 65536, PIPE = 4096 };

static char out_buf[LARGE], in_buf[LARGE];

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void sleep_ms(int rank, int phase, long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    const double start = now_us();
    nanosleep(&t, NULL);
    printf("slept %d %d %.1f\n", rank, phase, now_us() - start);
    fflush(stdout);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const long w_ms = argc > 1 ? atol(argv[1]) : 600;
    if (size != 4) {
        if (rank == 0)
            fprintf(stderr, "phases: needs 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Request req;

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Send(out_buf, SMALL, MPI_BYTE, right, 1, MPI_COMM_WORLD);
    MPI_Recv(in_buf, SMALL, MPI_BYTE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank % 2 == 0) {
        MPI_Send(out_buf, LARGE, MPI_BYTE, right, 2, MPI_COMM_WORLD);
        MPI_Recv(in_buf, LARGE, MPI_BYTE, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(in_buf, LARGE, MPI_BYTE, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(out_buf, LARGE, MPI_BYTE, right, 2, MPI_COMM_WORLD);
    }

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank % 2 == 0) {
        sleep_ms(rank, 3, w_ms);
        MPI_Recv(in_buf, LARGE, MPI_BYTE, rank + 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Send(out_buf, LARGE, MPI_BYTE, rank - 1, 3, MPI_COMM_WORLD);
    }

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank % 2 == 0) {
        MPI_Irecv(in_buf, SMALL, MPI_BYTE, rank + 1, 4, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        sleep_ms(rank, 4, w_ms);
        MPI_Isend(out_buf, SMALL, MPI_BYTE, rank - 1, 4, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank > 0)
        MPI_Recv(in_buf, PIPE, MPI_BYTE, rank - 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank < size - 1)
        MPI_Send(out_buf, PIPE, MPI_BYTE, rank + 1, 5, MPI_COMM_WORLD);

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
