! ring_f08.f90: the `use mpi_f08` program of the trace suite: rank 0 sends 3
! integers to rank 1 (tag 70), then one MPI_Barrier. fortran.sh checks
! that the tracer sees both through Open MPI's f08 bindings.
program ring_f08
    use mpi_f08
    implicit none
    integer :: rank, buf(3)
    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    buf = 1
    if (rank == 0) call MPI_Send(buf, 3, MPI_INTEGER, 1, 70, MPI_COMM_WORLD)
    if (rank == 1) call MPI_Recv(buf, 3, MPI_INTEGER, 0, 70, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    call MPI_Barrier(MPI_COMM_WORLD)
    call MPI_Finalize()
end program ring_f08
