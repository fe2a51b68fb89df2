// scatter-ring-tuned: the paper's MPI_Bcast_opt. The same scatter and the same P - 1 ring
// steps as scatter-ring, but a non-enclosed ring: relative rank q holds chunks
// [q, q + s(q)) after the scatter, and the chunks it lacks are exactly those that arrive
// in steps 1 .. P - s(q), so it receives only then; it sends only while its right
// neighbour still lacks chunks, i.e. in steps 1 .. P - s(q + 1). Ring transfers:
// P^2 - sum_q s(q), e.g. 44 instead of 56 at P = 8, 75 instead of 90 at P = 10. Each
// step's sends and receives pair up, so no blocking pair can deadlock.
#include "algorithms.hpp"
#include "binomial_tree.hpp"
#include "scatter_then_ring.hpp"

namespace leancast::detail {

RankSchedule scatter_ring_tuned_schedule(const BcastShape& shape, int rank) {
  return scatter_then_ring(shape, rank, [](int procs, int q) {
    const auto missing = [procs](int r) {
      return static_cast<std::uint32_t>(procs - binomial_subtree_size(procs, r));
    };
    return RingSteps{missing((q + 1) % procs), missing(q)};
  });
}

}  // namespace leancast::detail
