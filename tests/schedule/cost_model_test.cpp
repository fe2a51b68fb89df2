// The alpha-beta model of leancast-plan: closed forms for simple schedules, the two-level
// variant, and the lower bound below every algorithm.
#include <gtest/gtest.h>

#include <leancast/analysis.hpp>

namespace leancast {
namespace {

constexpr double kAlpha = 2e-6;
constexpr double kBeta = 1e-9;
const CostModel kModel{.alpha = kAlpha, .beta = kBeta};

TEST(CostModel, BinomialIsOneMessageTimePerRound) {
  const std::uint64_t n = 1 << 20;
  EXPECT_DOUBLE_EQ(model_seconds(Algorithm::binomial, {8, 0, n}, kModel), 3 * (kAlpha + n * kBeta));
  EXPECT_DOUBLE_EQ(model_seconds(Algorithm::binomial, {9, 4, n}, kModel), 4 * (kAlpha + n * kBeta));
}

TEST(CostModel, ChainPipelineFillsThenStreams) {
  // S segments along a chain of P ranks: P - 1 + S - 1 segment times.
  for (int procs : {2, 5, 16}) {
    for (std::uint64_t segments : {1, 4, 64}) {
      const std::uint64_t segment = 4096, n = segments * segment;
      const double expected = (procs - 1 + segments - 1) * (kAlpha + segment * kBeta);
      EXPECT_NEAR(model_seconds({Algorithm::pipeline_chain, segment}, {procs, 1 % procs, n}, kModel),
                  expected, 1e-12 * expected)
          << "P=" << procs << " S=" << segments;
    }
  }
}

TEST(CostModel, ASendersMessagesOfOneRoundGoOneAfterTheOther) {
  const std::uint64_t n = 1000;
  EXPECT_DOUBLE_EQ(model_seconds(Algorithm::linear, {5, 0, n}, kModel), 4 * (kAlpha + n * kBeta));
}

TEST(CostModel, MessagesBetweenNodesUseTheInterNodeCosts) {
  const std::uint64_t n = 1000;
  const CostModel two_levels{
      .alpha = kAlpha, .beta = kBeta, .ranks_per_node = 2, .alpha_inter = 1e-5, .beta_inter = 1e-8};
  // Binomial at P = 4: round 0 is 0 -> 2 (between nodes), round 1 is 0 -> 1 and 2 -> 3.
  EXPECT_DOUBLE_EQ(model_seconds(Algorithm::binomial, {4, 0, n}, two_levels),
                   1e-5 + n * 1e-8 + kAlpha + n * kBeta);
  EXPECT_DOUBLE_EQ(lower_bound_seconds({4, 0, n}, two_levels), 2 * kAlpha + n * kBeta);
}

TEST(CostModel, LowerBound) {
  EXPECT_DOUBLE_EQ(lower_bound_seconds({8, 0, 1000}, kModel), 3 * kAlpha + 1000 * kBeta);
  EXPECT_DOUBLE_EQ(lower_bound_seconds({9, 0, 1000}, kModel), 4 * kAlpha + 1000 * kBeta);
  EXPECT_EQ(lower_bound_seconds({1, 0, 1000}, kModel), 0.0);
  EXPECT_EQ(model_seconds(Algorithm::binomial, {1, 0, 1000}, kModel), 0.0);
  EXPECT_EQ(model_seconds(Algorithm::binomial, {8, 0, 0}, kModel), 0.0);
}

TEST(CostModel, NoAlgorithmBeatsTheLowerBound) {
  std::vector<AlgorithmSpec> specs(concrete_algorithms().begin(), concrete_algorithms().end());
  specs.insert(specs.end(), {{Algorithm::pipeline_chain, 512}, {Algorithm::pipeline_binary_tree, 512},
                             {Algorithm::knomial, 2}, {Algorithm::knomial, 9}});
  for (const CostModel& model : {kModel, CostModel{.alpha = 1e-4, .beta = 1e-10},
                                 CostModel{.alpha = 1e-7, .beta = 1e-8}}) {
    for (int procs : {2, 3, 7, 8, 13, 32, 33, 100}) {
      for (std::uint64_t bytes : {1, 1000, 65537, 1 << 20}) {
        const BcastShape shape{procs, procs / 3, bytes};
        const double bound = lower_bound_seconds(shape, model);
        for (const AlgorithmSpec& spec : specs) {
          EXPECT_GE(model_seconds(spec, shape, model), bound * (1 - 1e-12))
              << to_string(spec) << " P=" << procs << " bytes=" << bytes;
        }
      }
    }
  }
}

}  // namespace
}  // namespace leancast
