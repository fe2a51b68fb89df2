// Broadcasts in flight on this rank (tasks) and what advances them. A task is a broadcast's
// BroadcastRun (the one run path, broadcast_run.hpp) with executor scratch of its own,
// advanced a step at a time, and a generalized request that completes when it is done;
// nonblocking.cpp starts them for LC_Ibcast, the interposed MPI_Ibcast and each LC_Start of
// a persistent broadcast.
//
// Order: one communicator's broadcasts run one after the other on each rank, in the order
// they were started (MPI requires every rank to start them in the same order). That keeps
// the matching invariant of executor.hpp: the k-th message from one rank to another is the
// k-th receive posted for it. Different communicators' broadcasts run side by side. While
// a task is outstanding anywhere in the process, a blocking leancast broadcast runs as one
// more task and waits for itself the same way (so it progresses the others).
//
// Progress: leancast defines no MPI function; the MPI library's own mechanism steps the
// tasks (docs/design.md#progress draws it per library):
//  - Open MPI: a function registered with its progress engine (opal_progress_register), which
//    every one of its calls that progresses runs, as it runs its own nonblocking
//    collectives. It steps every task and completes the requests of those that finished
//    (MPI_Grequest_complete); MPI_Wait and the rest of the library's completion calls see
//    them complete.
//  - MPICH: each request's poll function (MPIX_Grequest_start), which MPICH's MPI_Test,
//    MPI_Wait and their -all, -any, -some forms call, steps every task; its wait function
//    steps them until the awaited ones are done. MPICH's other calls step nothing: under
//    MPI_THREAD_MULTIPLE the progress thread steps the tasks while any is outstanding; below
//    it a helper thread that calls no MPI does the copies through shared memory of the tasks
//    that need nothing else (runs_without_library), and auto leaves every other nonblocking
//    broadcast to MPICH (progress_means.hpp).
// With LEANCAST_PROGRESS_THREAD=1 under MPI_THREAD_MULTIPLE the progress thread steps the
// tasks with either library whenever any is outstanding.
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
  std::atomic<bool> done{false};
  std::atomic<bool> completed{false};  // its request, once done
  std::atomic<bool> released{false};   // its request freed by MPI (completed by the user)
  bool fallback = false;
  Outcome outcome;
  // What the completion call returns for it (the query function): its error code, already
  // raised on the broadcast's communicator when it ended, or MPI_SUCCESS.
  int returned = MPI_SUCCESS;
};

// Queues the broadcast behind its communicator's earlier ones as a task (starting it if it
// is first); `task` gets it, whose `grequest` completes when it is done. MPI error codes.
int enqueue_task(const BroadcastPlan& plan, std::shared_ptr<Task>& task);

// Nonblocking broadcasts outstanding in this process (tasks): a global, so that reading it
// costs one load and no function call.
inline bool tasks_outstanding() {
  return hot_words.outstanding_tasks.load(std::memory_order_acquire) > 0;
}

// One step of every outstanding task, none of them waiting.
void progress_tasks();

// MPI_Wait on a request of leancast's own (a collective on a private communicator), stepping
// the outstanding tasks meanwhile: a rank never blocks inside the library while one of its
// broadcasts may be what another rank waits for.
int wait_stepping(MPI_Request* request);

// Advances every outstanding task until those of `state` are done: what a blocking call
// that communicates on the private communicator (LEANCAST_CHECK's agreement, making a
// shared window) does first.
void complete_outstanding(const RunComm* state);

// The same when the private communicator is freed (MPI lets a communicator be freed with
// operations pending); then forgets it.
void forget_comm(const RunComm* state);

}  // namespace leancast::detail
