// The paper's claims about the two rings, checked on the schedules themselves.
#include <gtest/gtest.h>

#include <leancast/analysis.hpp>

namespace leancast {
namespace {

const PhaseTotals& allgather(const PlanTotals& totals) {
  for (const PhaseTotals& phase : totals.phases) {
    if (phase.name == "allgather") return phase;
  }
  throw std::logic_error("no allgather phase");
}

// s(q): chunks relative rank q holds after the scatter, read off the scatter's receives
// (the root holds all P). Only for sizes where every chunk holds bytes: the scatter skips
// empty ones.
std::uint64_t sum_of_holdings(const BcastShape& shape) {
  std::uint64_t sum = 0;
  for (int rank = 0; rank < shape.procs; ++rank) {
    if (rank == shape.root) {
      sum += shape.procs;
      continue;
    }
    const RankSchedule s = make_schedule(Algorithm::scatter_ring_tuned, shape, rank);
    for (const Transfer& t : s.transfers) {
      if (t.direction == Direction::recv && s.phases[t.phase].name == "scatter")
        sum += t.block_span;
    }
  }
  return sum;
}

TEST(Rings, PaperFiguresFourAndFive) {
  const std::uint64_t mib = 1 << 20;
  EXPECT_EQ(allgather(plan_totals(Algorithm::scatter_ring, {8, 0, mib})).transfers, 56u);
  EXPECT_EQ(allgather(plan_totals(Algorithm::scatter_ring_tuned, {8, 0, mib})).transfers, 44u);
  EXPECT_EQ(allgather(plan_totals(Algorithm::scatter_ring, {10, 0, mib})).transfers, 90u);
  EXPECT_EQ(allgather(plan_totals(Algorithm::scatter_ring_tuned, {10, 0, mib})).transfers, 75u);
}

TEST(Rings, EnclosedRingIsPTimesPMinusOne) {
  for (int procs = 1; procs <= 300; ++procs) {
    const auto p = static_cast<std::uint64_t>(procs);
    const PlanTotals totals = plan_totals(Algorithm::scatter_ring, {procs, procs - 1, 4096 * p});
    if (procs == 1) continue;
    EXPECT_EQ(allgather(totals).transfers, p * (p - 1)) << "P=" << procs;
    EXPECT_EQ(totals.steps, static_cast<std::uint64_t>(std::bit_width(p - 1)) + p - 1);
  }
}

TEST(Rings, TunedRingIsTheMinimumAfterTheScatter) {
  for (int procs = 2; procs <= 300; ++procs) {
    for (int root : {0, procs / 2, procs - 1}) {
      const auto p = static_cast<std::uint64_t>(procs);
      const BcastShape shape{procs, root, 1000 * p + 17};
      const PlanTotals tuned = plan_totals(Algorithm::scatter_ring_tuned, shape);
      EXPECT_EQ(allgather(tuned).transfers, p * p - sum_of_holdings(shape)) << "P=" << procs;
      // Same number of steps as the enclosed ring.
      EXPECT_EQ(tuned.steps, plan_totals(Algorithm::scatter_ring, shape).steps) << "P=" << procs;
    }
  }
}

TEST(Rings, TunedRingNeverReceivesAChunkTwiceAndTheEnclosedOneDoes) {
  for (int procs = 2; procs <= 120; ++procs) {
    const BcastShape shape{procs, procs / 3, 1000 * static_cast<std::uint64_t>(procs) + 17};
    const VerifyReport tuned = verify_schedule(Algorithm::scatter_ring_tuned, shape);
    ASSERT_TRUE(tuned.ok());
    EXPECT_EQ(tuned.redundant_receives, 0u) << "P=" << procs;
    const VerifyReport enclosed = verify_schedule(Algorithm::scatter_ring, shape);
    ASSERT_TRUE(enclosed.ok());
    // Every chunk a rank held after the scatter comes round once more, except its own.
    EXPECT_EQ(enclosed.redundant_receives, sum_of_holdings(shape) - shape.procs) << "P=" << procs;
  }
}

TEST(Rings, SavedTrafficShrinksWithP) {
  auto saved = [](int procs) {
    const PlanTotals n = plan_totals(Algorithm::scatter_ring, {procs, 0, 1 << 20});
    const PlanTotals t = plan_totals(Algorithm::scatter_ring_tuned, {procs, 0, 1 << 20});
    return 1.0 - double(allgather(t).transfers) / double(allgather(n).transfers);
  };
  EXPECT_NEAR(saved(8), 12.0 / 56.0, 1e-12);
  EXPECT_GT(saved(8), saved(64));
  EXPECT_GT(saved(64), saved(1024));
}

TEST(Rings, TotalsScaleToAHundredThousandRanks) {
  const int procs = 100000;
  const auto p = static_cast<std::uint64_t>(procs);
  const PlanTotals enclosed = plan_totals(Algorithm::scatter_ring, {procs, 0, 1 << 24});
  EXPECT_EQ(allgather(enclosed).transfers, p * (p - 1));
  const PlanTotals tuned = plan_totals(Algorithm::scatter_ring_tuned, {procs, 0, 1 << 24});
  EXPECT_LT(allgather(tuned).transfers, allgather(enclosed).transfers);
  EXPECT_LT(allgather(tuned).bytes_moved, allgather(enclosed).bytes_moved);
}

}  // namespace
}  // namespace leancast
