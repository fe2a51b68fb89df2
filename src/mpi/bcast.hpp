// The one broadcast path behind the C and C++ APIs and the MPI_Bcast interposer.
#pragma once

#include <mpi.h>

#include <optional>

#include <leancast/algorithm.hpp>
#include <leancast/leancast.h>

#include "mpi/run/broadcast_run.hpp"  // BcastCall

namespace leancast::detail {

// A nonblocking (MPI_Ibcast) or persistent (MPI_Bcast_init) broadcast: where its request
// goes (nonblocking.hpp).
struct NonblockingCall {
  MPI_Request* request;  // nonblocking: where the request goes (persistent: null)
  bool persistent;
  LC_Persistent* handle = nullptr;  // persistent: where the handle goes
  // The interposed MPI_Ibcast: a program that knows nothing of leancast's progress rule, so
  // whatever algorithm is chosen runs only where the library's blocking calls step it.
  bool interposed = false;
  // Whether the call says where its request (persistent: handle) goes.
  bool has_output() const { return persistent ? handle != nullptr : request != nullptr; }
};

// Where the call's request (or persistent handle) goes, if given: null, as after any error.
inline void clear_outputs(const NonblockingCall& call) {
  if (call.request != nullptr) *call.request = MPI_REQUEST_NULL;
  if (call.handle != nullptr) *call.handle = LC_PERSISTENT_NULL;
}

// `requested` empty: the process's settings decide (select/decide.hpp). Never throws:
// failures come back as MPI error codes, raised through the communicator's handler.
// `nonblocking` set: the broadcast is started (or, persistent, set up) and `*request`
// completes it; MPI_REQUEST_NULL after an error.
int bcast(const BcastCall& call, const std::optional<AlgorithmSpec>& requested,
          const NonblockingCall* nonblocking = nullptr);

// bcast() without its first step, a repeated call's way (pass_at_once.hpp): for the entry
// points that took that step themselves.
int bcast_whole(const BcastCall& call, const std::optional<AlgorithmSpec>& requested,
                const NonblockingCall* nonblocking = nullptr);

}  // namespace leancast::detail
