// hypercube: the lecture's dimension order. In round i the 2^i ranks that hold the data
// (relative ranks below 2^i) send it to rank + 2^i, doubling the holders each round.
// Same tree size as binomial, but the near ranks are served first.
#include "algorithms.hpp"
#include "schedule_builder.hpp"

namespace leancast::detail {

RankSchedule hypercube_schedule(const BcastShape& shape, int rank) {
  ScheduleBuilder out(shape, rank, 1, {"bcast"});
  const int me = out.me();
  std::uint32_t round = 0;
  for (int holders = 1; holders < shape.procs; holders *= 2, ++round) {
    if (me < holders) {
      if (me + holders < shape.procs) out.send(0, round, me + holders, 0, 1);
    } else if (me < 2 * holders) {
      out.recv(0, round, me - holders, 0, 1);
    }
  }
  return out.finish();
}

}  // namespace leancast::detail
