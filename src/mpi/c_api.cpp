// The C entry points; the C++ API and these share detail::bcast.
#include <leancast/leancast.h>

#include "bcast.hpp"
#include "errors.hpp"

extern "C" int LC_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  return leancast::detail::bcast({buf, count, type, root, comm}, std::nullopt);
}

extern "C" int LC_Bcast_with(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                             const char* algorithm) {
  using namespace leancast::detail;
  if (algorithm == nullptr || *algorithm == '\0') {
    return bcast({buf, count, type, root, comm}, std::nullopt);
  }
  const auto parsed = leancast::parse_algorithm_spec(algorithm);
  if (!parsed) {
    return raise_problem(comm, comm == MPI_COMM_NULL ? Problem::null_communicator
                                                     : Problem::unknown_algorithm);
  }
  return bcast({buf, count, type, root, comm}, parsed);
}
