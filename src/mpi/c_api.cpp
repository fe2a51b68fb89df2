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
  std::string why;
  const auto parsed = leancast::parse_algorithm_spec(algorithm, &why);
  if (!parsed) {
    if (comm == MPI_COMM_NULL) return raise_problem(comm, Problem::null_communicator);
    // A known name with a bad parameter: the message names the value and its range.
    const std::string_view text(algorithm);
    if (leancast::parse_algorithm(text.substr(0, text.find(':')))) {
      return raise_message(comm, MPI_ERR_ARG, "leancast: " + why);
    }
    return raise_problem(comm, Problem::unknown_algorithm);
  }
  return bcast({buf, count, type, root, comm}, parsed);
}
