#include "private_comm.hpp"

#include <algorithm>
#include <mutex>

#include "broadcast_tag.hpp"
#include "comm_hint.hpp"
#include "nonblocking.hpp"
#include "process_settings.hpp"
#include "usage_log.hpp"

namespace leancast::detail {

namespace {

int delete_state(MPI_Comm, int, void* state, void*) {
  delete static_cast<PrivateComm*>(state);
  return MPI_SUCCESS;
}

// The attribute key of the private state, made at the first broadcast (a function-local
// static: asked on every broadcast, one check after the first): {key, MPI error code}.
const std::pair<int, int>& state_keyval() {
  static const std::pair<int, int> made = [] {
    int key = MPI_KEYVAL_INVALID;
    const int rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &key, nullptr);
    return std::pair<int, int>{key, rc};
  }();
  return made;
}

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
  forget_comm(this);
  for (Shared& shared : shared_) shared.window.reset();  // MPI_Win_free, collective like this
  MPI_Comm_free(&comm_);
  count_private_comm(false);
}

std::shared_ptr<const Program> PrivateComm::program(const AlgorithmSpec& algorithm,
                                                                   int root, std::uint64_t bytes) {
  const Key key{algorithm, root, bytes};
  for (auto it = recent_.begin(); it != recent_.end(); ++it) {
    if (it->first == key) {
      recent_.splice(recent_.begin(), recent_, it);
      return it->second;
    }
  }
  auto made = std::make_shared<const Program>(
      make_schedule(algorithm, BcastShape{size_, root, bytes, nodes_}, rank_),
      broadcast_signature(algorithm, root, bytes));
  recent_.emplace_front(key, made);
  if (recent_.size() > kCachedPrograms) recent_.pop_back();
  return made;
}

int PrivateComm::shared_window(bool per_node, std::uint64_t slot_bytes, SharedWindow*& out,
                               std::string& why) {
  Shared& shared = shared_[per_node ? 1 : 0];
  if (shared.error != MPI_SUCCESS) {
    why = shared.why;
    return shared.error;
  }
  int rc = MPI_SUCCESS;
  if (!shared.window) {
    const int group = per_node && nodes_ ? (*nodes_)[rank_] : 0;
    rc = SharedWindow::create(comm_, group, slot_bytes, shared.window, why);
    if (rc == MPI_ERR_UNSUPPORTED_OPERATION) {
      shared.error = rc;
      shared.why = why;
    }
  } else {
    rc = shared.window->reserve(slot_bytes);
  }
  out = shared.window.get();
  return rc;
}

const Decision* PrivateComm::remembered(std::uint64_t bytes,
                                        const std::optional<AlgorithmSpec>& call) const {
  const std::size_t filled = std::min(decisions_made_, kRememberedDecisions);
  for (std::size_t i = 0; i < filled; ++i) {
    if (decisions_[i].bytes == bytes && decisions_[i].call == call) return &decisions_[i].decision;
  }
  return nullptr;
}

void PrivateComm::remember(std::uint64_t bytes, const std::optional<AlgorithmSpec>& call,
                           const Decision& decision) {
  decisions_[decisions_made_++ % kRememberedDecisions] = {bytes, call, decision};
}

int existing_private_comm(MPI_Comm user, PrivateComm*& out) {
  out = nullptr;
  const auto& [keyval, keyval_error] = state_keyval();
  if (keyval_error != MPI_SUCCESS) return keyval_error;
  void* value = nullptr;
  int found = 0;
  if (int rc = MPI_Comm_get_attr(user, keyval, &value, &found); rc != MPI_SUCCESS) return rc;
  if (found) out = static_cast<PrivateComm*>(value);
  return MPI_SUCCESS;
}

int private_comm(MPI_Comm user, PrivateComm*& out) {
  if (int rc = existing_private_comm(user, out); rc != MPI_SUCCESS || out != nullptr) return rc;
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
  // Tag bits beyond the 15 MPI guarantees carry a broadcast sequence number.
  int* tag_ub = nullptr;
  int has_tag_ub = 0;
  MPI_Comm_get_attr(dup, MPI_TAG_UB, &tag_ub, &has_tag_ub);
  const int bits = has_tag_ub && tag_ub != nullptr ? sequence_bits(*tag_ub) : 0;
  auto state = std::make_unique<PrivateComm>(dup, size, rank, std::move(nodes), bits);
  state->set_hint(comm_hint(user));
  if (int rc = MPI_Comm_set_attr(user, state_keyval().first, state.get()); rc != MPI_SUCCESS) {
    return rc;
  }
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
