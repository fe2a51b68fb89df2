// scatter-doubling: binomial scatter + recursive-doubling allgather, MPICH's medium-message
// choice for power-of-two P (MPIR_Bcast_intra_scatter_recursive_doubling_allgather),
// made correct for any P.
//
// Level k (mask = 2^k): rank q holds the chunks of its aligned group [g, g + mask), and
// swaps them with partner q ^ mask for the partner's group. For P not a power of two the
// partner may not exist; then the lower half of q's level-(k+1) group misses the upper
// half's chunks. The lower-half ranks that did have a partner (there is always one) pass
// those chunks on by doubling: holders j < h send to j + h, h = holders, 2 holders, ...
// Each level reserves one exchange round plus k fix-up rounds, which is always enough.
#include <algorithm>

#include "algorithms.hpp"
#include "binomial_scatter.hpp"
#include "ranks.hpp"
#include "schedule_builder.hpp"

namespace leancast::detail {

namespace {

// Chunks [first, first + mask) cut at P.
std::uint64_t group_span(int procs, int first, int mask) {
  return first < procs ? static_cast<std::uint64_t>(std::min(mask, procs - first)) : 0;
}

// The lower half [g, g + mask) of level-(k+1) group g shares the upper half's chunks
// among its ranks that had no partner at level k.
void add_fixup(ScheduleBuilder& out, std::uint32_t first_round, int g, int mask) {
  const int procs = out.procs();
  const std::uint64_t missing = group_span(procs, g + mask, mask);
  if (missing == 0) return;
  const int lower = std::min(mask, procs - g);  // ranks of the lower half that exist
  const int holders = procs - mask - g;         // those whose partner exists (>= 1 here)
  if (holders >= lower) return;
  const int j = out.me() - g;
  std::uint32_t round = first_round;
  for (int h = holders; h < lower; h *= 2, ++round) {
    if (j < h && j + h < lower) out.send(1, round, g + j + h, g + mask, missing);
    if (j >= h && j < 2 * h && j < lower) out.recv(1, round, g + j - h, g + mask, missing);
  }
}

}  // namespace

RankSchedule scatter_doubling_schedule(const BcastShape& shape, int rank) {
  const int procs = shape.procs;
  ScheduleBuilder out(shape, rank, procs, {"scatter", "allgather"});
  std::uint32_t round = add_binomial_scatter(out, 0);
  const int me = out.me();
  for (int k = 0, mask = 1; mask < procs; ++k, mask *= 2) {
    const int group = me & ~(mask - 1);
    const int partner = me ^ mask;
    if (partner < procs) {
      const int partner_group = group ^ mask;
      out.send(1, round, partner, group, group_span(procs, group, mask));
      out.recv(1, round, partner, partner_group, group_span(procs, partner_group, mask));
    }
    add_fixup(out, round + 1, me & ~(2 * mask - 1), mask);
    round += 1 + k;
  }
  return out.finish();
}

}  // namespace leancast::detail
