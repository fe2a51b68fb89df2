// The C++ entry points (include/leancast/leancast.hpp) that pass a call on to the one
// broadcast path (bcast.hpp); the C ones are c_api.cpp.
#include <leancast/leancast.hpp>

#include "mpi/bcast.hpp"
#include "mpi/comm/private_comm.hpp"
#include "mpi/pass_at_once.hpp"

namespace leancast {

int bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  const detail::BcastCall call{buf, count, type, root, comm};
  return detail::pass_at_once_or(call, nullptr,
                                 [&] { return detail::bcast_whole(call, std::nullopt); });
}

namespace {
// A nonblocking broadcast, its request in `request`.
int started(const detail::BcastCall& call, const std::optional<AlgorithmSpec>& algorithm,
            MPI_Request* request) {
  const detail::NonblockingCall nonblocking{request, false};
  return detail::bcast(call, algorithm, &nonblocking);
}

// A persistent broadcast, its handle in `persistent`.
int planned(const detail::BcastCall& call, const std::optional<AlgorithmSpec>& algorithm,
            LC_Persistent* persistent) {
  const detail::NonblockingCall nonblocking{nullptr, true, persistent};
  return detail::bcast(call, algorithm, &nonblocking);
}
}  // namespace

int ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request* request) {
  return started({buf, count, type, root, comm}, std::nullopt, request);
}

int ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
           const AlgorithmSpec& algorithm, MPI_Request* request) {
  return started({buf, count, type, root, comm}, algorithm, request);
}

int bcast_init(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
               LC_Persistent* persistent) {
  return planned({buf, count, type, root, comm}, std::nullopt, persistent);
}

int bcast_init(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
               const AlgorithmSpec& algorithm, LC_Persistent* persistent) {
  return planned({buf, count, type, root, comm}, algorithm, persistent);
}

int node_map(MPI_Comm comm, std::shared_ptr<const NodeMap>& nodes) {
  int inter = 0;
  if (comm == MPI_COMM_NULL || MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) {
    return MPI_ERR_COMM;
  }
  detail::PrivateComm* state = nullptr;
  if (int rc = detail::private_comm(comm, state); rc != MPI_SUCCESS) return rc;
  nodes = state->nodes();
  return MPI_SUCCESS;
}

int bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, Algorithm algorithm) {
  return detail::bcast({buf, count, type, root, comm}, AlgorithmSpec(algorithm));
}

int bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
          const AlgorithmSpec& algorithm) {
  const detail::BcastCall call{buf, count, type, root, comm};
  return detail::pass_at_once_or(call, &algorithm,
                                 [&] { return detail::bcast_whole(call, algorithm); });
}

std::vector<std::string> library_configuration() {
  return detail::process_settings().library_configuration;
}

}  // namespace leancast
