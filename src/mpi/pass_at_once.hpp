// The short ways of a repeated call: a blocking broadcast that repeats the last one on its
// communicator (the same count, predefined datatype, root and named algorithm; any buffer but
// the ones check_buffer refuses), when nothing else would happen on the way (online tuning
// not trying the call, no leancast broadcast outstanding, which a blocking call must step):
//  - where the last one was decided for the library's broadcast and LEANCAST_VERBOSE is off
//    (no count), straight to PMPI_Bcast. Loads and compares, no stack frame: the whole
//    path's five frames push registers right behind the library's last stores (a barrier's,
//    say) and cost a 64 B deferral to Open MPI's coll sm 0.86-0.95x of its time
//    (git show 36aaa05^:docs/benchmarks/call-path/);
//  - where it ran copies at once (CopiesAtOnce, mpi/run/broadcast_run.hpp), through those
//    copies again, one call away (copies_again).
// And a nonblocking (not persistent) repeat of the last nonblocking call, decided for the
// library's MPI_Ibcast with LEANCAST_VERBOSE off: straight to it (the whole path's lookups,
// checks and datatype queries made auto's 1 KiB deferral 0.80-0.84x the library's own call
// at P = 2, docs/nonblocking.md#measured).
#pragma once

#include "mpi/base/pass_through.hpp"
#include "mpi/comm/call_check.hpp"
#include "mpi/comm/online_tuning.hpp"
#include "mpi/comm/private_comm.hpp"
#include "mpi/requests/tasks.hpp"

namespace leancast::detail {

// What copies_again returns where the window is not there now: the caller takes the whole
// path (no MPI error code is negative).
constexpr int kWholeWay = -1;

// The last call's copies at once, run again for `call`; bcast.cpp. Out of line: one call.
int copies_again(const BcastCall& call, PrivateComm& state, const PrivateComm::LastCall& last);

// The last call, if `call` repeats it and may take a short way. `named`: the algorithm the
// call names (nullptr: none). Always inline: the entry points (leancast::bcast, the
// interposer's MPI_Bcast) make no call but the library's (or copies_again) on this way.
[[gnu::always_inline]] inline const PrivateComm::LastCall* short_way(const BcastCall& call,
                                                                     const AlgorithmSpec* named) {
  const PrivateComm* state = last_state_of(call.comm);
  if (state == nullptr) return nullptr;
  const PrivateComm::LastCall* last = state->repeat_of(call, named);
  if (last == nullptr || check_buffer(call, true) || tasks_outstanding()) return nullptr;
  return last;
}

// Whether a nonblocking call repeats a nonblocking deferral: to the library's MPI_Ibcast.
// Leancast tasks outstanding do not matter: the whole path would start the library's too.
[[gnu::always_inline]] inline bool ibcast_passes_at_once(const BcastCall& call,
                                                         const AlgorithmSpec* named) {
  const PrivateComm* state = last_state_of(call.comm);
  const PrivateComm::LastCall* last =
      state != nullptr ? state->ibcast_repeat_of(call, named) : nullptr;
  return last != nullptr && last->passes == PrivateComm::LastCall::Passes::always &&
         !check_buffer(call, true);
}

// Where the last call was decided for the library's broadcast: to PMPI_Bcast at once.
[[gnu::always_inline]] inline bool passes(const PrivateComm::LastCall& last) {
  using Passes = PrivateComm::LastCall::Passes;
  return last.passes == Passes::always ||
         (last.passes == Passes::unless_tuning && !tuning_online());
}

// Where it ran copies at once: those copies again.
[[gnu::always_inline]] inline bool copies_again_apply(const PrivateComm::LastCall& last) {
  return last.copies && !(last.decision.tunable && tuning_online());
}

// A blocking broadcast from an entry point: a short way where one applies, else `whole()`.
template <class Whole>
[[gnu::always_inline]] inline int pass_at_once_or(const BcastCall& call, const AlgorithmSpec* named,
                                                  Whole&& whole) {
  if (const PrivateComm::LastCall* last = short_way(call, named)) {
    if (passes(*last)) return pass_to_mpi(call.buf, call.count, call.type, call.root, call.comm);
#ifndef LEANCAST_SMPI  // (there short_way finds none)
    if (copies_again_apply(*last)) {
      if (const int rc = copies_again(call, *last_found.state, *last); rc != kWholeWay) return rc;
    }
#endif
  }
  return whole();
}

}  // namespace leancast::detail
