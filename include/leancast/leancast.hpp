// leancast: bandwidth-saving MPI broadcast, C++ API. Same semantics as MPI_Bcast.
#pragma once

#include <mpi.h>

#include <leancast/algorithm.hpp>

namespace leancast {

// Broadcast with the algorithm the environment chooses (LEANCAST_BCAST_ALGORITHM, then
// LEANCAST_BCAST_RULES, then the LEANCAST_CONFIG file), or auto if none does.
int bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm);

// Broadcast with `algorithm` (Algorithm::mpi: the MPI library's own, PMPI_Bcast); it
// overrides the environment.
int bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, Algorithm algorithm);

// The same with a parameter ({Algorithm::knomial, 8}, or parse_algorithm_spec's result); a
// bad parameter (segment size 0, radix below 2) is an MPI_ERR_ARG error.
int bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
          const AlgorithmSpec& algorithm);

}  // namespace leancast
