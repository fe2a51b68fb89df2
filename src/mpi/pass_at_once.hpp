// A repeated call's way: a call of a shape planned before on its communicator (call_plans.hpp:
// the same count, predefined datatype, root and named algorithm; any buffer but the ones
// check_buffer refuses) looks its plan up inline, and
//  - a blocking one, when nothing else would happen on the way (online tuning not trying the
//    call, no leancast broadcast outstanding, which a blocking call must step), goes where
//    the plan was decided for the library's broadcast and LEANCAST_VERBOSE is off (no count)
//    straight to PMPI_Bcast: loads and compares, no stack frame (the whole path's five
//    frames push registers right behind the library's last stores, a barrier's, say, and cost
//    a 64 B deferral to Open MPI's coll sm 0.86-0.95x of its time: git show
//    36aaa05^:docs/benchmarks/call-path/); where the plan's copies at once are aimed
//    (CopiesAtOnce, mpi/run/broadcast_run.hpp), through them again, one call away;
//  - a nonblocking (not persistent) one whose plan chose the library's MPI_Ibcast with
//    LEANCAST_VERBOSE off goes straight to it (the whole path's lookups, checks and datatype
//    queries made auto's 1 KiB deferral 0.80-0.84x the library's own call at P = 2 before
//    this way; with it, 0.98-1.00x: docs/nonblocking.md#measured).
// Every other call of a planned shape runs its plan one frame further (bcast.cpp).
#pragma once

#include "mpi/base/pass_through.hpp"
#include "mpi/comm/call_check.hpp"
#include "mpi/comm/call_plans.hpp"
#include "mpi/comm/online_tuning.hpp"
#include "mpi/comm/private_comm.hpp"
#include "mpi/requests/tasks.hpp"

namespace leancast::detail {

// What copies_again returns where the window is not there now: the caller takes the whole
// path (no MPI error code is negative).
constexpr int kWholeWay = -1;

// The plan's copies at once, run again for `call`; bcast.cpp. Out of line: one call.
int copies_again(const BcastCall& call, PrivateComm& state, CallPlan& plan);

// The plan of `call` if its shape was planned on the communicator the thread last found and
// its buffer passes the checks. `named`: the algorithm the call names (nullptr: none).
[[gnu::always_inline]] inline PlanSlot* planned(const BcastCall& call, const AlgorithmSpec* named) {
  PrivateComm* state = last_state_of(call.comm);
  if (state == nullptr) return nullptr;
  PlanSlot* slot = state->plans().find(call, named);
  return slot != nullptr && !check_buffer(call, true) ? slot : nullptr;
}

// Whether a nonblocking call goes to the library's MPI_Ibcast at once. Leancast tasks
// outstanding do not matter: the whole path would start the library's too.
[[gnu::always_inline]] inline bool ibcast_passes_at_once(const BcastCall& call,
                                                         const AlgorithmSpec* named) {
  const PlanSlot* slot = planned(call, named);
  return slot != nullptr && slot->ibcast_passes;
}

// Whether a blocking call of the plan goes to PMPI_Bcast at once.
[[gnu::always_inline]] inline bool passes(const PlanSlot& slot) {
  return slot.passes == Passes::always ||
         (slot.passes == Passes::unless_tuning && !tuning_online());
}

// Whether it runs the plan's copies at once again.
[[gnu::always_inline]] inline bool copies_again_apply(const CallPlan& plan) {
  return plan.copies.aimed() && !(plan.tuned && tuning_online());
}

// A blocking broadcast from an entry point: a repeat's way where one applies, else `whole()`.
// Always inline: the entry points (leancast::bcast, the interposer's MPI_Bcast) make no call
// but the library's (or copies_again) on this way.
template <class Whole>
[[gnu::always_inline]] inline int pass_at_once_or(const BcastCall& call, const AlgorithmSpec* named,
                                                  Whole&& whole) {
  if (PlanSlot* slot = planned(call, named); slot != nullptr && !tasks_outstanding()) {
    if (passes(*slot)) return pass_to_mpi(call.buf, call.count, call.type, call.root, call.comm);
#ifndef LEANCAST_SMPI  // (there planned finds none)
    if (copies_again_apply(*slot->plan)) {
      const int rc = copies_again(call, *last_found.state, *slot->plan);
      if (rc != kWholeWay) return rc;
    }
#endif
  }
  return whole();
}

}  // namespace leancast::detail
