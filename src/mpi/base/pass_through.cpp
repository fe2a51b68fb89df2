#include "mpi/base/pass_through.hpp"

#include <climits>

namespace leancast::detail {

int pass_to_mpi_large([[maybe_unused]] void* buf, [[maybe_unused]] MPI_Count count,
                      [[maybe_unused]] MPI_Datatype type, [[maybe_unused]] int root,
                      [[maybe_unused]] MPI_Comm comm) {
#if MPI_VERSION >= 4
  return PMPI_Bcast_c(buf, count, type, root, comm);
#else
  return MPI_ERR_COUNT;  // unreachable: without MPI 4 every count came through an int
#endif
}

int pass_to_mpi_nonblocking(void* buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
                            MPI_Request* request) {
  if (count <= INT_MAX) {
    return PMPI_Ibcast(buf, static_cast<int>(count), type, root, comm, request);
  }
#if MPI_VERSION >= 4
  return PMPI_Ibcast_c(buf, count, type, root, comm, request);
#else
  return MPI_ERR_COUNT;
#endif
}

}  // namespace leancast::detail
