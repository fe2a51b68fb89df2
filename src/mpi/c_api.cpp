// The C entry points; the C++ API and these share detail::bcast.
#include <leancast/leancast.h>

#include <optional>
#include <string>
#include <string_view>

#include "mpi/bcast.hpp"
#include "mpi/comm/comm_hint.hpp"
#include "mpi/base/errors.hpp"
#include "mpi/requests/stepped_call.hpp"

namespace {

using namespace leancast::detail;

// The last name this thread parsed and what it parsed to: a program names the same
// algorithm call after call, and parsing a name costs about 40 ns, a sixth of a 64 B
// broadcast through shared memory.
struct LastName {
  std::string text;
  std::optional<leancast::AlgorithmSpec> spec;
};

// A broadcast with the algorithm named by `algorithm` (nullptr or "": the settings decide).
int named(const BcastCall& call, const char* algorithm, const NonblockingCall* nonblocking) {
  if (nonblocking != nullptr && nonblocking->request != nullptr) {
    *nonblocking->request = MPI_REQUEST_NULL;
  }
  if (algorithm == nullptr || *algorithm == '\0') return bcast(call, std::nullopt, nonblocking);
  thread_local LastName last;
  if (last.spec && last.text == algorithm) return bcast(call, last.spec, nonblocking);
  std::string why;
  const auto parsed = leancast::parse_algorithm_spec(algorithm, &why);
  if (!parsed) {
    if (call.comm == MPI_COMM_NULL) return raise_problem(call.comm, Problem::null_communicator);
    // A known name with a bad parameter: the message names the value and its range.
    const std::string_view text(algorithm);
    if (leancast::parse_algorithm(text.substr(0, text.find(':')))) {
      return raise_message(call.comm, MPI_ERR_ARG, "leancast: " + why);
    }
    return raise_problem(call.comm, Problem::unknown_algorithm);
  }
  last = {algorithm, parsed};
  return bcast(call, parsed, nonblocking);
}

}  // namespace

extern "C" int LC_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  return bcast({buf, count, type, root, comm}, std::nullopt);
}

extern "C" int LC_Bcast_with(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                             const char* algorithm) {
  return named({buf, count, type, root, comm}, algorithm, nullptr);
}

extern "C" int LC_Ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                         MPI_Request* request) {
  const NonblockingCall nonblocking{request, false};
  return bcast({buf, count, type, root, comm}, std::nullopt, &nonblocking);
}

extern "C" int LC_Ibcast_with(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                              const char* algorithm, MPI_Request* request) {
  const NonblockingCall nonblocking{request, false};
  return named({buf, count, type, root, comm}, algorithm, &nonblocking);
}

extern "C" int LC_Bcast_init(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                             MPI_Info info, MPI_Request* request) {
  const NonblockingCall persistent{request, true};
  const auto algorithm = algorithm_info_value(info);
  return named({buf, count, type, root, comm}, algorithm ? algorithm->c_str() : nullptr,
               &persistent);
}

#ifndef LEANCAST_SMPI
// The program's own MPI_Bcast stays the library's, with the progress thread (or Open MPI's
// progress engine) stepping leancast's outstanding broadcasts while it blocks, as for every
// collective of stepped_calls.cpp. (The interposer defines MPI_Bcast itself.)
LEANCAST_ASSISTED(Bcast, (void* a0, int a1, MPI_Datatype a2, int a3, MPI_Comm a4), a0, a1, a2, a3,
                  a4)
#endif
