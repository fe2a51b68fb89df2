#include "mpi/comm/private_comm.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>

#include "mpi/run/broadcast_tag.hpp"
#include "mpi/comm/comm_hint.hpp"
#include "mpi/comm/node_keys.hpp"
#include "mpi/requests/tasks.hpp"
#include "mpi/base/process_settings.hpp"
#include "mpi/base/usage_log.hpp"

namespace leancast::detail {

namespace {

int delete_state(MPI_Comm, int, void* state, void*) {
  delete static_cast<PrivateComm*>(state);
  return MPI_SUCCESS;
}

// The attribute key of the private state, made at the first lookup (inside MPI_Init where
// leancast defines it; a function-local static: one check after the first): {key, MPI
// error code}.
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

}  // namespace

#ifndef LEANCAST_SMPI
thread_local constinit LastFound last_found [[gnu::tls_model("initial-exec")]];
#endif

PrivateComm::~PrivateComm() {
  hot_words.states_freed.fetch_add(1, std::memory_order_release);
  forget_comm(this);
  plans_.clear();  // their copies run through the windows
  for (Shared& shared : shared_) {
    shared.setup.reset();  // completes its exchange: the other ranks take part in it
    shared.window.reset();
  }
  PMPI_Comm_free(&comm_);
  count_private_comm(false);
}

std::shared_ptr<const Program> PrivateComm::program(const AlgorithmSpec& algorithm, int root,
                                                    std::uint64_t bytes) {
  const PlanKey key{
      static_cast<MPI_Count>(bytes), MPI_Datatype{}, root, Request::resolved, &algorithm, true};
  PlanSlot* slot = plans_.find(key);
  if (slot == nullptr) {
    slot = plans_.add(key, resolved_plan(algorithm, bytes), false);
    if (slot == nullptr) return make_program(*this, algorithm, root, bytes);
  }
  CallPlan& plan = *slot->plan;
  if (!plan.program) plan.program = make_program(*this, algorithm, root, bytes);
  return plan.program;
}

SharedWindow* PrivateComm::current_window(bool per_node, std::uint64_t slot_bytes) const {
  const Shared& shared = shared_[per_node ? 1 : 0];
  const bool ready = shared.error == MPI_SUCCESS && !shared.setup && shared.window &&
                     shared.window->slot_bytes() >= slot_bytes;
  return ready ? shared.window.get() : nullptr;
}

int PrivateComm::shared_window(bool per_node, std::uint64_t slot_bytes, SharedWindow*& out,
                               std::string& why, MPI_Request*& waiting) {
  Shared& shared = shared_[per_node ? 1 : 0];
  out = nullptr;
  waiting = nullptr;
  if (shared.error != MPI_SUCCESS) {
    why = shared.why;
    return shared.error;
  }
  if (!shared.setup) {
    if ((out = current_window(per_node, slot_bytes)) != nullptr) return MPI_SUCCESS;
#ifdef LEANCAST_SMPI
    // SMPI neither prices the copies (simulated time would leave them out) nor switches
    // between simulated ranks while one spins on a flag, so shm and cma(-split) are not simulated.
    shared.error = MPI_ERR_UNSUPPORTED_OPERATION;
    shared.why = why =
        "shm, cma, cma-split: not under SMPI, which would neither time their copies nor let a "
        "rank that waits on shared memory hand the turn to the rank it waits for; they work "
        "within one node of a real machine";
    return shared.error;
#endif
    if (!shared.window) {
      const int group = per_node ? (*nodes_)[static_cast<std::size_t>(rank_)] : 0;
      std::vector<int> ranks;
      for (int r = 0; r < size_; ++r) {
        if (!per_node || (*nodes_)[static_cast<std::size_t>(r)] == group) ranks.push_back(r);
      }
      const int member =
          static_cast<int>(std::find(ranks.begin(), ranks.end(), rank_) - ranks.begin());
      shared.window = std::make_unique<SharedWindow>(std::move(ranks), member);
    }
    shared.setup = std::make_unique<WindowSetup>(comm_, rank_, *shared.window,
                                                 SharedWindow::rounded_slot(slot_bytes));
  }
  if (!shared.setup->step()) {
    waiting = shared.setup->waiting_on();
    return kPending;
  }
  const int rc = shared.setup->error();
  if (rc == MPI_ERR_UNSUPPORTED_OPERATION) {
    shared.error = rc;
    shared.why = why = shared.setup->why();
    shared.window.reset();
  }
  shared.setup.reset();
  if (rc == MPI_SUCCESS) out = shared.window.get();
  return rc;
}

int find_private_comm(MPI_Comm user, PrivateComm*& out) {
  out = nullptr;
#ifndef LEANCAST_SMPI
  const std::uint64_t freed = hot_words.states_freed.load(std::memory_order_acquire);
#endif
  const auto& [keyval, keyval_error] = state_keyval();
  if (keyval_error != MPI_SUCCESS) return keyval_error;
  void* value = nullptr;
  int found = 0;
  if (int rc = MPI_Comm_get_attr(user, keyval, &value, &found); rc != MPI_SUCCESS) return rc;
  if (found) out = static_cast<PrivateComm*>(value);
#ifndef LEANCAST_SMPI
  if (found) last_found = {user, out, freed};
#endif
  return MPI_SUCCESS;
}

// The node map of the ranks of `dup`: from the settings, or from an allgather of every
// rank's key.
int find_nodes(MPI_Comm dup, int size, std::shared_ptr<const NodeMap>& out) {
  if (const int per_node = process_settings().ranks_per_node; per_node > 0) {
    out = block_nodes(size, per_node);
    return MPI_SUCCESS;
  }
  std::vector<std::uint64_t> keys(static_cast<std::size_t>(size));
  const std::uint64_t mine = node_key();
  MPI_Request request = MPI_REQUEST_NULL;
  int rc = MPI_Iallgather(&mine, 1, MPI_UINT64_T, keys.data(), 1, MPI_UINT64_T, dup, &request);
  if (rc == MPI_SUCCESS) rc = wait_stepping(&request);
  if (rc == MPI_SUCCESS) out = std::make_shared<const NodeMap>(nodes_from_keys(keys));
  return rc;
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
  if (int rc = find_nodes(dup, size, nodes); rc != MPI_SUCCESS) {
    PMPI_Comm_free(&dup);
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

int prepare_private_comm(MPI_Comm comm) {
  if (process_settings().library_only()) return MPI_SUCCESS;
  int inter = 0, size = 0;
  if (int rc = MPI_Comm_test_inter(comm, &inter); rc != MPI_SUCCESS || inter) return rc;
  MPI_Comm_size(comm, &size);
  if (size <= 1) return MPI_SUCCESS;
  PrivateComm* state = nullptr;
  return private_comm(comm, state);
}

int own_collective(PrivateComm& state, int (*start)(MPI_Comm, MPI_Request*, void*), void* what) {
  MPI_Request request = MPI_REQUEST_NULL;
  if (int rc = start(state.comm(), &request, what); rc != MPI_SUCCESS) return rc;
  return wait_stepping(&request);
}

MPI_Comm local_check_comm() {
  std::call_once(local_once, [] {
    MPI_Comm_dup(MPI_COMM_SELF, &local_comm);
    MPI_Comm_set_errhandler(local_comm, MPI_ERRORS_RETURN);
  });
  return local_comm;
}

}  // namespace leancast::detail
