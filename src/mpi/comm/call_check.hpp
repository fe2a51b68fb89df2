// LEANCAST_CHECK=1: before each broadcast on an intracommunicator of more than one rank,
// the ranks agree that they pass the same root, the same number of bytes (count times the
// type size: the types may differ), and run the same algorithm with the same parameter
// (what the call, the communicator's hint, the settings or auto chose). One
// MPI_Allreduce(MAX) of 18 integers on the private communicator (each value and its
// complement: the maximum and the minimum at once) decides; only where they differ, an
// MPI_Allgather of every rank's values (184 bytes each) names the ranks (both in
// their nonblocking forms, waited for while outstanding broadcasts are stepped:
// own_collective). A rank whose own argument checks failed (an invalid root, a bad
// datatype) still takes part, so that the others return an error instead of waiting for
// it. Both are complete when it returns: nothing stays posted, and the communicator
// carries the next broadcast.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <leancast/algorithm.hpp>

#include "mpi/base/errors.hpp"
#include "mpi/run/executor.hpp"
#include "mpi/comm/private_comm.hpp"

namespace leancast::detail {

// This rank's own checks of a broadcast's arguments on an intracommunicator of `size`
// ranks, in MPICH's order: the first problem, if any. None of them communicates, so a bad
// argument on one rank never leaves that rank waiting. `predefined`: whether the datatype
// is a predefined one (set once the datatype is known not to be MPI_DATATYPE_NULL).
std::optional<Problem> check_arguments(const BcastCall& call, int size, bool& predefined);
// The checks of those that look at the buffer (a repeated call asks them again, inline).
inline std::optional<Problem> check_buffer(const BcastCall& call, bool predefined) {
  if (call.buf == MPI_IN_PLACE) return Problem::in_place_buffer;
  // MPI_BOTTOM (NULL) is a valid base for derived types with absolute addresses.
  if (call.buf == nullptr && call.count > 0 && predefined) return Problem::null_buffer;
  return std::nullopt;
}

// What this rank is about to do.
struct CallSignature {
  int problem = 0;  // the MPI error class of this rank's own argument check; 0: none
  int root = 0;
  std::optional<std::uint64_t> bytes;      // unknown when the datatype is bad
  std::optional<AlgorithmSpec> algorithm;  // what runs; unknown after a problem
};

// Collective on `state`'s communicator. MPI_SUCCESS where every rank passes the same
// signature without a problem; otherwise, on every rank, an error of the class of the
// first disagreement (MPI_ERR_ROOT, MPI_ERR_COUNT, MPI_ERR_ARG for the algorithm or its
// parameter, MPI_ERR_OTHER where only some ranks' own checks failed) with a message that
// names the ranks and their values; or the error of a failed collective.
Outcome agree_on_call(PrivateComm& state, const CallSignature& mine);

// LEANCAST_CHECK on a rank whose own argument checks failed (`state`: null where it is not
// checking): it still takes part in the agreement, so that the other ranks return an error
// instead of waiting, and then raises its own error `code`.
int fail_checked(const BcastCall& call, PrivateComm* state, int code);

}  // namespace leancast::detail
