// A deferral's short way: a blocking broadcast that repeats the last one on its communicator
// (the same count, predefined datatype, root and named algorithm; any buffer but the ones
// check_buffer refuses), where that one was decided for the library's broadcast, goes
// straight to PMPI_Bcast when nothing else would happen on the way: LEANCAST_VERBOSE off (no
// count), online tuning not trying the call, no leancast broadcast outstanding (which a
// blocking call must step). Loads and compares, no stack frame: the whole path's five frames
// push registers right behind the library's last stores (a barrier's, say) and cost a 64 B
// deferral to Open MPI's coll sm 0.86-0.95x of its time (docs/benchmarks/call-path/).
#pragma once

#include "mpi/base/pass_through.hpp"
#include "mpi/comm/call_check.hpp"
#include "mpi/comm/online_tuning.hpp"
#include "mpi/comm/private_comm.hpp"
#include "mpi/requests/nonblocking.hpp"

namespace leancast::detail {

// `named`: the algorithm the call names (nullptr: none). Always inline: the entry points
// (leancast::bcast, the interposer's MPI_Bcast) make no call but the library's on this way.
[[gnu::always_inline]] inline bool passes_at_once(const BcastCall& call, const AlgorithmSpec* named) {
#ifdef LEANCAST_SMPI
  (void)call;
  (void)named;
  return false;
#else
  const LastFound& found = last_found;
  if (found.state == nullptr || found.user != call.comm ||
      found.freed != hot_words.states_freed.load(std::memory_order_acquire)) {
    return false;
  }
  const PrivateComm::LastCall* last = found.state->repeat_of(call, named);
  if (last == nullptr || check_buffer(call, true) || tasks_outstanding()) return false;
  using Passes = PrivateComm::LastCall::Passes;
  return last->passes == Passes::always ||
         (last->passes == Passes::unless_tuning && !tuning_online());
#endif
}

// A blocking broadcast from an entry point: the short way where it applies, else `whole()`.
template <class Whole>
[[gnu::always_inline]] inline int pass_at_once_or(const BcastCall& call, const AlgorithmSpec* named,
                                                  Whole&& whole) {
  if (passes_at_once(call, named)) {
    return pass_to_mpi(call.buf, call.count, call.type, call.root, call.comm);
  }
  return whole();
}

}  // namespace leancast::detail
