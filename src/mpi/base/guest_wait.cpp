#include "mpi/base/guest_wait.hpp"

#include <mpi.h>
#include <sched.h>

namespace leancast::detail {

void library_progress() {
  // A probe consumes nothing. On MPI_COMM_WORLD, because MPICH 4.0 runs no progress for a
  // probe on MPI_COMM_SELF (the two-rank program of tests/pmpi/programs/progress_mixed.c
  // hung with it); Open MPI runs it for either.
  int flag = 0;
  PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

void yield_cpu() { sched_yield(); }

}  // namespace leancast::detail
