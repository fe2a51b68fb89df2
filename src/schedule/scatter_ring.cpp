// scatter-ring: the paper's MPI_Bcast_native, MPICH's MPIR_Bcast_intra_scatter_ring_allgather.
// After the binomial scatter, an enclosed ring: in each of P - 1 steps every rank, the root
// included, sends the chunk it got last to its right neighbour and receives one from its
// left, whether or not it already holds it: P (P - 1) transfers, zero-byte ones included.
#include "algorithms.hpp"
#include "scatter_then_ring.hpp"

namespace leancast::detail {

RankSchedule scatter_ring_schedule(const BcastShape& shape, int rank) {
  return scatter_then_ring(shape, rank, [](int procs, int) {
    const auto all = static_cast<std::uint32_t>(procs - 1);
    return RingSteps{all, all};
  });
}

}  // namespace leancast::detail
