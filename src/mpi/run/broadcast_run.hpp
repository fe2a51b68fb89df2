// One broadcast that leancast runs by its schedule, from the moment it is decided to its
// end: the one run path behind blocking, nonblocking and persistent broadcasts. A blocking
// call runs it to the end at once (advance(true)); a nonblocking one is a task that the
// completion calls and the progress thread advance (advance(false), tasks.hpp).
//
// Stages, each entered once the one before is over:
//  1. shared memory, where the schedule has shared-memory phases: the window is there, or
//     is made or grown by an exchange of nonblocking collectives (shared_window.hpp);
//     where it cannot be had and auto chose shm, the library's broadcast runs instead:
//     for a blocking call the caller's MPI_Bcast on the user's communicator (fallback()),
//     else MPI_Ibcast on the private one, where the ranks' other broadcasts keep their order;
//  2. this rank's messages, through the run's executor (MessageRun);
//  3. its copies through the node's memory (SharedProgress for shm, CrossProgress for cma;
//     where the window says cross-memory attach is not permitted, a cma broadcast runs as
//     shm on every rank together);
//  4. the buffer closes (a packed type unpacks what is left).
// No stage waits for another rank unless advance(true) asks it to; a rank waiting on shared
// memory keeps the library moving (guest_wait.hpp).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <optional>

#include <string>

#include "mpi/run/byte_buffer.hpp"
#include "mpi/run/executor.hpp"
#include "mpi/run/program.hpp"
#include "select/decide.hpp"

namespace leancast::detail {

// The arguments of one MPI_Bcast (or MPI_Bcast_c: the count may exceed INT_MAX).
struct BcastCall {
  void* buf;
  MPI_Count count;
  MPI_Datatype type;
  int root;
  MPI_Comm comm;
};

class SharedWindow;

// What a run needs of its communicator's private state (mpi/comm/private_comm.hpp
// implements it; this layer knows nothing above itself).
class RunComm {
 public:
  virtual ~RunComm() = default;
  virtual MPI_Comm comm() const = 0;  // the private duplicate
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual const std::shared_ptr<const NodeMap>& nodes() const = 0;
  // The sequence number of the next broadcast that runs a schedule here, and the mask of
  // the tag bits that carry it (broadcast_tag.hpp; 0: none).
  virtual std::uint32_t next_sequence() = 0;
  virtual std::uint32_t sequence_mask() const = 0;
  // The shared window of the communicator (per_node: of this rank's node) with slots of at
  // least `slot_bytes`, made or grown without waiting: kPending while its exchange goes on
  // (`waiting`: what it waits for), MPI_SUCCESS with `out`, or an error with `why`.
  static constexpr int kPending = -1;
  // This rank's operations for one broadcast of a resolved algorithm (kept by the
  // communicator where it can).
  virtual std::shared_ptr<const Program> program(const AlgorithmSpec& algorithm, int root,
                                                 std::uint64_t bytes) = 0;
  virtual int shared_window(bool per_node, std::uint64_t slot_bytes, SharedWindow*& out,
                            std::string& why, MPI_Request*& waiting) = 0;
  // That window if it is there with such slots and nothing to exchange (no MPI call), else null.
  virtual SharedWindow* current_window(bool per_node, std::uint64_t slot_bytes) const = 0;
  // The slots of the window the last blocking broadcast here ran through (0: none): noted
  // as the call returns, so at every later call the same on every rank.
  virtual std::uint64_t blocking_window_slot(bool per_node) const = 0;
  virtual void note_blocking_window(bool per_node, std::uint64_t slot_bytes) = 0;
};

// A broadcast as the front end (bcast.cpp) decided it: a concrete algorithm, not the
// library's.
struct BroadcastPlan {
  BcastCall call;
  RunComm* state = nullptr;
  TypeInfo info;
  Decision decision;
  // Owned, or for a blocking run that ends before its plan can be replaced, borrowed from
  // the plan (call_plans.hpp; no owner: copying it counts nothing).
  std::shared_ptr<const Program> program;
  ExecutorSpec executor;  // the algorithm's own, else the process's
  bool blocking = false;  // a blocking call: a fallback is the caller's MPI_Bcast
  // A thread that may not call MPI may step the run (tasks.cpp: MPICH below
  // MPI_THREAD_MULTIPLE): a packed buffer is packed whole when it opens and unpacked when
  // it closes (open_now, Stage::closing), by the caller's thread, never between.
  bool whole_packing = false;
  // A nonblocking call's duplicate of its derived datatype (hold_type), call.type here.
  std::shared_ptr<const MPI_Datatype> held_type;
};

// MPI lets the user free a derived datatype while a nonblocking or persistent broadcast
// still uses it: such a broadcast uses a duplicate of its own (`type` becomes it, `held`
// owns it; nothing for a predefined type), freed with the last copy of `held` (the
// caller's thread: tasks end there). MPI error codes.
int hold_type(MPI_Datatype& type, std::shared_ptr<const MPI_Datatype>& held);

// Whether a run of `plan` calls MPI only to open and close its buffer once its window is
// there (shm, cma, cma-split: copies through shared memory, no messages, on every rank) and
// the window of the communicator's last blocking broadcast serves it: then, opened by the
// caller (open_now), a thread that may not call MPI can step it to its end
// (tasks.cpp). The same on every rank: it depends on no rank's datatype.
bool runs_without_library(const BroadcastPlan& plan);

class BroadcastRun {
 public:
  // `plan`, and `scratch` (the executor's buffers), kept by the caller while the run lives;
  // `sequence`: the broadcast's number on its communicator, taken when it was called.
  BroadcastRun(const BroadcastPlan& plan, std::uint32_t sequence, ExecutorScratch& scratch);
  ~BroadcastRun();
  BroadcastRun(const BroadcastRun&) = delete;
  BroadcastRun& operator=(const BroadcastRun&) = delete;

  // What a nonblocking start does: goes as far as it can without completing a message.
  void start();
  // Opens the buffer now (packing a whole_packing root's), for a run that starts later.
  void open_now() {
    if (!opened_ && stage_ != Stage::done) open();
  }
  // Its copies are over, its buffer is left to close (whole_packing): the next run on the
  // communicator may copy meanwhile.
  bool closing() const { return stage_ == Stage::closing; }
  // Whether its next step may call into the library (messages, packing, the library's
  // broadcast, a window to make or wait for), which under MPICH raises errors on
  // MPI_COMM_WORLD (world_errors.hpp); false: a copy through a window that is already there
  // (taken here: window_).
  bool calls_library();
  // True once the broadcast is over on this rank (outcome() says how).
  bool advance(bool wait);
  const Outcome& outcome() const { return outcome_; }
  // The schedule could not run (no shared memory where auto chose shm) and the caller of a
  // blocking broadcast runs the library's MPI_Bcast instead.
  bool fallback() const { return fallback_; }

 private:
  enum class Stage { window, messages, copies, closing, library, done };
  bool step(bool wait, bool posting_only);
  bool window_ready(bool wait);
  void copy_in_copy_out();
  void drop_copies();
  void open();
  void finish();
  void fail(int code, std::string message = {});

  // The caller's plan; a copy (replaced_) only where cma runs as shm: a copy per run was a
  // Decision and an atomic count of the program, 40-50 ns of a 250 ns small broadcast.
  const BroadcastPlan* plan_;
  std::optional<BroadcastPlan> replaced_;
  std::uint32_t sequence_;
  ExecutorScratch& scratch_;
  Stage stage_;
  SharedWindow* window_ = nullptr;
  ByteBuffer buffer_;
  bool opened_ = false;
  std::unique_ptr<MessageRun> messages_;
  // The copies, held in place (a heap allocation per broadcast was a fifth of a small shm
  // broadcast's time, git show 36aaa05^:docs/benchmarks/call-path); copies_ points at the one in
  // use.
  std::optional<SharedProgress> shared_copies_;
  std::optional<CrossProgress> cross_copies_;
  CopyRun* copies_ = nullptr;
  MPI_Request library_ = MPI_REQUEST_NULL;
  bool fallback_ = false;
  Outcome outcome_;
};

// A blocking broadcast whose stages but the copies have nothing to do: its program is copies
// alone (shm, or cma where cross-memory attach is allowed), on a buffer in place (a
// predefined type without gaps), through a window that is there. It runs the copies'
// executor (SharedProgress or CrossProgress, the objects BroadcastRun holds) to its end at
// once, without BroadcastRun's stages: making and unmaking a run was 110 of the 280 ns a 64 B
// shm broadcast took (git show
// 36aaa05^:docs/benchmarks/call-path/summary.md#the-fourth-cut-copies-at-once-c8dbd4d).
//
// Each plan of a call shape (mpi/comm/call_plans.hpp) keeps one, aimed at its program at its
// first run, and a repeat of the shape runs it again with only the buffer new: a broadcast that
// follows a barrier issues its stores behind the barrier's last store to a line another core reads,
// and once the core's store queue is full it stalls until that line comes back (150-200 ns
// after Open MPI's coll sm barrier on this VM). A 64 B shm broadcast made afresh stored 173
// words on the root, and 60 again (git show 36aaa05^:docs/benchmarks/call-path/summary.md, the
// sixth cut).
class CopiesAtOnce {
 public:
  // Whether `plan` runs this way where its window is there.
  static bool suits(const BroadcastPlan& plan);
  // Aims at `plan` (one that suits): its program must live until forget() or the next aim.
  void aim(const BroadcastPlan& plan);
  bool aimed() const { return run_.program != nullptr; }
  const Program* program() const { return run_.program; }
  bool node_window() const { return per_node_; }  // the node's window, not the communicator's
  void forget();

  // The window the copies can run through now, else null (the plan takes the whole run).
  SharedWindow* window() const;
  // Runs the copies into (the root: from) `buf` through `window` (from window()): an MPI
  // error code, and where the copies failed, message() says why ("" otherwise).
  int run(void* buf, SharedWindow* window);
  const std::string& message() const;

 private:
  SharedRun run_;  // the plan's (copy_run), but for each run's window; program null: aimed at none
  RunComm* state_ = nullptr;
  BcastCall call_{};  // count, type and root; the buffer is each run's
  TypeInfo info_;
  bool per_node_ = false;
  std::uint64_t slot_ = 0;
  ByteBuffer buffer_;
  // Made at the first run after an aim (it needs the window), restarted by the next ones.
  std::optional<SharedProgress> shared_;
  std::optional<CrossProgress> cross_;
  CopyRun* copies_ = nullptr;
};

// cma broadcasts this process ran as shm because cross-memory attach was not permitted
// (tests).
std::uint64_t cma_runs_as_shm();

// Whether auto (or a node-aware level left to it) chose the decision's algorithm: then
// shared memory that cannot be had means the library's broadcast, not an error.
bool chosen_by_auto(const Decision& decision);

}  // namespace leancast::detail
