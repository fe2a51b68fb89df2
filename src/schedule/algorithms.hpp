// One schedule function per algorithm, each in the file of its name.
#pragma once

#include <cstdint>

#include <leancast/schedule.hpp>

namespace leancast::detail {

// `parameter`: the algorithm's segment size or radix (registry.cpp checks it first).
using ScheduleFunction = RankSchedule (*)(const BcastShape& shape, int rank,
                                          std::uint64_t parameter);

RankSchedule linear_schedule(const BcastShape& shape, int rank);
RankSchedule binomial_schedule(const BcastShape& shape, int rank);
RankSchedule hypercube_schedule(const BcastShape& shape, int rank);
RankSchedule scatter_doubling_schedule(const BcastShape& shape, int rank);
RankSchedule scatter_ring_schedule(const BcastShape& shape, int rank);
RankSchedule scatter_ring_tuned_schedule(const BcastShape& shape, int rank);
RankSchedule pipeline_chain_schedule(const BcastShape& shape, int rank,
                                     std::uint64_t segment_bytes);
RankSchedule pipeline_binary_tree_schedule(const BcastShape& shape, int rank,
                                           std::uint64_t segment_bytes);
RankSchedule two_tree_schedule(const BcastShape& shape, int rank, std::uint64_t segment_bytes);
RankSchedule knomial_schedule(const BcastShape& shape, int rank, std::uint64_t radix);
RankSchedule circulant_schedule(const BcastShape& shape, int rank, std::uint64_t blocks);
// `spec`: node_aware with both levels resolved (no auto left).
RankSchedule node_aware_schedule(const AlgorithmSpec& spec, const BcastShape& shape, int rank);

}  // namespace leancast::detail
