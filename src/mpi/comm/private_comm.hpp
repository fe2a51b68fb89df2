// Each user communicator gets a private duplicate, cached as an attribute and freed with
// it: broadcast messages travel there, so a user receive with MPI_ANY_SOURCE/MPI_ANY_TAG
// on the user's communicator can never match them. The cached state also keeps a plan per
// call shape (call_plans.hpp), so repeated broadcasts skip checks, decisions and planning.
//
// Made (MPI_Comm_dup, a blocking collective, then an allgather of the ranks' node keys) at
// the communicator's first blocking leancast broadcast that moves data, at LC_Bcast_init, or
// at LC_Comm_prepare: calls every rank makes anyway. A nonblocking broadcast may not wait
// for the other ranks, so one on a communicator without a private state is the library's
// (bcast.cpp). (MPI_Comm_idup would not wait, but Open MPI 4.1 mismatches it with the
// library's other nonblocking collectives on the same communicator: open-mpi/ompi#2025.)
//
// Threads: one communicator's state needs no lock, because MPI forbids concurrent
// collectives on one communicator (each thread broadcasts on its own). What is shared
// between communicators (the attribute key, the local check communicator) is made once
// (a function-local static, std::call_once), and attribute calls are thread-safe in
// MPI_THREAD_MULTIPLE.
#pragma once

#include <mpi.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <leancast/schedule.hpp>

#include "mpi/base/process_settings.hpp"
#include "mpi/comm/call_plans.hpp"
#include "mpi/run/broadcast_run.hpp"
#include "mpi/run/executor.hpp"
#include "mpi/run/program.hpp"
#include "select/decide.hpp"
#include "select/online_tuner.hpp"
#include "mpi/run/shared_window.hpp"

namespace leancast::detail {

class PrivateComm final : public RunComm {
 public:
  PrivateComm(MPI_Comm dup, int size, int rank, std::shared_ptr<const NodeMap> nodes,
              int sequence_bits)
      : comm_(dup),
        size_(size),
        rank_(rank),
        nodes_(std::move(nodes)),
        sequence_mask_((std::uint32_t{1} << sequence_bits) - 1) {}
  ~PrivateComm();
  PrivateComm(const PrivateComm&) = delete;
  PrivateComm& operator=(const PrivateComm&) = delete;

  MPI_Comm comm() const override { return comm_; }
  int size() const override { return size_; }
  int rank() const override { return rank_; }
  // Which node each rank runs on (node_keys.hpp, or LEANCAST_RANKS_PER_NODE).
  const std::shared_ptr<const NodeMap>& nodes() const override { return nodes_; }

  // This rank's operations for one broadcast (algorithm already resolved): the plan's of
  // (bytes, root, algorithm) where there is room for one without replacing another (a
  // running plan must outlive the lookup), else made afresh.
  std::shared_ptr<const Program> program(const AlgorithmSpec& algorithm, int root,
                                         std::uint64_t bytes) override;

  // The plans of this communicator's call shapes (call_plans.hpp).
  CallPlans& plans() { return plans_; }

  ExecutorScratch& scratch() { return scratch_; }
  // The sequence number of the next broadcast that runs a schedule here, and the mask of
  // the tag bits that carry it (broadcast_tag.hpp; 0: none).
  std::uint32_t next_sequence() override { return ++broadcasts_ & sequence_mask_; }
  std::uint32_t sequence_mask() const override { return sequence_mask_; }

  // Online tuning's bookkeeping for this communicator, made at its first tuned broadcast.
  OnlineTuner& tuner(const TuneSettings& settings) {
    if (!tuner_) tuner_ = std::make_unique<OnlineTuner>(settings);
    return *tuner_;
  }
  const OnlineTuner* tuner() const { return tuner_.get(); }

  // The user communicator's info hint (comm_hint.hpp), read when this state is made and
  // updated by MPI_Comm_set_info; a new one forgets the plans, whose decisions it may change.
  const std::optional<AlgorithmSpec>& hint() const { return hint_; }
  void set_hint(const std::optional<AlgorithmSpec>& hint) {
    hint_ = hint;
    plans_.clear();
  }

  // The shared window shm broadcasts go through, with slots of at least `slot_bytes`: the
  // whole communicator's (flat shm) or this rank's node's (node-aware:X/shm). Made (or
  // grown) by the first broadcast that needs it, every rank at the same broadcast, through
  // an exchange of nonblocking collectives (WindowSetup) that each call advances without
  // waiting: kPending while it goes on (`waiting` is what it waits for), MPI_SUCCESS with
  // `out` once the window is there, or an error on every rank alike (for good, with `why`:
  // MPI_ERR_UNSUPPORTED_OPERATION where those ranks do not share memory).
  int shared_window(bool per_node, std::uint64_t slot_bytes, SharedWindow*& out, std::string& why,
                    MPI_Request*& waiting) override;
  SharedWindow* current_window(bool per_node, std::uint64_t slot_bytes) const override;
  std::uint64_t blocking_window_slot(bool per_node) const override {
    return shared_[per_node ? 1 : 0].blocking_slot;
  }
  void note_blocking_window(bool per_node, std::uint64_t slot_bytes) override {
    shared_[per_node ? 1 : 0].blocking_slot = slot_bytes;
  }

 private:
  MPI_Comm comm_;
  int size_;
  int rank_;
  std::shared_ptr<const NodeMap> nodes_;
  ExecutorScratch scratch_;
  std::uint32_t sequence_mask_;
  std::uint32_t broadcasts_ = 0;
  std::unique_ptr<OnlineTuner> tuner_;
  std::optional<AlgorithmSpec> hint_;
  struct Shared {
    std::unique_ptr<SharedWindow> window;
    std::unique_ptr<WindowSetup> setup;  // making or growing it, while that goes on
    int error = MPI_SUCCESS;             // why there is none, once found out
    std::string why;
    std::uint64_t blocking_slot = 0;  // note_blocking_window's
  };
  std::array<Shared, 2> shared_;  // [0] the communicator's, [1] the node's
  CallPlans plans_;
};

// The private state of `user` (an intracommunicator), made collectively if there is none
// yet. Returns an MPI error code; `out` is set on success.
int private_comm(MPI_Comm user, PrivateComm*& out);

// The private state of `user` if one was made, else nullptr in `out`; never communicates.
// Returns an MPI error code. Each thread remembers the last one it found, so that
// broadcasts repeated on one communicator skip MPI_Comm_get_attr (about 20 ns with Open
// MPI 4.1: git show 36aaa05^:docs/benchmarks/call-path/); freeing any private state forgets it (a
// freed communicator's handle may come back for another). The remembered lookup is inline.
int find_private_comm(MPI_Comm user, PrivateComm*& out);

#ifndef LEANCAST_SMPI
// The last private state this thread found, and on which communicator. (Not under SMPI,
// whose simulated ranks may share a thread.) Initial-exec: one load from the thread
// pointer, where the shared library's default model calls __tls_get_addr at every
// broadcast; the library is linked or preloaded, whose TLS is static.
struct LastFound {
  MPI_Comm user{};  // (MPI_COMM_NULL is no constant in Open MPI; state says whether set)
  PrivateComm* state = nullptr;
  std::uint64_t freed = 0;
};
extern thread_local constinit LastFound last_found [[gnu::tls_model("initial-exec")]];

// The private state the last lookup found, if it was `user`'s and still lives.
[[gnu::always_inline]] inline PrivateComm* last_state_of(MPI_Comm user) {
  const LastFound& found = last_found;
  return found.state != nullptr && found.user == user &&
                 found.freed == hot_words.states_freed.load(std::memory_order_acquire)
             ? found.state
             : nullptr;
}
#else
inline PrivateComm* last_state_of(MPI_Comm) { return nullptr; }  // (no repeats kept)
#endif

inline int existing_private_comm(MPI_Comm user, PrivateComm*& out) {
  if (PrivateComm* state = last_state_of(user)) {
    out = state;
    return MPI_SUCCESS;
  }
  return find_private_comm(user, out);
}

// LC_Comm_prepare (collective): the private state of `comm`, unless it is an
// intercommunicator, has one rank, or the settings never run leancast's schedules
// (LEANCAST_BCAST_ALGORITHM=mpi). MPI error codes.
int prepare_private_comm(MPI_Comm comm);

// One of leancast's own collectives on `state`'s private communicator, which every rank
// makes at the same point: `start(comm, &request)` posts its nonblocking form, and the wait
// steps the process's outstanding broadcasts (it never blocks inside the library while one
// is outstanding, and a blocking form could not match a rank that runs it as a task).
// Returns an MPI error code.
int own_collective(PrivateComm& state, int (*start)(MPI_Comm, MPI_Request*, void*), void* what);
template <class Start>
int own_collective(PrivateComm& state, Start start) {
  return own_collective(
      state,
      [](MPI_Comm comm, MPI_Request* request, void* what) {
        return (*static_cast<Start*>(what))(comm, request);
      },
      &start);
}

// A process-local communicator (a duplicate of MPI_COMM_SELF) whose errors return,
// for local checks such as MPI_Pack with count 0 to find uncommitted datatypes.
MPI_Comm local_check_comm();

}  // namespace leancast::detail
