// cma-split: cma (cma.cpp) with the root's core copying too. In cma the root only keeps its
// buffer while its readers copy from it, so at P = 2 one core copies the whole message
// through the kernel while the other waits. Here each segment is cut into k + 1 equal parts,
// k the root's readers (at most cma's fan-out): a reader of the root that serves no one
// reads the first k parts itself (process_vm_readv), and the root writes the last part
// straight into that reader's buffer (process_vm_writev) at the same time, so the root
// copies k parts of a segment as each reader does. Readers that serve others read whole
// segments (their own readers read what they hold, which must grow without gaps), and only
// the root writes: every other source is busy reading. Run by
// src/mpi/run/executor_cross.cpp (docs/algorithms.md#cma-split).
//
// As data: cma's pipelined tree over k + 1 blocks a segment, in two phases: "cma", whose
// receives are reads by the receiver, and "cma:write", whose sends are the root's writes
// (medium cross_memory_write). A segment's two transfers between a pair are listed in the
// same order on both sides, in the segment's round.
#include "algorithms.hpp"
#include "pipelined_tree.hpp"
#include "schedule_builder.hpp"

namespace leancast::detail {

RankSchedule cma_split_schedule(const BcastShape& shape, int rank, std::uint64_t segment_bytes) {
  const std::uint64_t segments = segment_count(shape.bytes, segment_bytes);
  const std::uint64_t parts = 1 + cma_tree_place(0, shape.procs).children.size();
  ScheduleBuilder out(shape, rank, segments * parts, {"cma", "cma:write"});
  const auto repeat = static_cast<std::uint32_t>(segments);
  const auto stride = static_cast<std::int64_t>(parts);
  const auto serves_no_one = [&](int q) { return cma_tree_place(q, shape.procs).children.empty(); };
  const TreePlace place = cma_tree_place(out.me(), shape.procs);
  // Whether this rank and `reader` split their segments: the root and a reader of it that
  // serves no one.
  const auto split = [&](int source, int reader) { return source == 0 && serves_no_one(reader); };
  if (place.parent >= 0) {
    const std::uint32_t round = place.depth - 1;
    if (split(place.parent, out.me())) {
      out.recv_run(0, round, repeat, place.parent, 0, stride, 1, parts - 1);
      out.recv_run(1, round, repeat, place.parent, parts - 1, stride);
    } else {
      out.recv_run(0, round, repeat, place.parent, 0, stride, 1, parts);
    }
  }
  for (int child : place.children) {
    if (split(out.me(), child)) {
      out.send_run(0, place.depth, repeat, child, 0, stride, 1, parts - 1);
      out.send_run(1, place.depth, repeat, child, parts - 1, stride);
    } else {
      out.send_run(0, place.depth, repeat, child, 0, stride, 1, parts);
    }
  }
  RankSchedule schedule = out.finish();
  schedule.phases[0].medium = Medium::cross_memory;
  schedule.phases[1].medium = Medium::cross_memory_write;
  return schedule;
}

}  // namespace leancast::detail
