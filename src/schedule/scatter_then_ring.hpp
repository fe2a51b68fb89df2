// The shape shared by scatter-ring and scatter-ring-tuned: the binomial scatter, then P - 1
// ring steps in which step i (1-based) sends chunk q - i + 1 to the right neighbour q + 1
// and receives chunk q - i from the left neighbour q - 1 (relative ranks, mod P). The two
// algorithms differ only in how many of those steps a rank sends and receives.
#pragma once

#include <cstdint>

#include <leancast/schedule.hpp>

namespace leancast::detail {

struct RingSteps {
  std::uint32_t sends = 0;     // steps 1 .. sends send
  std::uint32_t receives = 0;  // steps 1 .. receives receive
};

// `steps(procs, q)` gives relative rank q's counts.
RankSchedule scatter_then_ring(const BcastShape& shape, int rank,
                               RingSteps (*steps)(int procs, int q));

}  // namespace leancast::detail
