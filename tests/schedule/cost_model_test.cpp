// The alpha-beta model of leancast-plan, played as dataflow: closed forms for simple
// schedules (where dataflow and rounds agree), hand-computed plays, the two-level variant,
// and the lower bound below every algorithm.
#include <gtest/gtest.h>

#include <leancast/analysis.hpp>
#include "select/automatic.hpp"

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
      EXPECT_NEAR(
          model_seconds({Algorithm::pipeline_chain, segment}, {procs, 1 % procs, n}, kModel),
          expected, 1e-12 * expected)
          << "P=" << procs << " S=" << segments;
    }
  }
}

// P = 3, chain 0 -> 1 -> 2 of two segments of s bytes, with 0 and 1 on one node (t = alpha
// + s * beta per segment) and 2 on another (u = alpha_inter + s * beta_inter, u > t).
// 0 sends segment 0 in [0, t], segment 1 in [t, 2t]. 1 holds segment 0 at t and sends it in
// [t, t + u]; it holds segment 1 at 2t < t + u, so its send port is what segment 1 waits
// for: [t + u, t + 2u]. Rank 2 holds everything at t + 2u.
TEST(CostModel, ChainOfThreeWithTwoSegmentsByHand) {
  const std::uint64_t s = 1000;
  const CostModel two_levels{
      .alpha = kAlpha, .beta = kBeta, .ranks_per_node = 2, .alpha_inter = 1e-5, .beta_inter = 1e-8};
  const double t = kAlpha + s * kBeta, u = 1e-5 + s * 1e-8;
  EXPECT_DOUBLE_EQ(model_seconds({Algorithm::pipeline_chain, s}, {3, 0, 2 * s}, two_levels),
                   t + 2 * u);
}

// P = 3, one rank per node, linear from 0: with beta_node the root's interface carries each
// message for n * beta_node. m1 (to 1) takes [0, a + n b] and holds the interface for 2 n b;
// m2 (to 2) finds the root's send port free at a + n b but its interface only at 2 n b, so
// it ends at 2 n b + a + n b. Without beta_node: 2 (a + n b).
TEST(CostModel, MessagesBetweenNodesWaitForTheNodesInterface) {
  const std::uint64_t n = 1000;
  const double a = 1e-6, b = 1e-8;
  CostModel model{
      .alpha = kAlpha, .beta = kBeta, .ranks_per_node = 1, .alpha_inter = a, .beta_inter = b};
  EXPECT_DOUBLE_EQ(model_seconds(Algorithm::linear, {3, 0, n}, model), 2 * (a + n * b));
  model.beta_node = 2 * b;
  EXPECT_DOUBLE_EQ(model_seconds(Algorithm::linear, {3, 0, n}, model), 2 * n * b + a + n * b);
}

// With send_overhead o < alpha the root's port is free o + n beta after a message starts,
// while the message is still in flight: linear to 2 ranks ends at o + n b + a + n b
// instead of 2 (a + n b).
TEST(CostModel, TheSendPortIsFreeAfterTheOverhead) {
  const std::uint64_t n = 1000;
  const double a = 2e-6, b = 1e-9, o = 0.5e-6;
  EXPECT_DOUBLE_EQ(model_seconds(Algorithm::linear, {3, 0, n}, {.alpha = a, .beta = b}),
                   2 * (a + n * b));
  EXPECT_DOUBLE_EQ(
      model_seconds(Algorithm::linear, {3, 0, n}, {.alpha = a, .beta = b, .send_overhead = o}),
      o + n * b + a + n * b);
}

// Ranks of one node sending between nodes at once share its interface: scatter-doubling's
// last exchange (every rank of node 0 with its peer on node 1) takes longer with beta_node;
// a binomial tree, which never has two messages through one interface at once at P = 4 on
// two nodes, takes as long as without.
TEST(CostModel, OnlyConcurrentMessagesShareAnInterface) {
  const std::uint64_t n = 1 << 20;
  CostModel model{
      .alpha = kAlpha, .beta = kBeta, .ranks_per_node = 4, .alpha_inter = 1e-5, .beta_inter = 1e-9};
  const double apart = model_seconds(Algorithm::scatter_doubling, {8, 0, n}, model);
  const double binomial = model_seconds(Algorithm::binomial, {4, 0, n},
                                        {.alpha = kAlpha,
                                         .beta = kBeta,
                                         .ranks_per_node = 2,
                                         .alpha_inter = 1e-5,
                                         .beta_inter = 1e-9});
  model.beta_node = model.beta_inter;
  EXPECT_GT(model_seconds(Algorithm::scatter_doubling, {8, 0, n}, model), apart);
  EXPECT_DOUBLE_EQ(model_seconds(Algorithm::binomial, {4, 0, n},
                                 {.alpha = kAlpha,
                                  .beta = kBeta,
                                  .ranks_per_node = 2,
                                  .alpha_inter = 1e-5,
                                  .beta_inter = 1e-9,
                                  .beta_node = 1e-9}),
                   binomial);
}

// Dataflow lets a node's leader forward what it holds before its between-node level ends.
// P = 3 on nodes {0, 1} and {2}, root 2, node-aware:pipeline-chain:64K/linear, n = 128 KiB.
// Between nodes, 2 sends 0 two segments, in [0, U] and [U, 2U] (U = alpha_inter + 64 KiB *
// beta_inter). Within node 0, linear's one transfer 0 -> 1 is cut where 0's receives end:
// two pieces of 64 KiB (T = alpha + 64 KiB * beta each, T < U), the first in [U, U + T] and
// the second once 0 holds it, in [2U, 2U + T]. The round model would start both pieces
// after the between-node rounds (2U + 2T), and without the cut 1 would get the whole
// message in [2U, 2U + alpha + 128 KiB * beta].
TEST(CostModel, NodeAwareLeadersForwardPiecesAsTheyArrive) {
  const std::uint64_t segment = 64 << 10;
  const CostModel two_levels{
      .alpha = kAlpha, .beta = kBeta, .ranks_per_node = 2, .alpha_inter = 1e-5, .beta_inter = 1e-8};
  const double inter = 1e-5 + segment * 1e-8, intra = kAlpha + segment * kBeta;
  const AlgorithmSpec spec =
      AlgorithmSpec::node_aware({Algorithm::pipeline_chain, segment}, Algorithm::linear);
  EXPECT_DOUBLE_EQ(model_seconds(spec, {3, 2, 2 * segment, block_nodes(3, 2)}, two_levels),
                   2 * inter + intra);
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
  specs.insert(specs.end(), {{Algorithm::pipeline_chain, 512},
                             {Algorithm::pipeline_binary_tree, 512},
                             {Algorithm::knomial, 2},
                             {Algorithm::knomial, 9}});
  for (const CostModel& model :
       {kModel, CostModel{.alpha = 1e-4, .beta = 1e-10}, CostModel{.alpha = 1e-7, .beta = 1e-8}}) {
    for (int procs : {2, 3, 7, 8, 13, 32, 33, 100}) {
      for (std::uint64_t bytes : {1, 1000, 65537, 1 << 20}) {
        const BcastShape shape{procs, procs / 3, bytes};
        const double bound = lower_bound_seconds(shape, model);
        for (const AlgorithmSpec& spec : specs) {
          // Not priced (SharedMemoryIsNotPriced): shm, and node-aware whose auto level is shm.
          const AlgorithmSpec runs = resolve_automatic(spec, shape);
          if (uses_shared_memory(runs)) continue;
          EXPECT_GE(model_seconds(runs, shape, model), bound * (1 - 1e-12))
              << to_string(spec) << " P=" << procs << " bytes=" << bytes;
        }
      }
    }
  }
}

// Node-aware pairs, their within levels cut (1 MiB): the play completes (no deadlock with
// receives taken in order) and stays above the bound.
TEST(CostModel, NodeAwarePairsPlayToTheEnd) {
  const std::vector<Algorithm> flat_rows = flat_algorithms();
  std::vector<AlgorithmSpec> flat(flat_rows.begin(), flat_rows.end());
  const CostModel two_levels{
      .alpha = 1e-6, .beta = 1e-10, .ranks_per_node = 4, .alpha_inter = 3e-6, .beta_inter = 2e-10};
  for (const AlgorithmSpec& between : flat) {
    if (algorithm_info(between.algorithm).within_node) continue;  // within nodes only
    for (const AlgorithmSpec& within : flat) {
      if (algorithm_info(within.algorithm).within_node) continue;  // not priced
      for (int procs : {8, 19}) {
        const BcastShape shape{procs, procs / 2, 1 << 20, block_nodes(procs, 4)};
        const AlgorithmSpec spec = AlgorithmSpec::node_aware(between, within);
        EXPECT_GE(model_seconds(spec, shape, two_levels), lower_bound_seconds(shape, two_levels))
            << to_string(spec) << " P=" << procs;
      }
    }
  }
}

// shm's copies through shared memory are not messages: the model refuses to price them
// rather than price them as the P - 1 messages its transfers list (only a real measurement
// puts shm into auto's table).
TEST(CostModel, SharedMemoryIsNotPriced) {
  const BcastShape shape{4, 0, 1 << 20, block_nodes(4, 2)};
  EXPECT_THROW(model_seconds(Algorithm::shm, shape, kModel), std::invalid_argument);
  const AlgorithmSpec within = AlgorithmSpec::node_aware(Algorithm::binomial, Algorithm::shm);
  EXPECT_TRUE(uses_shared_memory(within));
  EXPECT_THROW(model_seconds(within, shape, kModel), std::invalid_argument);
  EXPECT_FALSE(
      uses_shared_memory(AlgorithmSpec::node_aware(Algorithm::binomial, Algorithm::linear)));
}

}  // namespace
}  // namespace leancast
