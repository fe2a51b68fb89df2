#include "private_comm.hpp"

#include <mutex>

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
      expand(make_schedule(algorithm, BcastShape{size_, root, bytes}, rank_)));
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
  count_private_comm(true);
  auto state = std::make_unique<PrivateComm>(dup, size, rank);
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
