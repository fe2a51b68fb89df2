// shm: a broadcast among the ranks of one node through a window of shared memory, run by
// src/mpi/run/executor_shared.cpp (the design and its measurements: docs/algorithms.md#shm).
// The message is cut into segments; the root copies each segment once into a slot of the
// window and every other rank copies it out, so the root's work does not grow with the
// ranks, no message is matched, and no rank pins another's pages.
//
// As data it is a pipelined linear broadcast: segment s goes from the root to every other
// rank in round s. The phase's medium (shared memory) tells the executor that the root's
// sends of one segment are one copy into the window; the verifier, the analyzer and the
// node-aware composition read the transfers as they read messages.
#include "algorithms.hpp"
#include "pipelined_tree.hpp"
#include "schedule_builder.hpp"

namespace leancast::detail {

RankSchedule shm_schedule(const BcastShape& shape, int rank, std::uint64_t segment_bytes) {
  const std::uint64_t segments = segment_count(shape.bytes, segment_bytes);
  ScheduleBuilder out(shape, rank, segments, {"shm"});
  const auto repeat = static_cast<std::uint32_t>(segments);
  if (out.me() == 0) {
    for (int q = 1; q < shape.procs; ++q) out.send_run(0, 0, repeat, q, 0, 1);
  } else {
    out.recv_run(0, 0, repeat, 0, 0, 1);
  }
  RankSchedule schedule = out.finish();
  schedule.phases[0].medium = Medium::shared_memory;
  return schedule;
}

}  // namespace leancast::detail
