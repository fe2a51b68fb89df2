#include "pass_through.hpp"

#include <climits>

namespace leancast::detail {

int pass_to_mpi(void* buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm) {
  if (count <= INT_MAX) return PMPI_Bcast(buf, static_cast<int>(count), type, root, comm);
#if MPI_VERSION >= 4
  return PMPI_Bcast_c(buf, count, type, root, comm);
#else
  return MPI_ERR_COUNT;  // unreachable: without MPI 4 every count came through an int
#endif
}

}  // namespace leancast::detail
