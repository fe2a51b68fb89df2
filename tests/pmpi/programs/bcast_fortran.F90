! bcast_fortran: a plain Fortran MPI program that knows nothing of leancast, built twice:
! with `use mpi` and (-DUSE_MPI_F08) with `use mpi_f08`. It broadcasts integers and
! doubles from every root and a derived type from MPI_BOTTOM at an absolute address; with
! the argument "in-place" it also checks that MPI_IN_PLACE is an error under
! MPI_ERRORS_RETURN (MPICH's Fortran binding passes MPI_IN_PLACE to MPI_Bcast as an
! ordinary address, so no C-level MPI_Bcast can tell). Rank 0 prints how many valid
! broadcasts it made. Exit status 1 if any check fails.
program bcast_fortran
#ifdef USE_MPI_F08
  use mpi_f08
  implicit none
  type(MPI_Comm) :: comm
  type(MPI_Datatype) :: absolute
#else
  use mpi
  implicit none
  integer :: comm, absolute
#endif
  integer, parameter :: n = 5000, m = 120000
  integer :: ierr, rank, procs, root, i, failures, total, made, error_class
  integer :: ints(n), lengths(1)
  double precision, allocatable :: doubles(:)
  integer(kind=MPI_ADDRESS_KIND) :: addresses(1)
  character(len=16) :: argument

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, procs, ierr)
  failures = 0
  made = 0
  allocate(doubles(m))

  do root = 0, procs - 1
    ints = -1
    if (rank == root) ints = [(3 * i + root, i = 1, n)]
    call MPI_Bcast(ints, n, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    made = made + 1
    if (ierr /= MPI_SUCCESS .or. any(ints /= [(3 * i + root, i = 1, n)])) call fail('integers')

    doubles = 0
    if (rank == root) doubles = [(i * 0.25d0 + root, i = 1, m)]
    call MPI_Bcast(doubles, m, MPI_DOUBLE_PRECISION, root, MPI_COMM_WORLD, ierr)
    made = made + 1
    if (ierr /= MPI_SUCCESS .or. any(doubles /= [(i * 0.25d0 + root, i = 1, m)])) call fail('doubles')
  end do

  ! MPI_BOTTOM: a type whose only block is at the absolute address of `ints`.
  ints = 0
  if (rank == 0) ints = [(7 * i, i = 1, n)]
  call MPI_Get_address(ints, addresses(1), ierr)
  lengths(1) = n
  call MPI_Type_create_hindexed(1, lengths, addresses, MPI_INTEGER, absolute, ierr)
  call MPI_Type_commit(absolute, ierr)
  call MPI_Bcast(MPI_BOTTOM, 1, absolute, 0, MPI_COMM_WORLD, ierr)
  made = made + 1
  if (ierr /= MPI_SUCCESS .or. any(ints /= [(7 * i, i = 1, n)])) call fail('MPI_BOTTOM')
  call MPI_Type_free(absolute, ierr)

  call get_command_argument(1, argument)
  if (argument == 'in-place') then
    call MPI_Comm_dup(MPI_COMM_WORLD, comm, ierr)
    call MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN, ierr)
    call MPI_Bcast(MPI_IN_PLACE, 1, MPI_INTEGER, 0, comm, ierr)
    error_class = MPI_SUCCESS
    if (ierr /= MPI_SUCCESS) call MPI_Error_class(ierr, error_class, ierr)
    if (error_class /= MPI_ERR_BUFFER) call fail('MPI_IN_PLACE is not MPI_ERR_BUFFER')
    call MPI_Comm_free(comm, ierr)
  end if

  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (total == 0) then
      print '(a,i0,a)', 'bcast_fortran: rank 0 made ', made, &
        ' valid broadcasts, 0 on intercommunicators; all data correct'
    else
      print '(a,i0,a)', 'bcast_fortran: ', total, ' checks FAILED'
    end if
  end if
  call MPI_Finalize(ierr)
  if (total /= 0) stop 1

contains

  subroutine fail(what)
    character(*), intent(in) :: what
    print '(a,i0,2a)', 'rank ', rank, ': FAILED ', what
    failures = failures + 1
  end subroutine fail

end program bcast_fortran
