// Every algorithm, P = 1..128 and some larger counts up to 300 (all roots for P <= 40): every
// rank ends with every byte, sends and receives pair up round by round and pair by pair,
// nobody sends what it does not hold, in rounds or in the MPI executor's dataflow order
// (verify_schedule). The algorithms with a parameter also run with small segments (so that
// the pipelines have from one to thousands of segments) and several radices.
#include <gtest/gtest.h>

#include <leancast/analysis.hpp>
#include "select/automatic.hpp"

namespace leancast {

// Test names and messages show "pipeline-chain:7", not the bytes of the struct.
void PrintTo(const AlgorithmSpec& spec, std::ostream* out) { *out << to_string(spec); }

namespace {

constexpr int kAllRootsUpTo = 40;
constexpr int kEveryCountUpTo = 128;
// Beyond, counts around powers of two and odd ones: each is a P^2 check, and every count up
// to 300 took a third of the suite's schedule time (scatter-ring's 22 s alone).
constexpr int kLargerCounts[] = {129, 181, 255, 256, 257, 300};

std::vector<int> counts() {
  std::vector<int> out;
  for (int procs = 1; procs <= kEveryCountUpTo; ++procs) out.push_back(procs);
  out.insert(out.end(), std::begin(kLargerCounts), std::end(kLargerCounts));
  return out;
}

// Sizes that exercise the chunk arithmetic: one byte, fewer bytes than ranks, an uneven
// split, and a split whose last chunks are empty (ceil(n/P) * (P - 1) > n).
// With a parameter, also the sizes at and above it: one segment exactly, and three
// segments and a byte (so the last segment is short).
std::vector<std::uint64_t> sizes_for(int procs, const AlgorithmSpec& spec) {
  const auto p = static_cast<std::uint64_t>(procs);
  std::vector<std::uint64_t> sizes{1, p > 1 ? p - 1 : 1, 7 * p + 3, 5 * p - p / 2};
  if (spec.parameter > 1) sizes.insert(sizes.end(), {spec.parameter, 3 * spec.parameter + 1});
  return sizes;
}
// Above kAllRootsUpTo ranks each (root, size) pair is a full P^2 simulation: keep two.
bool sampled(int procs, int root, std::uint64_t bytes, const AlgorithmSpec& spec) {
  const auto p = static_cast<std::uint64_t>(procs);
  return procs <= kAllRootsUpTo || (root == 0 && bytes == p - 1) ||
         (root == procs - 1 && bytes == 5 * p - p / 2) ||
         (root == procs / 2 && spec.parameter > 1 && bytes == 3 * spec.parameter + 1);
}

std::vector<int> roots_for(int procs) {
  if (procs <= kAllRootsUpTo) {
    std::vector<int> roots(procs);
    for (int r = 0; r < procs; ++r) roots[r] = r;
    return roots;
  }
  return {0, procs - 1};
}

class EveryAlgorithm : public ::testing::TestWithParam<AlgorithmSpec> {};

TEST_P(EveryAlgorithm, DeliversEveryByteWithMatchedPairs) {
  for (int procs : counts()) {
    for (int root : roots_for(procs)) {
      for (std::uint64_t bytes : sizes_for(procs, GetParam())) {
        if (!sampled(procs, root, bytes, GetParam())) continue;
        const BcastShape shape{procs, root, bytes};
        const VerifyReport report = verify_schedule(resolve_automatic(GetParam(), shape), shape);
        ASSERT_TRUE(report.ok()) << to_string(GetParam()) << " P=" << procs << " root=" << root
                                 << " bytes=" << bytes << ": " << report.problems.front();
      }
    }
  }
}

TEST_P(EveryAlgorithm, TotalsAgreeWithTheExpandedSchedule) {
  for (int procs : {1, 2, 3, 8, 10, 17, 64, 129}) {
    // Tiny segments would make a million operations per rank here: a smaller message.
    const std::uint64_t large = GetParam().parameter < 4096 ? 10007 : 1000003;
    for (std::uint64_t bytes : {std::uint64_t{1}, large}) {
      const BcastShape shape{procs, procs / 2, bytes};
      std::uint64_t transfers = 0, moved = 0;
      const AlgorithmSpec spec = resolve_automatic(GetParam(), shape);  // node-aware's auto levels
      for (int rank = 0; rank < procs; ++rank) {
        for (const Operation& op : expand(make_schedule(spec, shape, rank))) {
          if (op.direction != Direction::send) continue;
          ++transfers;
          moved += op.bytes.length;
        }
      }
      const PlanTotals totals = plan_totals(spec, shape);
      EXPECT_EQ(totals.transfers, transfers) << "P=" << procs;
      EXPECT_EQ(totals.bytes_moved, moved) << "P=" << procs;
    }
  }
}

std::string test_name(const ::testing::TestParamInfo<AlgorithmSpec>& info) {
  std::string name = to_string(info.param);
  std::replace(name.begin(), name.end(), '-', '_');
  std::replace(name.begin(), name.end(), ':', '_');
  std::replace(name.begin(), name.end(), '/', '_');
  return name;
}

std::vector<AlgorithmSpec> defaults() {
  return {concrete_algorithms().begin(), concrete_algorithms().end()};
}

INSTANTIATE_TEST_SUITE_P(Schedules, EveryAlgorithm, ::testing::ValuesIn(defaults()), test_name);

// Every algorithm with a parameter, from the registry, at values of its kind: segments of
// 7 and 64 bytes (up to P segments in the sizes above; one-byte segments:
// new_algorithms_test.cpp), radices 2, 3, 7 and 300, 1, 5 and 64 circulant blocks.
std::vector<AlgorithmSpec> with_parameters() {
  std::vector<AlgorithmSpec> specs;
  for (const AlgorithmInfo& info : algorithm_registry()) {
    std::vector<std::uint64_t> values;
    if (info.parameter == ParameterKind::segment_bytes) values = {7, 64};
    if (info.parameter == ParameterKind::radix) values = {2, 3, 7, 300};
    if (info.parameter == ParameterKind::block_count) values = {1, 5, 64};
    for (std::uint64_t value : values) specs.push_back({info.algorithm, value});
  }
  return specs;
}

INSTANTIATE_TEST_SUITE_P(Parameters, EveryAlgorithm, ::testing::ValuesIn(with_parameters()),
                         test_name);

TEST(Schedules, ZeroBytesMeansNoTransfers) {
  for (Algorithm algorithm : concrete_algorithms()) {
    const AlgorithmSpec spec = resolve_automatic(algorithm, {9, 4, 0});
    EXPECT_TRUE(make_schedule(spec, {9, 4, 0}, 3).transfers.empty());
    EXPECT_EQ(plan_totals(spec, {9, 4, 0}).transfers, 0u);
  }
  // auto is selection policy: the schedules take it resolved only.
  EXPECT_THROW(make_schedule(Algorithm::automatic, {9, 4, 100}, 3), std::invalid_argument);
  EXPECT_THROW(make_schedule(Algorithm::node_aware, {9, 4, 100}, 3), std::invalid_argument);
}

TEST(Schedules, RejectsImpossibleShapes) {
  EXPECT_THROW(make_schedule(Algorithm::binomial, {4, 4, 10}, 0), std::invalid_argument);
  EXPECT_THROW(make_schedule(Algorithm::binomial, {4, 0, 10}, 4), std::invalid_argument);
  EXPECT_THROW(make_schedule(Algorithm::binomial, {0, 0, 10}, 0), std::invalid_argument);
}

}  // namespace
}  // namespace leancast
