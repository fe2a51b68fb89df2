// The binomial scatter that opens scatter-doubling, scatter-ring and scatter-ring-tuned:
// MPICH's scatter_for_bcast. The buffer is cut into P chunks of ceil(n/P) bytes, chunk i
// belonging to relative rank i; each tree edge carries the child's whole subtree of chunks,
// so after the scatter relative rank q holds chunks [q, q + binomial_subtree_size(P, q)).
// Edges whose chunks hold no byte are skipped, as MPICH does.
#pragma once

#include <cstdint>

#include "schedule_builder.hpp"

namespace leancast::detail {

// Adds this rank's scatter transfers (rounds 0 .. binomial_rounds(P) - 1) to `builder`,
// whose blocks must be the P chunks; returns the first round after the scatter.
std::uint32_t add_binomial_scatter(ScheduleBuilder& builder, std::uint8_t phase);

}  // namespace leancast::detail
