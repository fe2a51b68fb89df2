// Nonblocking and persistent broadcasts: LC_Ibcast, the interposed MPI_Ibcast, and
// LC_Bcast_init's persistent broadcasts (LC_Start, LC_Persistent_free).
//
// A broadcast in flight is a task (tasks.hpp: how tasks are queued, ordered and
// progressed). The user holds the task's MPI generalized request, which leancast completes
// when the task is done, so that the library's own MPI_Wait, MPI_Test and their -all,
// -any, -some forms complete it. A persistent broadcast is the plan made once at init; each
// LC_Start runs one task of it and gives its request (or the library's MPI_Ibcast's, where
// the library's own broadcast was chosen).
#pragma once

#include <mpi.h>

#include <functional>
#include <memory>

#include <leancast/leancast.h>

#include "mpi/run/broadcast_run.hpp"

namespace leancast::detail {

// Queues the broadcast behind its communicator's earlier ones (starting it if it is
// first); `request` completes when it is done. MPI error codes.
int start_nonblocking(const BroadcastPlan& plan, MPI_Request* request);

// A blocking broadcast while tasks are outstanding: one more task, waited for at once
// (stepping them all). Its error is raised as a nonblocking one's; `fallback`: the caller
// runs the library's MPI_Bcast instead (BroadcastRun::fallback).
int run_waited(const BroadcastPlan& plan, bool& fallback);

// A persistent broadcast: `handle` gets it. Each start runs the plan, or, with none (the
// library's own broadcast was chosen), calls `count` and MPI_Ibcast with `call`'s arguments.
// MPI error codes.
int make_persistent(const BcastCall& call, const BroadcastPlan* plan, LC_Persistent* handle,
                    std::function<void()> count = {},
                    std::shared_ptr<const MPI_Datatype> held_type = nullptr);

// LC_Start and LC_Persistent_free; errors raised.
int start_persistent(LC_Persistent persistent, MPI_Request* request);
int free_persistent(LC_Persistent* persistent);

}  // namespace leancast::detail
