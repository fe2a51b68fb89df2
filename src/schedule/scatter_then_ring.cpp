#include "scatter_then_ring.hpp"

#include "binomial_scatter.hpp"
#include "schedule_builder.hpp"

namespace leancast::detail {

RankSchedule scatter_then_ring(const BcastShape& shape, int rank,
                               RingSteps (*steps)(int procs, int q)) {
  const int procs = shape.procs;
  ScheduleBuilder out(shape, rank, procs, {"scatter", "allgather"});
  const std::uint32_t ring = add_binomial_scatter(out, 0);
  const int me = out.me();
  const RingSteps mine = steps(procs, me);
  out.send_run(1, ring, mine.sends, (me + 1) % procs, me, -1);
  out.recv_run(1, ring, mine.receives, (me + procs - 1) % procs, (me + procs - 1) % procs, -1);
  return out.finish();
}

}  // namespace leancast::detail
