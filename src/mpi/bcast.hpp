// The one broadcast path behind the C and C++ APIs.
#pragma once

#include <mpi.h>

#include <optional>

#include <leancast/algorithm.hpp>

namespace leancast::detail {

// `requested` empty: LEANCAST_BCAST_ALGORITHM, else auto.
int bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
          std::optional<Algorithm> requested);

}  // namespace leancast::detail
