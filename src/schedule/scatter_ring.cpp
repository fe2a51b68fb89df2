// scatter-ring: the paper's MPI_Bcast_native, MPICH's MPIR_Bcast_intra_scatter_ring_allgather.
// After the binomial scatter, an enclosed ring: in each of P - 1 steps every rank, the root
// included, sends the chunk it got last to its right neighbour and receives one from its
// left, whether or not it already holds it: P (P - 1) transfers, zero-byte ones included.
#include "algorithms.hpp"
#include "binomial_scatter.hpp"
#include "schedule_builder.hpp"

namespace leancast::detail {

RankSchedule scatter_ring_schedule(const BcastShape& shape, int rank) {
  const int procs = shape.procs;
  ScheduleBuilder out(shape, rank, procs, {"scatter", "allgather"});
  const std::uint32_t ring = add_binomial_scatter(out, 0);
  const int me = out.me();
  const int right = (me + 1) % procs;
  const int left = (me + procs - 1) % procs;
  // Step i (1-based) sends chunk me - i + 1 and receives chunk me - i.
  out.send_run(1, ring, procs - 1, right, me, -1);
  out.recv_run(1, ring, procs - 1, left, left, -1);
  return out.finish();
}

}  // namespace leancast::detail
