/* pingpong.c: the minimal MPI_Send/MPI_Recv ping-pong ngx's mpi module is
 * compared against (bench/mpi/run.sh). Prints the median 1-byte half round
 * trip in microseconds, timed per iteration with MPI_Wtime like ngx times
 * per sample.   mpirun -np 2 ./pingpong [iterations] [bytes] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int by_value(const void* a, const void* b)
{
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int iterations = argc > 1 ? atoi(argv[1]) : 100000;
    int bytes = argc > 2 ? atoi(argv[2]) : 1;
    int warmup = iterations / 10;
    char* buffer = calloc((size_t)bytes + 1, 1);
    double* samples = malloc(sizeof(double) * (size_t)iterations);
    int peer = 1 - rank;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < warmup + iterations; ++i) {
        if (rank == 0) {
            double start = MPI_Wtime();
            MPI_Send(buffer, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
            MPI_Recv(buffer, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (i >= warmup)
                samples[i - warmup] = (MPI_Wtime() - start) * 1e6 / 2;
        } else {
            MPI_Recv(buffer, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buffer, bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
        }
    }
    if (rank == 0) {
        qsort(samples, (size_t)iterations, sizeof(double), by_value);
        printf("%.4f\n", samples[iterations / 2]);
    }
    free(samples);
    free(buffer);
    MPI_Finalize();
    return 0;
}
