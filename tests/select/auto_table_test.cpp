// auto's built-in table (data/auto.rules, compiled in): it parses, names only algorithms
// that run, auto follows it (MPICH's choice only where no rule applies), and it never puts
// a ring where the ring is latency-bound.
#include <gtest/gtest.h>

#include <leancast/schedule.hpp>

#include "select/rules.hpp"

namespace leancast::detail {
namespace {

ParsedRules table() { return parse_rules(automatic_table(), "auto table", true); }

TEST(AutoTable, ParsesAndNamesOnlyAlgorithmsThatRun) {
  const ParsedRules parsed = table();
  ASSERT_EQ(parsed.error, "");
  ASSERT_GT(parsed.rules.rules.size(), 10u);
  for (const Rule& rule : parsed.rules.rules) {
    EXPECT_NE(rule.algorithm.algorithm, Algorithm::automatic) << rule.where;
    EXPECT_NE(rule.algorithm.algorithm, Algorithm::mpi) << rule.where;
    EXPECT_EQ(parameter_problem(rule.algorithm), "") << rule.where;
  }
}

TEST(AutoTable, AutoFollowsTheFirstApplyingRule) {
  const RuleSet rules = table().rules;
  int from_table = 0;
  for (int procs : {1, 2, 3, 8, 16, 24, 25, 33, 64, 129, 256, 700, 1024, 6144}) {
    for (int ppn : {1, 2, 8, 24}) {
      if (ppn > procs) continue;
      for (std::uint64_t bytes : {0ull, 8ull, 12288ull, 100000ull, 1ull << 20, 3000000ull, 1ull << 24}) {
        const Rule* rule = rules.match(procs, bytes, ppn);
        const AlgorithmSpec expected = procs == 1 ? AlgorithmSpec(Algorithm::linear)  // sends nothing
                                       : rule     ? rule->algorithm
                                                  : AlgorithmSpec(select_mpich(procs, bytes));
        EXPECT_EQ(select_automatic(procs, bytes, ppn), expected)
            << "P=" << procs << " ppn=" << ppn << " bytes=" << bytes;
        from_table += rule != nullptr;
      }
    }
  }
  EXPECT_GT(from_table, 0);
}

// The table covers what it was measured for: many nodes of 24 ranks, from 25 ranks up to
// far past the largest simulation (MPICH's fallback would run its ring at 6144 ranks,
// mpich#7330), one node, and one rank per node.
TEST(AutoTable, CoversTheMeasuredLayouts) {
  const RuleSet rules = table().rules;
  for (int procs : {25, 64, 256, 1024, 6144}) {
    for (std::uint64_t bytes : {1ull, 12288ull, 1ull << 20, 1ull << 24}) {
      EXPECT_NE(rules.match(procs, bytes, 24), nullptr) << "P=" << procs << " bytes=" << bytes;
      EXPECT_NE(rules.match(procs, bytes, 1), nullptr) << "P=" << procs << " bytes=" << bytes;
    }
  }
  for (int procs : {3, 8, 16, 24}) EXPECT_NE(rules.match(procs, 12288, procs), nullptr) << procs;
}

bool is_ring(const AlgorithmSpec& spec) {
  const auto ring = [](Algorithm a) {
    return a == Algorithm::scatter_ring || a == Algorithm::scatter_ring_tuned;
  };
  return ring(spec.algorithm) ||
         (spec.algorithm == Algorithm::node_aware && ring(spec.between_nodes.algorithm));
}

// The ring's P - 1 start-ups outweigh its bandwidth term 2 n beta while
// n < (P - 1) alpha / (2 beta); with hornet's 1.3 us and 10 GB/s that is (P - 1) * 6500
// bytes. There auto must not run a ring (between nodes, for node-aware).
TEST(AutoTable, NeverTheRingWhereItIsLatencyBound) {
  for (int procs : {64, 129, 256, 512, 1024, 4096, 6144}) {
    for (int ppn : {1, 24}) {
      const auto leaders = static_cast<std::uint64_t>(ppn == 1 ? procs : (procs + ppn - 1) / ppn);
      for (std::uint64_t bytes = 1; bytes < static_cast<std::uint64_t>(procs - 1) * 6500; bytes *= 2) {
        const AlgorithmSpec chosen = select_automatic(procs, bytes, ppn);
        const bool ring_between_few_leaders =
            chosen.algorithm == Algorithm::node_aware && bytes >= (leaders - 1) * 6500;
        EXPECT_TRUE(!is_ring(chosen) || ring_between_few_leaders)
            << "P=" << procs << " ppn=" << ppn << " bytes=" << bytes << ": " << to_string(chosen);
      }
    }
  }
}

}  // namespace
}  // namespace leancast::detail
