// Nonblocking and persistent broadcasts: LC_Ibcast, LC_Bcast_init and the interposed
// MPI_Ibcast and MPI_Bcast_init.
//
// A broadcast in flight is a task (tasks.hpp: how tasks are queued, ordered and
// progressed). The user holds the task's MPI generalized request, which leancast completes
// when the task is done, registered with the completion calls (requests.hpp); a persistent
// broadcast's handle is an inactive placeholder request (MPI_Recv_init from MPI_PROC_NULL)
// standing for the schedule built once at init, and each MPI_Start runs one task behind it.
#pragma once

#include <mpi.h>

#include <functional>
#include <memory>

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

}  // namespace leancast::detail
