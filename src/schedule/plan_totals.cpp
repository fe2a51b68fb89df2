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
  totals.algorithm = algorithm;  // concrete, or mpi (no schedule): auto is resolved by the caller
  totals.shape = shape;
  totals.block_bytes = std::max<std::uint64_t>(shape.bytes, 1);
  if (totals.algorithm.algorithm == Algorithm::mpi) return totals;  // the library's: no schedule
  std::vector<std::pair<std::uint64_t, std::uint64_t>> rounds;
  for (int rank = 0; rank < shape.procs; ++rank) {
    const RankSchedule schedule = make_schedule(totals.algorithm, shape, rank);
    // Phases add up by name: ranks may have different phase lists (a node-aware
    // broadcast's leaders have the between-node phases, other ranks do not).
    std::vector<std::size_t> slot(schedule.phases.size());
    for (std::size_t i = 0; i < schedule.phases.size(); ++i) {
      const Phase& phase = schedule.phases[i];
      auto it = std::find_if(totals.phases.begin(), totals.phases.end(),
                             [&](const PhaseTotals& p) { return p.name == phase.name; });
      if (it == totals.phases.end()) {
        totals.phases.push_back({phase.name, phase.layout.block_bytes()});
        it = totals.phases.end() - 1;
      }
      slot[i] = static_cast<std::size_t>(it - totals.phases.begin());
    }
    for (const Transfer& t : schedule.transfers) {
      if (t.direction != Direction::send) continue;
      const std::uint64_t bytes = run_bytes(t, schedule.layout(t.phase));
      totals.phases[slot[t.phase]].transfers += t.repeat;
      totals.phases[slot[t.phase]].bytes_moved += bytes;
      totals.transfers += t.repeat;
      totals.bytes_moved += bytes;
      if (t.round_stride == 1) {
        rounds.emplace_back(t.round, t.end_round());
      } else {
        for (std::uint32_t k = 0; k < t.repeat; ++k)
          rounds.emplace_back(t.round_at(k), t.round_at(k) + 1);
      }
    }
  }
  totals.steps = covered(rounds);
  // The largest phase's blocks; the whole buffer where nothing moves (P = 1, 0 bytes).
  if (!totals.phases.empty()) {
    totals.block_bytes = std::max_element(totals.phases.begin(), totals.phases.end(),
                                          [](const PhaseTotals& a, const PhaseTotals& b) {
                                            return a.block_bytes < b.block_bytes;
                                          })
                             ->block_bytes;
  }
  return totals;
}

}  // namespace leancast
