// The MPI library's own broadcast, reached through the profiling interface (PMPI_*), so
// that the interposer's MPI_Bcast never calls itself.
#pragma once

#include <mpi.h>

#include <climits>

namespace leancast::detail {

// PMPI_Bcast, or PMPI_Bcast_c for counts beyond INT_MAX where the library has it (MPI 4).
// PMPI raises its own errors through the communicator's handler.
// Inline for int counts: a deferred broadcast's last step before the library.
int pass_to_mpi_large(void* buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm);
inline int pass_to_mpi(void* buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm) {
  if (count <= INT_MAX) return PMPI_Bcast(buf, static_cast<int>(count), type, root, comm);
  return pass_to_mpi_large(buf, count, type, root, comm);
}

// PMPI_Ibcast (PMPI_Ibcast_c beyond INT_MAX where the library has it).
int pass_to_mpi_nonblocking(void* buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
                            MPI_Request* request);

}  // namespace leancast::detail
