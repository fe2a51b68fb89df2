// One schedule function per algorithm, each in the file of its name.
#pragma once

#include <leancast/schedule.hpp>

namespace leancast::detail {

using ScheduleFunction = RankSchedule (*)(const BcastShape& shape, int rank);

RankSchedule linear_schedule(const BcastShape& shape, int rank);
RankSchedule binomial_schedule(const BcastShape& shape, int rank);
RankSchedule hypercube_schedule(const BcastShape& shape, int rank);
RankSchedule scatter_doubling_schedule(const BcastShape& shape, int rank);
RankSchedule scatter_ring_schedule(const BcastShape& shape, int rank);
RankSchedule scatter_ring_tuned_schedule(const BcastShape& shape, int rank);

}  // namespace leancast::detail
