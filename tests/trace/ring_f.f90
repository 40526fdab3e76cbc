! ring_f.f90: the Fortran (`use mpi`) program of the trace suite, 2 ranks.
! fortran.sh finds these calls in the dump, in this order:
!   rank 1 probes, then receives 10 integers from rank 0 (tag 60); rank 1
!   sends them back with Isend, rank 0 receives with Irecv (tag 61), both
!   complete with MPI_Waitall; rank 1 Isends one integer (tag 62) and Waits,
!   rank 0 MPI_Tests its Irecv until done; one more integer (tag 63) that both
!   complete with MPI_Waitany; then Allreduce (1 double), Bcast (5 integers,
!   root 0), Allgather, Alltoall (1 integer per rank), Gather (2 integers,
!   root 0), Scatter (3 integers, root 1), Gatherv, Scatterv (root 0),
!   Allgatherv and Alltoallv (1 integer per rank).
program ring_f
    use mpi
    implicit none
    integer :: ierr, rank, nprocs, reqs(1), buf(10), idx, one_int, two(2), all2(2), all4(4), cnt(2), dsp(2)
    integer :: status(MPI_STATUS_SIZE)
    logical :: done
    double precision :: one, total
    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
    buf = rank
    one_int = rank
    two = rank
    if (rank == 0) then
        call MPI_Send(buf, 10, MPI_INTEGER, 1, 60, MPI_COMM_WORLD, ierr)
        call MPI_Irecv(buf, 10, MPI_INTEGER, 1, 61, MPI_COMM_WORLD, reqs(1), ierr)
        call MPI_Waitall(1, reqs, MPI_STATUSES_IGNORE, ierr)
        call MPI_Irecv(one_int, 1, MPI_INTEGER, 1, 62, MPI_COMM_WORLD, reqs(1), ierr)
        done = .false.
        do while (.not. done)
            call MPI_Test(reqs(1), done, status, ierr)
        end do
        call MPI_Irecv(one_int, 1, MPI_INTEGER, 1, 63, MPI_COMM_WORLD, reqs(1), ierr)
        call MPI_Waitany(1, reqs, idx, status, ierr)
    else if (rank == 1) then
        call MPI_Probe(0, 60, MPI_COMM_WORLD, status, ierr)
        call MPI_Recv(buf, 10, MPI_INTEGER, 0, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        call MPI_Isend(buf, 10, MPI_INTEGER, 0, 61, MPI_COMM_WORLD, reqs(1), ierr)
        call MPI_Waitall(1, reqs, MPI_STATUSES_IGNORE, ierr)
        call MPI_Isend(one_int, 1, MPI_INTEGER, 0, 62, MPI_COMM_WORLD, reqs(1), ierr)
        call MPI_Wait(reqs(1), MPI_STATUS_IGNORE, ierr)
        call MPI_Isend(one_int, 1, MPI_INTEGER, 0, 63, MPI_COMM_WORLD, reqs(1), ierr)
        call MPI_Waitany(1, reqs, idx, MPI_STATUS_IGNORE, ierr)
    end if
    one = 1.0d0
    call MPI_Allreduce(one, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    call MPI_Bcast(buf, 5, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    call MPI_Allgather(one_int, 1, MPI_INTEGER, all2, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call MPI_Alltoall(two, 1, MPI_INTEGER, all2, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call MPI_Gather(two, 2, MPI_INTEGER, all4, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    call MPI_Scatter(buf, 3, MPI_INTEGER, buf(4), 3, MPI_INTEGER, 1, MPI_COMM_WORLD, ierr)
    cnt = 1
    dsp = (/0, 1/)
    call MPI_Gatherv(one_int, 1, MPI_INTEGER, all2, cnt, dsp, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    call MPI_Scatterv(all2, cnt, dsp, MPI_INTEGER, one_int, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    call MPI_Allgatherv(one_int, 1, MPI_INTEGER, all2, cnt, dsp, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call MPI_Alltoallv(two, cnt, dsp, MPI_INTEGER, all2, cnt, dsp, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call MPI_Finalize(ierr)
end program ring_f
