// Each user communicator gets a private duplicate, cached as an attribute and freed with
// it: broadcast messages travel there, so a user receive with MPI_ANY_SOURCE/MPI_ANY_TAG
// on the user's communicator can never match them. The cached state also keeps the
// operations of recently used broadcast shapes, so repeated broadcasts skip planning.
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
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <leancast/schedule.hpp>

#include "mpi/base/process_settings.hpp"
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

  // This rank's operations for one broadcast (algorithm already resolved), cached.
  const std::shared_ptr<const Program>& program(const AlgorithmSpec& algorithm, int root,
                                                std::uint64_t bytes) override;

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
  // updated by MPI_Comm_set_info; a new one forgets the remembered choices.
  const std::optional<AlgorithmSpec>& hint() const { return hint_; }
  void set_hint(const std::optional<AlgorithmSpec>& hint) {
    hint_ = hint;
    decisions_made_ = 0;
    decisions_ = {};
    last_call_ = {};
    last_ibcast_ = {};
  }

  // The last blocking broadcast here whose arguments passed every check, with a predefined
  // datatype (whose handle never comes to name another type), the bytes it moved and what
  // was decided: a repeat of it (the same count, type, root and named algorithm; any buffer)
  // skips the datatype queries, the argument checks that do not look at the buffer, and the
  // decision (bcast.cpp). Forgotten with the remembered choices.
  struct alignas(64) LastCall {  // what a repeat compares, on the line it starts
    MPI_Count count = -1;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    int root = -1;
    bool named = false;  // call.has_value(): a repeat that names none reads this line alone
    // Whether a repeat may go to the library's broadcast at once (mpi/pass_at_once.hpp):
    // `always` where it was decided for it and LEANCAST_VERBOSE is off (nothing to count);
    // `unless_tuning` where that was auto's choice, which online tuning may try otherwise.
    enum class Passes : unsigned char { never, always, unless_tuning } passes = Passes::never;
    // The communicator's copies at once are aimed at this call's shape: a repeat runs them
    // again (mpi/pass_at_once.hpp).
    bool copies = false;
    std::optional<AlgorithmSpec> call;
    TypeInfo info;
    Decision decision;
  };
  // `named`: the algorithm the call names (nullptr: none).
  const LastCall* repeat_of(const BcastCall& call, const AlgorithmSpec* named) const {
    return repeats(last_call_, call, named) ? &last_call_ : nullptr;
  }
  void remember_call(const BcastCall& call, const std::optional<AlgorithmSpec>& named,
                     const TypeInfo& info, const Decision& decision) {
    using Passes = LastCall::Passes;
    const Passes passes = !deferred(decision) ? Passes::never
                          : decision.tunable  ? Passes::unless_tuning
                                              : Passes::always;
    last_call_ = kept(call, named, info, decision, passes);
  }
  // The same for the last nonblocking (not persistent) broadcast, kept apart so that
  // nonblocking calls between two blocking ones leave the blocking repeat its short way.
  // Nonblocking calls are never tried by online tuning: a deferral passes `always`.
  const LastCall* ibcast_repeat_of(const BcastCall& call, const AlgorithmSpec* named) const {
    return repeats(last_ibcast_, call, named) ? &last_ibcast_ : nullptr;
  }
  void remember_ibcast(const BcastCall& call, const std::optional<AlgorithmSpec>& named,
                       const TypeInfo& info, const Decision& decision) {
    using Passes = LastCall::Passes;
    last_ibcast_ =
        kept(call, named, info, decision, deferred(decision) ? Passes::always : Passes::never);
  }

  // The copies a blocking broadcast of `plan` runs at once (CopiesAtOnce, broadcast_run.hpp):
  // the communicator's one, aimed at the plan's shape if it is not already, or null where the
  // plan needs the whole run. Where the plan is the last call's shape, its repeats run it again.
  CopiesAtOnce* copies_at_once(const BroadcastPlan& plan);
  CopiesAtOnce& kept_copies() { return copies_; }

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

  // The choice made for a broadcast of `bytes` bytes with the call's algorithm (or none:
  // the settings decide), if remembered: on one communicator it comes out the same every
  // time. Deciding again costs about 0.1 us, a third of a 1 KiB broadcast between two ranks
  // of one node, which would make auto's deferral to the library measurably slower than the
  // library.
  const Decision* remembered(std::uint64_t bytes, const std::optional<AlgorithmSpec>& call) const;
  void remember(std::uint64_t bytes, const std::optional<AlgorithmSpec>& call,
                const Decision& decision);

 private:
  using Key = std::tuple<AlgorithmSpec, int, std::uint64_t>;  // the parameter included
  static constexpr std::size_t kCachedPrograms = 16;

  MPI_Comm comm_;
  int size_;
  int rank_;
  std::shared_ptr<const NodeMap> nodes_;
  ExecutorScratch scratch_;
  std::uint32_t sequence_mask_;
  std::uint32_t broadcasts_ = 0;
  std::list<std::pair<Key, std::shared_ptr<const Program>>> recent_;  // most recent first
  static constexpr std::size_t kRememberedDecisions = 8;
  struct Remembered {
    std::uint64_t bytes = 0;
    std::optional<AlgorithmSpec> call;
    Decision decision;
  };
  std::array<Remembered, kRememberedDecisions> decisions_{};
  std::size_t decisions_made_ = 0;  // the next slot is decisions_made_ % kRememberedDecisions
  std::unique_ptr<OnlineTuner> tuner_;
  std::optional<AlgorithmSpec> hint_;
  static LastCall kept(const BcastCall& call, const std::optional<AlgorithmSpec>& named,
                       const TypeInfo& info, const Decision& decision, LastCall::Passes passes) {
    return {call.count, call.type, call.root, named.has_value(), passes,
            false,      named,     info,      decision};
  }
  static bool repeats(const LastCall& last, const BcastCall& call, const AlgorithmSpec* named) {
    return last.type != MPI_DATATYPE_NULL && last.count == call.count && last.type == call.type &&
           last.root == call.root && last.named == (named != nullptr) &&
           (!last.named || *last.call == *named);
  }
  // Decided for the library's broadcast, with nothing to count (LEANCAST_VERBOSE off).
  static bool deferred(const Decision& decision) {
    return decision.algorithm.algorithm == Algorithm::mpi && !process_settings().verbose;
  }
  LastCall last_call_;
  LastCall last_ibcast_;
  struct Shared {
    std::unique_ptr<SharedWindow> window;
    std::unique_ptr<WindowSetup> setup;  // making or growing it, while that goes on
    int error = MPI_SUCCESS;             // why there is none, once found out
    std::string why;
    std::uint64_t blocking_slot = 0;  // note_blocking_window's
  };
  std::array<Shared, 2> shared_;  // [0] the communicator's, [1] the node's
  CopiesAtOnce copies_;           // aimed at a program of recent_ (forgotten when it leaves)
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
