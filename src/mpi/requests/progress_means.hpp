// What moves outstanding nonblocking broadcasts (tasks, tasks.cpp) while their rank is
// inside one of the MPI library's calls, and so what auto may run nonblocking: the thread
// level, Open MPI's progress engine, and the calls leancast makes itself (OwnCalls).
#pragma once

#include <string_view>

#include "mpi/run/broadcast_run.hpp"

namespace leancast::detail {

// Whether MPI runs with MPI_THREAD_MULTIPLE (fixed once it is initialized, before any task).
bool thread_multiple();

// Open MPI's opal_progress_register (looked up at run time), or null (MPICH, SMPI).
using ProgressRegister = int (*)(int (*)());
ProgressRegister library_progress_register();

// Whether the library's progress engine steps the tasks, in every call that progresses, at
// every thread level: Open MPI's (opal_progress_register), and MPICH's where the build found
// MPIX_Async_start (MPICH >= 4.3, LEANCAST_MPIX_ASYNC; untested: Debian 12 has 4.0.2).
bool library_progress_steps_tasks();

// Whether outstanding tasks move while this process blocks in one of the library's calls:
// where its progress engine steps them, or under MPI_THREAD_MULTIPLE, where the progress
// thread does. MPICH 4.0 below MPI_THREAD_MULTIPLE has neither, and there a correct program
// that blocks in a collective while another rank waits for one of its broadcasts would
// hang, but for the tasks the helper thread can finish (runs_without_library).
bool blocked_calls_step_tasks();

// What a nonblocking (or persistent) call runs where the front end decided `decision` for
// it (state: the communicator's private one, if made). auto's choice runs from 16 KiB (below
// it a task costs more than it saves: named algorithms' LC_Ibcast took 1.2-1.7x their
// LC_Bcast at 1 KiB, docs/nonblocking.md#measured),
// where blocked calls step tasks or the helper thread can finish it, on a communicator with
// a private state (a nonblocking call may not wait to make one: private_comm.hpp); elsewhere
// the library's MPI_Ibcast. `must_be_stepped` (the interposer's): any algorithm, not only
// auto's, runs only where blocked calls step it or the helper can finish it.
Decision nonblocking_choice(const Decision& decision, const BcastCall& call, const TypeInfo& info,
                            RunComm* state, bool must_be_stepped = false);
// The reason of a choice that depends on the communicator's window (not kept in the plan:
// a later call may find one).
inline constexpr std::string_view kUnsteppedNonblocking =
    "a nonblocking call that the library's blocking calls would not step";

// While one is alive, this thread's MPI calls are leancast's own (its executors', stepping
// tasks or running a blocking broadcast): the library's progress engine, which those calls
// run, does not step the tasks again from inside them (tasks.cpp).
class OwnCalls {
 public:
  OwnCalls();
  ~OwnCalls();
  OwnCalls(const OwnCalls&) = delete;
  OwnCalls& operator=(const OwnCalls&) = delete;
  static bool active();

 private:
  bool outer_;
};

}  // namespace leancast::detail
