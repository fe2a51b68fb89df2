// leancast: bandwidth-saving MPI broadcast, C++ API. Same semantics as MPI_Bcast.
#pragma once

#include <mpi.h>

#include <leancast/algorithm.hpp>

namespace leancast {

// Broadcast with the algorithm named by LEANCAST_BCAST_ALGORITHM, or auto if unset.
int bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm);

// Broadcast with `algorithm`; it overrides LEANCAST_BCAST_ALGORITHM.
int bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, Algorithm algorithm);

}  // namespace leancast
