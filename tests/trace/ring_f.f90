! ring_f.f90: the Fortran (`use mpi`) program of the trace suite. Rank 0
! sends 10 integers to rank 1 (tag 60), rank 1 sends them back with an
! Isend that rank 0 receives with Irecv (tag 61), both complete with
! MPI_Waitall; then one MPI_Allreduce of one double and MPI_Bcast of 5
! integers from root 0. test-fortran.sh finds these calls in the dump.
program ring_f
    use mpi
    implicit none
    integer :: ierr, rank, nprocs, reqs(1), buf(10)
    double precision :: one, total
    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
    buf = rank
    if (rank == 0) then
        call MPI_Send(buf, 10, MPI_INTEGER, 1, 60, MPI_COMM_WORLD, ierr)
        call MPI_Irecv(buf, 10, MPI_INTEGER, 1, 61, MPI_COMM_WORLD, reqs(1), ierr)
        call MPI_Waitall(1, reqs, MPI_STATUSES_IGNORE, ierr)
    else if (rank == 1) then
        call MPI_Recv(buf, 10, MPI_INTEGER, 0, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        call MPI_Isend(buf, 10, MPI_INTEGER, 0, 61, MPI_COMM_WORLD, reqs(1), ierr)
        call MPI_Waitall(1, reqs, MPI_STATUSES_IGNORE, ierr)
    end if
    one = 1.0d0
    call MPI_Allreduce(one, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    call MPI_Bcast(buf, 5, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    call MPI_Finalize(ierr)
end program ring_f
