// What an algorithm's schedule file and the registry (registry.cpp) share. Each algorithm's
// schedule function lives in the file of its name and is declared by its registry row, not
// here.
#pragma once

#include <cstdint>
#include <string>

#include <leancast/schedule.hpp>

namespace leancast::detail {

// `parameter`: the algorithm's segment size, radix or block count (registry.cpp checks it
// against the row's range first; 0 for algorithms without one).
using ScheduleFunction = RankSchedule (*)(const BcastShape& shape, int rank,
                                          std::uint64_t parameter);

// `value` as parameters are written: segment sizes that are whole K, M or G with the suffix.
std::string parameter_text(ParameterKind kind, std::uint64_t value);

// The registry row's schedule function (null for auto, mpi and node-aware).
ScheduleFunction schedule_function(Algorithm algorithm);

// node-aware composes two other schedules by its levels, so make_schedule calls it
// itself. `spec`: node_aware with both levels resolved (no auto left).
RankSchedule node_aware_schedule(const AlgorithmSpec& spec, const BcastShape& shape, int rank);

}  // namespace leancast::detail
