// scatter-ring-tuned: the paper's MPI_Bcast_opt. The same scatter and the same P - 1 ring
// steps as scatter-ring (chunk me - i + 1 goes right, chunk me - i comes from the left in
// step i), but a non-enclosed ring: rank q holds chunks [q, q + s(q)) after the scatter,
// so it lacks exactly the P - s(q) chunks that arrive in steps 1 .. P - s(q) and stops
// receiving after them; it sends only while its right neighbour still lacks chunks.
// Ring transfers: P^2 - sum_q s(q), e.g. 44 instead of 56 at P = 8, 75 instead of 90 at
// P = 10. Each step's sends and receives pair up, so no blocking pair can deadlock.
#include "algorithms.hpp"
#include "binomial_scatter.hpp"
#include "binomial_tree.hpp"
#include "schedule_builder.hpp"

namespace leancast::detail {

RankSchedule scatter_ring_tuned_schedule(const BcastShape& shape, int rank) {
  const int procs = shape.procs;
  ScheduleBuilder out(shape, rank, procs, {"scatter", "allgather"});
  const std::uint32_t ring = add_binomial_scatter(out, 0);
  const int me = out.me();
  const int right = (me + 1) % procs;
  const int left = (me + procs - 1) % procs;
  const auto missing = [procs](int q) {
    return static_cast<std::uint32_t>(procs - binomial_subtree_size(procs, q));
  };
  out.send_run(1, ring, missing(right), right, me, -1);
  out.recv_run(1, ring, missing(me), left, left, -1);
  return out.finish();
}

}  // namespace leancast::detail
