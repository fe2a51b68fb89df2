// One rank's operations for one broadcast shape, with what the dataflow executor looks up
// on every call worked out once: the receives in schedule order and the sends grouped by
// peer, each group in schedule order. Operations of shared-memory phases (shm) and of
// cross-memory ones (cma) are kept apart, for their executors. Cached per communicator
// (private_comm.hpp).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <leancast/schedule.hpp>

namespace leancast::detail {

struct Program {
  Program(const RankSchedule& schedule, int signature);

  std::vector<Operation> operations;    // messages, by round, as expand() lists them
  std::vector<std::uint32_t> receives;  // indices into operations
  std::vector<std::pair<int, std::vector<std::uint32_t>>> sends_by_peer;  // peers ascending
  // Through shared memory (executor_shared.cpp), by round, one per segment: a writer's sends
  // of a segment to its several readers are one copy into the window, so only those to its
  // first reader are kept. They run after the messages (node-aware: a leader receives from
  // the other nodes, then copies into its node's window).
  std::vector<Operation> shared;
  std::uint64_t largest_shared = 0;  // bytes of the largest of them: the slot they need
  // Through cross memory (executor_cross.cpp), by round, every one: a receive is a read
  // from its peer's buffer, a send names a reader that this rank waits for at the end; in
  // a phase of medium cross_memory_write, a send is a write into the peer's buffer and a
  // receive waits for it.
  std::vector<Operation> cross;
  std::vector<Medium> media;  // each phase's
  int signature = 0;          // broadcast_signature of the broadcast (broadcast_tag.hpp)
};

}  // namespace leancast::detail
