// linear: the root sends the whole buffer to every other rank, all sends in flight at
// once (the lecture's Isend loop + Waitall). O(P) at the root.
#include "algorithms.hpp"
#include "schedule_builder.hpp"

namespace leancast::detail {

RankSchedule linear_schedule(const BcastShape& shape, int rank) {
  ScheduleBuilder out(shape, rank, 1, {"bcast"});
  if (out.me() == 0) {
    for (int q = 1; q < shape.procs; ++q) out.send(0, 0, q, 0, 1);
  } else {
    out.recv(0, 0, 0, 0, 1);
  }
  return out.finish();
}

}  // namespace leancast::detail
