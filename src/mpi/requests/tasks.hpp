// Broadcasts in flight on this rank (tasks) and what advances them. A task is a broadcast's
// BroadcastRun (the one run path, broadcast_run.hpp) with executor scratch of its own,
// advanced a step at a time, and a generalized request (MPI_Grequest_start) that completes
// when it is done; nonblocking.cpp starts them for LC_Ibcast, MPI_Ibcast and each MPI_Start
// of a persistent broadcast, and the completion calls (requests.hpp) poll them.
//
// Order: one communicator's broadcasts run one after the other on each rank, in the order
// they were started (MPI requires every rank to start them in the same order). That keeps
// the matching invariant of executor.hpp: the k-th message from one rank to another is the
// k-th receive posted for it. Different communicators' broadcasts run side by side. While
// a task is outstanding anywhere in the process, a blocking leancast broadcast runs as one
// more task and waits for itself the same way (so it progresses the others).
//
// Progress rule: tasks advance (post what their received bytes allow, complete what
// arrived) inside leancast's calls: the broadcasts, and the completion calls leancast
// defines (completion.cpp: MPI_Wait, MPI_Test and their -all, -any, -some forms,
// MPI_Request_get_status), which poll every outstanding task while they wait, and the
// blocking point-to-point calls leancast defines (stepped_calls.cpp), which wait the same
// way. Open MPI's progress engine steps them inside any of its calls that progresses (a
// callback registered with it: a blocking collective, a call leancast does not define);
// under MPI_THREAD_MULTIPLE a progress thread does while a call blocks in the library
// (BlockedInLibrary), and, with LEANCAST_PROGRESS_THREAD=1, also whenever no completion call
// polls (the application computing). Below MPI_THREAD_MULTIPLE a helper thread that calls
// no MPI does the copies through shared memory of the tasks that need nothing else
// (runs_without_library) while a call blocks in the library (MPICH) or, with
// LEANCAST_PROGRESS_THREAD=1, whenever no completion call polls; the rest waits for
// leancast's calls.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <memory>

#include "mpi/base/process_settings.hpp"
#include "mpi/requests/progress_means.hpp"
#include "mpi/run/broadcast_run.hpp"
#include "mpi/run/executor.hpp"

namespace leancast::detail {

// A broadcast in flight on this rank.
struct Task {
  BroadcastPlan plan;
  std::uint32_t sequence = 0;  // counted when the broadcast was started, in call order
  MPI_Request grequest = MPI_REQUEST_NULL;
  std::unique_ptr<ExecutorScratch> scratch;  // while it runs
  std::unique_ptr<BroadcastRun> run;
  bool done = false;
  bool fallback = false;
  Outcome outcome;
};

// Queues the broadcast behind its communicator's earlier ones as a task (starting it if it
// is first) and wakes the progress thread; `task` gets it, whose `grequest` completes when
// it is done. MPI error codes.
int enqueue_task(const BroadcastPlan& plan, std::shared_ptr<Task>& task);

// If `task` is the only broadcast outstanding in the process, runs it to its end the way a
// blocking broadcast runs (MPI_Waitsome, no polling), and returns true: nothing else needs
// progress meanwhile. Otherwise false.
bool finish_task_alone(const Task* task);

// Nonblocking broadcasts outstanding in this process (tasks), read on every MPI call
// leancast defines: a global, so that reading it costs one load and no function call.
inline bool tasks_outstanding() {
  return hot_words.outstanding_tasks.load(std::memory_order_acquire) > 0;
}

// One step of every outstanding task, none of them waiting.
void progress_tasks();

// While one is alive, a completion call polls the tasks itself: the progress thread idles.
class Polling {
 public:
  Polling();
  ~Polling();
  Polling(const Polling&) = delete;
  Polling& operator=(const Polling&) = delete;
};

// While one is alive, this thread blocks in one of the MPI library's collectives (or in
// another call leancast cannot turn into a nonblocking one, stepped_calls.cpp) with tasks
// outstanding: the progress thread steps them meanwhile, started for it if MPI runs with
// MPI_THREAD_MULTIPLE; under a lower level Open MPI's progress engine does (MPICH: nothing
// moves them until the call returns: docs/nonblocking.md).
class BlockedInLibrary {
 public:
  BlockedInLibrary();
  ~BlockedInLibrary();
  BlockedInLibrary(const BlockedInLibrary&) = delete;
  BlockedInLibrary& operator=(const BlockedInLibrary&) = delete;
};

// Advances every outstanding task until those of `state` are done: what a blocking call
// that communicates on the private communicator (LEANCAST_CHECK's agreement, making a
// shared window) does first.
void complete_outstanding(const RunComm* state);

// The same when the private communicator is freed (MPI lets a communicator be freed with
// operations pending); then forgets it.
void forget_comm(const RunComm* state);

}  // namespace leancast::detail
