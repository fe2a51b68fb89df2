#include <algorithm>
#include <utility>

#include <leancast/analysis.hpp>

namespace leancast {

namespace {

// Bytes carried by all repetitions of `t`; closed form for the ring-shaped runs.
std::uint64_t run_bytes(const Transfer& t, const BlockLayout& layout) {
  if (t.block_span == 1 && (t.block_stride == 1 || t.block_stride == -1)) {
    const std::uint64_t lowest =
        t.block_stride == 1 ? t.first_block : t.first_block_at(t.repeat - 1, layout.block_count());
    return layout.cyclic_bytes(lowest, t.repeat);
  }
  std::uint64_t bytes = 0;
  for (std::uint32_t k = 0; k < t.repeat; ++k) {
    bytes += layout.range(t.first_block_at(k, layout.block_count()), t.block_span).length;
  }
  return bytes;
}

// Number of integers covered by a union of half-open intervals.
std::uint64_t covered(std::vector<std::pair<std::uint64_t, std::uint64_t>>& intervals) {
  std::sort(intervals.begin(), intervals.end());
  std::uint64_t total = 0;
  std::uint64_t reach = 0;
  for (const auto& [begin, end] : intervals) {
    const std::uint64_t from = std::max(begin, reach);
    if (end > from) total += end - from;
    reach = std::max(reach, end);
  }
  return total;
}

}  // namespace

PlanTotals plan_totals(const AlgorithmSpec& algorithm, const BcastShape& shape) {
  PlanTotals totals;
  totals.algorithm =
      algorithm.algorithm == Algorithm::automatic
          ? AlgorithmSpec(select_automatic(shape.procs, shape.bytes))
          : algorithm;
  totals.shape = shape;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> rounds;
  for (int rank = 0; rank < shape.procs; ++rank) {
    const RankSchedule schedule = make_schedule(totals.algorithm, shape, rank);
    totals.block_bytes = schedule.layout.block_bytes();
    if (totals.phases.size() < schedule.phases.size()) {
      totals.phases.resize(schedule.phases.size());
      for (std::size_t i = 0; i < schedule.phases.size(); ++i) {
        totals.phases[i].name = schedule.phases[i];
      }
    }
    for (const Transfer& t : schedule.transfers) {
      if (t.direction != Direction::send) continue;
      const std::uint64_t bytes = run_bytes(t, schedule.layout);
      totals.phases[t.phase].transfers += t.repeat;
      totals.phases[t.phase].bytes_moved += bytes;
      totals.transfers += t.repeat;
      totals.bytes_moved += bytes;
      rounds.emplace_back(t.round, std::uint64_t{t.round} + t.repeat);
    }
  }
  totals.steps = covered(rounds);
  return totals;
}

}  // namespace leancast
