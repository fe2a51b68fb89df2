#include "private_comm.hpp"

#include <mutex>

#include "process_settings.hpp"
#include "usage_log.hpp"

namespace leancast::detail {

namespace {

int delete_state(MPI_Comm, int, void* state, void*) {
  delete static_cast<PrivateComm*>(state);
  return MPI_SUCCESS;
}

std::once_flag keyval_once;
int keyval = MPI_KEYVAL_INVALID;
int keyval_error = MPI_SUCCESS;

std::once_flag local_once;
MPI_Comm local_comm = MPI_COMM_NULL;

// node_of[r] = the lowest rank sharing r's node, for every rank r of `comm`.
int find_nodes(MPI_Comm comm, int size, int rank, std::shared_ptr<const NodeMap>& out) {
  if (const int per_node = process_settings().ranks_per_node; per_node > 0) {
    out = block_nodes(size, per_node);
    return MPI_SUCCESS;
  }
  MPI_Comm node = MPI_COMM_NULL;
  int rc = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  if (rc != MPI_SUCCESS) return rc;
  int lowest = rank;
  rc = MPI_Allreduce(&rank, &lowest, 1, MPI_INT, MPI_MIN, node);
  MPI_Comm_free(&node);
  if (rc != MPI_SUCCESS) return rc;
  auto nodes = std::make_shared<NodeMap>(size);
  rc = MPI_Allgather(&lowest, 1, MPI_INT, nodes->data(), 1, MPI_INT, comm);
  out = std::move(nodes);
  return rc;
}

}  // namespace

PrivateComm::~PrivateComm() {
  MPI_Comm_free(&comm_);
  count_private_comm(false);
}

std::shared_ptr<const PrivateComm::Program> PrivateComm::program(const AlgorithmSpec& algorithm,
                                                                   int root, std::uint64_t bytes) {
  const Key key{algorithm, root, bytes};
  for (auto it = recent_.begin(); it != recent_.end(); ++it) {
    if (it->first == key) {
      recent_.splice(recent_.begin(), recent_, it);
      return it->second;
    }
  }
  auto made = std::make_shared<const Program>(
      expand(make_schedule(algorithm, BcastShape{size_, root, bytes, nodes_}, rank_)));
  recent_.emplace_front(key, made);
  if (recent_.size() > kCachedPrograms) recent_.pop_back();
  return made;
}

int private_comm(MPI_Comm user, PrivateComm*& out) {
  std::call_once(keyval_once, [] {
    keyval_error =
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &keyval, nullptr);
  });
  if (keyval_error != MPI_SUCCESS) return keyval_error;
  void* value = nullptr;
  int found = 0;
  if (int rc = MPI_Comm_get_attr(user, keyval, &value, &found); rc != MPI_SUCCESS) return rc;
  if (found) {
    out = static_cast<PrivateComm*>(value);
    return MPI_SUCCESS;
  }
  MPI_Comm dup = MPI_COMM_NULL;
  if (int rc = MPI_Comm_dup(user, &dup); rc != MPI_SUCCESS) return rc;
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  int size = 0, rank = 0;
  MPI_Comm_size(dup, &size);
  MPI_Comm_rank(dup, &rank);
  std::shared_ptr<const NodeMap> nodes;
  if (int rc = find_nodes(dup, size, rank, nodes); rc != MPI_SUCCESS) {
    MPI_Comm_free(&dup);
    return rc;
  }
  count_private_comm(true);
  auto state = std::make_unique<PrivateComm>(dup, size, rank, std::move(nodes));
  if (int rc = MPI_Comm_set_attr(user, keyval, state.get()); rc != MPI_SUCCESS) return rc;
  out = state.release();
  return MPI_SUCCESS;
}

MPI_Comm local_check_comm() {
  std::call_once(local_once, [] {
    MPI_Comm_dup(MPI_COMM_SELF, &local_comm);
    MPI_Comm_set_errhandler(local_comm, MPI_ERRORS_RETURN);
  });
  return local_comm;
}

}  // namespace leancast::detail
