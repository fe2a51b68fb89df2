// The C entry points; the C++ API and these share detail::bcast.
#include <leancast/leancast.h>

#include <optional>
#include <string>
#include <string_view>

#include "mpi/bcast.hpp"
#include "mpi/comm/comm_hint.hpp"
#include "mpi/base/errors.hpp"
#include "mpi/comm/private_comm.hpp"
#include "mpi/requests/nonblocking.hpp"

namespace {

using namespace leancast::detail;

// The algorithm `algorithm` names, into `out`; an error raised on `comm` where it names
// none: a known name with a bad parameter names the value and its range.
int parse_named(MPI_Comm comm, const char* algorithm, std::optional<leancast::AlgorithmSpec>& out) {
  std::string why;
  out = leancast::parse_algorithm_spec(algorithm, &why);
  if (out) return MPI_SUCCESS;
  if (comm == MPI_COMM_NULL) return raise_problem(comm, Problem::null_communicator);
  const std::string_view text(algorithm);
  if (leancast::parse_algorithm(text.substr(0, text.find(':')))) {
    return raise_message(comm, MPI_ERR_ARG, "leancast: " + why);
  }
  return raise_problem(comm, Problem::unknown_algorithm);
}

// A broadcast with the algorithm named by `algorithm` (nullptr or "": the settings decide).
// The plan of the call's shape keeps the text it was named by: a program names the same
// algorithm call after call, and parsing a name costs about 40 ns, a sixth of a 64 B
// broadcast through shared memory.
int named(const BcastCall& call, const char* algorithm, const NonblockingCall* nonblocking) {
  if (nonblocking != nullptr) clear_outputs(*nonblocking);
  if (algorithm == nullptr || *algorithm == '\0') return bcast(call, std::nullopt, nonblocking);
  PrivateComm* state = last_state_of(call.comm);
  if (const PlanSlot* slot = state ? state->plans().find_name(call, algorithm) : nullptr) {
    const std::optional<leancast::AlgorithmSpec> spec = slot->plan->algorithm;
    return bcast(call, spec, nonblocking);
  }
  std::optional<leancast::AlgorithmSpec> parsed;
  if (int rc = parse_named(call.comm, algorithm, parsed); rc != MPI_SUCCESS) return rc;
  const int rc = bcast(call, parsed, nonblocking);
  if ((state = last_state_of(call.comm)) != nullptr) {
    if (PlanSlot* slot = state->plans().find(call, &*parsed)) slot->plan->name = algorithm;
  }
  return rc;
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
                             MPI_Info info, LC_Persistent* persistent) {
  const NonblockingCall call{nullptr, true, persistent};
  const auto algorithm = algorithm_info_value(info);
  return named({buf, count, type, root, comm}, algorithm ? algorithm->c_str() : nullptr, &call);
}

extern "C" int LC_Start(LC_Persistent persistent, MPI_Request* request) {
  try {
    return start_persistent(persistent, request);
  } catch (...) {
    return MPI_ERR_NO_MEM;
  }
}

extern "C" int LC_Startall(int count, LC_Persistent persistents[], MPI_Request requests[]) {
  for (int i = 0; i < count; ++i) {
    if (int rc = LC_Start(persistents[i], &requests[i]); rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

extern "C" int LC_Persistent_free(LC_Persistent* persistent) { return free_persistent(persistent); }

extern "C" int LC_Comm_set_algorithm(MPI_Comm comm, const char* algorithm) {
  if (comm == MPI_COMM_NULL) return raise_problem(comm, Problem::null_communicator);
  std::optional<leancast::AlgorithmSpec> spec;
  if (algorithm != nullptr && *algorithm != '\0') {
    if (int rc = parse_named(comm, algorithm, spec); rc != MPI_SUCCESS) return rc;
    // A parameter outside its registry row's range: a call checks that as it runs.
    if (const std::string why = leancast::parameter_problem(*spec); !why.empty()) {
      return raise_message(comm, MPI_ERR_ARG, "leancast: " + why);
    }
  }
  try {
    set_comm_hint(comm, spec);
    PrivateComm* state = nullptr;
    if (existing_private_comm(comm, state) == MPI_SUCCESS && state != nullptr) {
      state->set_hint(spec);
    }
  } catch (...) {
    return raise_code(comm, MPI_ERR_NO_MEM);
  }
  return MPI_SUCCESS;
}

extern "C" int LC_Comm_prepare(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) return raise_problem(comm, Problem::null_communicator);
  try {
    const int rc = prepare_private_comm(comm);
    return rc == MPI_SUCCESS ? rc : raise_code(comm, rc);
  } catch (...) {
    return raise_code(comm, MPI_ERR_NO_MEM);
  }
}
