// Nonblocking and persistent broadcasts: LC_Ibcast, LC_Bcast_init and the interposed
// MPI_Ibcast and MPI_Bcast_init.
//
// A broadcast in flight is a task: its BroadcastRun (the one run path, broadcast_run.hpp)
// with executor scratch of its own, advanced a step at a time. The user
// holds an MPI generalized request (MPI_Grequest_start) that leancast completes when the
// task is done; a persistent broadcast's handle is an inactive placeholder request
// (MPI_Recv_init from MPI_PROC_NULL) standing for the schedule built once at init, and each
// MPI_Start runs one task behind it.
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
#include <functional>
#include <memory>

#include "mpi/base/process_settings.hpp"
#include "mpi/requests/progress_means.hpp"
#include "mpi/run/broadcast_run.hpp"

namespace leancast::detail {

// Queues the broadcast behind its communicator's earlier ones (starting it if it is
// first); `request` completes when it is done. MPI error codes.
int start_nonblocking(const BroadcastPlan& plan, MPI_Request* request);

// A blocking broadcast while tasks are outstanding: one more task, waited for at once
// (stepping them all). Its error is raised as MPI_Wait raises a nonblocking one's;
// `fallback`: the caller runs the library's MPI_Bcast instead (BroadcastRun::fallback).
int run_waited(const BroadcastPlan& plan, bool& fallback);

// A persistent broadcast: `request` becomes its inactive handle. Each MPI_Start runs the
// plan, or, with none (the library's own broadcast was chosen), calls `count` and
// PMPI_Ibcast with `call`'s arguments.
int make_persistent(const BcastCall& call, const BroadcastPlan* plan, MPI_Request* request,
                    std::function<void()> count = {},
                    std::shared_ptr<const MPI_Datatype> held_type = nullptr);

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
