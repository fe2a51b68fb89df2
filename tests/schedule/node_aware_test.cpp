// node-aware: two algorithms composed over a node map. Beyond delivering every byte for
// any pair of levels, node layout and root, the point is where the bytes go: between
// nodes only among leaders, within nodes only inside.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include <leancast/analysis.hpp>
#include "select/automatic.hpp"

namespace leancast {
namespace {

std::shared_ptr<const NodeMap> scattered_nodes(int procs, int nodes, unsigned seed) {
  std::mt19937 random(seed);
  auto map = std::make_shared<NodeMap>(procs);
  for (int& node : *map) node = static_cast<int>(random() % nodes) * 7;  // any ids
  return map;
}

AlgorithmSpec levels(const char* text) {
  std::string error;
  const auto spec = parse_algorithm_spec(text, &error);
  EXPECT_TRUE(spec) << text << ": " << error;
  return spec.value_or(Algorithm::binomial);
}

TEST(NodeAware, DeliversWithEveryLevelPairOnBlockNodes) {
  const std::vector<Algorithm> flat_rows = flat_algorithms();
  std::vector<AlgorithmSpec> flat(flat_rows.begin(), flat_rows.end());
  flat.push_back(AlgorithmSpec{Algorithm::pipeline_chain, 100});
  flat.push_back(AlgorithmSpec{Algorithm::circulant, 7});
  for (const AlgorithmSpec& between : flat) {
    if (algorithm_info(between.algorithm).within_node) continue;  // within nodes only
    for (const AlgorithmSpec& within : flat) {
      const AlgorithmSpec spec = AlgorithmSpec::node_aware(between, within);
      for (int procs : {1, 2, 7, 12, 23}) {
        for (int per_node : {1, 3, 4, 24}) {
          for (int root : {0, procs / 2, procs - 1}) {
            const BcastShape shape{procs, root, 1001, block_nodes(procs, per_node)};
            const VerifyReport report = verify_schedule(spec, shape);
            ASSERT_TRUE(report.ok())
                << to_string(spec) << " P=" << procs << " per node " << per_node << " root " << root
                << ": " << report.problems.front();
          }
        }
      }
    }
  }
}

TEST(NodeAware, DeliversOnScatteredUnevenNodesForEveryRoot) {
  for (const char* text :
       {"node-aware", "node-aware:binomial/scatter-ring-tuned",
        "node-aware:pipeline-chain:64/circulant:3", "node-aware:two-tree:50/linear"}) {
    for (int procs = 1; procs <= 30; ++procs) {
      for (int nodes : {1, 2, 5}) {
        const auto map = scattered_nodes(procs, nodes, static_cast<unsigned>(procs * 31 + nodes));
        for (int root = 0; root < procs; ++root) {
          for (std::uint64_t bytes :
               {std::uint64_t{1}, std::uint64_t{3000}, std::uint64_t{200003}}) {
            // Cuts (200003 bytes): only with several nodes, and fewer roots.
            if (bytes > 3000 && (nodes == 1 || root % 10 != 0)) continue;
            const BcastShape shape{procs, root, bytes, map};
            const VerifyReport report =
                verify_schedule(resolve_automatic(levels(text), shape), shape);
            ASSERT_TRUE(report.ok())
                << text << " P=" << procs << " root " << root << ": " << report.problems.front();
          }
        }
      }
    }
  }
}

// With whole-message trees between nodes, each node but the root's receives the message
// exactly once from outside; within-node phases never leave a node.
TEST(NodeAware, TheMessageEntersEachNodeOnce) {
  const int procs = 48, per_node = 12;
  const std::uint64_t bytes = 1 << 20;
  const BcastShape shape{procs, 17, bytes, block_nodes(procs, per_node)};
  for (const char* text :
       {"node-aware:binomial/pipeline-chain", "node-aware:pipeline-chain/scatter-ring"}) {
    std::uint64_t entering = 0;
    for (int rank = 0; rank < procs; ++rank) {
      const RankSchedule schedule = make_schedule(levels(text), shape, rank);
      for (const Operation& op : expand(schedule)) {
        const bool crosses = op.peer / per_node != rank / per_node;
        const bool inter = schedule.phases[op.phase].name.starts_with("inter:");
        EXPECT_EQ(crosses, inter) << text << " rank " << rank;
        if (op.direction == Direction::recv && crosses) entering += op.bytes.length;
      }
    }
    EXPECT_EQ(entering, (procs / per_node - 1) * bytes) << text;
  }
}

// Bytes a rank holds after its first `receives` receives, as sorted disjoint intervals.
std::vector<ByteRange> held_after(const std::vector<Operation>& ops, std::size_t receives) {
  std::vector<ByteRange> held;
  for (const Operation& op : ops) {
    if (op.direction != Direction::recv || receives == 0) continue;
    --receives;
    held.push_back(op.bytes);
  }
  std::sort(held.begin(), held.end(), [](ByteRange a, ByteRange b) { return a.offset < b.offset; });
  std::vector<ByteRange> merged;
  for (ByteRange r : held) {
    if (!merged.empty() && merged.back().offset + merged.back().length >= r.offset) {
      merged.back().length =
          std::max(merged.back().offset + merged.back().length, r.offset + r.length) -
          merged.back().offset;
    } else {
      merged.push_back(r);
    }
  }
  return merged;
}

bool covers(const std::vector<ByteRange>& held, ByteRange r) {
  return std::any_of(held.begin(), held.end(), [&](ByteRange h) {
    return h.offset <= r.offset && r.offset + r.length <= h.offset + h.length;
  });
}

// The within-node level is cut where a leader's between-node receives end, so a leader can
// forward the first piece before it holds the whole message. Scatter-ring among 4 leaders:
// each receives quarters, and binomial's one whole-message transfer becomes 4 of them.
TEST(NodeAware, LeadersForwardPiecesBeforeTheyHoldEverything) {
  const std::uint64_t bytes = 1 << 20;
  const BcastShape shape{16, 0, bytes, block_nodes(16, 4)};
  const auto first_intra_send = [&](const RankSchedule& schedule) {
    for (const Operation& op : expand(schedule)) {
      if (op.direction == Direction::send && schedule.phases[op.phase].name.starts_with("intra:")) {
        return op;
      }
    }
    ADD_FAILURE() << "no within-node send";
    return Operation{};
  };
  const RankSchedule leader = make_schedule(levels("node-aware:scatter-ring/binomial"), shape, 4);
  EXPECT_EQ(first_intra_send(leader).bytes.length, bytes / 4);
  // The root's node is not cut: its leader holds everything from the start.
  const RankSchedule root = make_schedule(levels("node-aware:scatter-ring/binomial"), shape, 0);
  EXPECT_EQ(first_intra_send(root).bytes.length, bytes);
  // For every between level that delivers several pieces: the first piece a leader sends
  // within its node is held before its last between-node receive, and is not everything.
  for (const char* text :
       {"node-aware:scatter-ring/binomial", "node-aware:pipeline-chain/linear",
        "node-aware:two-tree/knomial", "node-aware:scatter-doubling/scatter-ring",
        "node-aware:circulant/binomial", "node-aware:pipeline-binary-tree/hypercube"}) {
    for (int rank : {4, 8, 12}) {
      const RankSchedule schedule = make_schedule(levels(text), shape, rank);
      const std::vector<Operation> ops = expand(schedule);
      const auto receives =
          static_cast<std::size_t>(std::count_if(ops.begin(), ops.end(), [](const Operation& op) {
            return op.direction == Direction::recv;
          }));
      const Operation first = first_intra_send(schedule);
      EXPECT_LT(first.bytes.length, bytes) << text << " rank " << rank;
      EXPECT_TRUE(covers(held_after(ops, receives - 1), first.bytes)) << text << " rank " << rank;
      // Compact: a cut transfer becomes at most 16 pieces of at least 64 KiB.
      for (const Operation& op : ops) {
        if (schedule.phases[op.phase].name.starts_with("intra:")) {
          EXPECT_GE(op.bytes.length, 64u << 10) << text << " rank " << rank;
        }
      }
    }
  }
  // Each cut piece is a Transfer, not one per segment: 1 KiB segments between nodes, and the
  // leader's two binomial transfers within its node become 2 * 16.
  const RankSchedule chain =
      make_schedule(levels("node-aware:pipeline-chain:1K/binomial"), shape, 4);
  EXPECT_EQ(
      std::count_if(chain.transfers.begin(), chain.transfers.end(),
                    [&](const Transfer& t) { return chain.phases[t.phase].name == "intra:bcast"; }),
      2 * 16);
}

// The cut schedules stay correct in both execution models for every pair of levels, at
// sizes where cuts happen (odd sizes make the refined layouts' blocks small).
TEST(NodeAware, CutLevelsDeliverWithEveryLevelPair) {
  const std::vector<Algorithm> flat_rows = flat_algorithms();
  std::vector<AlgorithmSpec> flat(flat_rows.begin(), flat_rows.end());
  flat.push_back(AlgorithmSpec{Algorithm::pipeline_chain, 100000});
  flat.push_back(AlgorithmSpec{Algorithm::circulant, 7});
  for (const AlgorithmSpec& between : flat) {
    if (algorithm_info(between.algorithm).within_node) continue;  // within nodes only
    for (const AlgorithmSpec& within : flat) {
      const AlgorithmSpec spec = AlgorithmSpec::node_aware(between, within);
      for (int procs : {9, 23}) {
        for (int per_node : {2, 4}) {
          for (int root : {0, procs - 2}) {
            for (std::uint64_t bytes : {std::uint64_t{300007}, std::uint64_t{1} << 20}) {
              const BcastShape shape{procs, root, bytes, block_nodes(procs, per_node)};
              const VerifyReport report = verify_schedule(spec, shape);
              ASSERT_TRUE(report.ok())
                  << to_string(spec) << " P=" << procs << " per node " << per_node << " root "
                  << root << " bytes " << bytes << ": " << report.problems.front();
            }
          }
        }
      }
    }
  }
}

// A level left to auto: the table's flat leancast choice for that level's ranks, else
// (mpi, node-aware or no rule) MPICH's selection, since a level runs leancast's schedule.
// A level is a schedule, not a run: the executor a rule names stays with the whole
// broadcast, so the level is the rule's algorithm without it.
AlgorithmSpec expected_level(int procs, std::uint64_t bytes, int ranks_per_node) {
  AlgorithmSpec chosen = select_automatic(procs, bytes, ranks_per_node);
  if (chosen.algorithm == Algorithm::mpi || chosen.algorithm == Algorithm::node_aware) {
    return select_mpich(procs, bytes);
  }
  chosen.executor.reset();
  return chosen;
}

TEST(NodeAware, LevelsLeftToAutoAreResolvedForLeadersAndNodes) {
  for (std::uint64_t bytes : {8ull, 100000ull, 4ull << 20}) {
    const BcastShape shape{96, 0, bytes, block_nodes(96, 24)};
    const AlgorithmSpec runs = resolve_automatic(Algorithm::node_aware, shape);
    EXPECT_EQ(runs.algorithm, Algorithm::node_aware);
    EXPECT_EQ(AlgorithmSpec(runs.between_nodes), expected_level(4, bytes, 1)) << bytes;
    EXPECT_EQ(AlgorithmSpec(runs.within_nodes), expected_level(24, bytes, 24)) << bytes;
    EXPECT_NE(runs.between_nodes.algorithm, Algorithm::mpi);
    EXPECT_NE(runs.within_nodes.algorithm, Algorithm::mpi);
    EXPECT_EQ(plan_totals(runs, shape).algorithm, runs);
  }
}

TEST(NodeAware, WithoutANodeMapItIsTheWithinNodeAlgorithm) {
  const BcastShape shape{9, 4, 5000};
  for (int rank = 0; rank < 9; ++rank) {
    const auto composed =
        expand(make_schedule(levels("node-aware:linear/scatter-ring"), shape, rank));
    const auto plain = expand(make_schedule(Algorithm::scatter_ring, shape, rank));
    ASSERT_EQ(composed.size(), plain.size());
    for (std::size_t i = 0; i < plain.size(); ++i) {
      EXPECT_EQ(composed[i].peer, plain[i].peer);
      EXPECT_EQ(composed[i].bytes, plain[i].bytes);
      EXPECT_EQ(composed[i].round, plain[i].round);
    }
  }
}

TEST(NodeAware, NamesParametersAndErrors) {
  const AlgorithmSpec spec = levels("node-aware:pipeline-chain:256K/knomial:8");
  EXPECT_EQ(spec.between_nodes, (LevelSpec{Algorithm::pipeline_chain, 256 << 10}));
  EXPECT_EQ(spec.within_nodes, (LevelSpec{Algorithm::knomial, 8}));
  EXPECT_EQ(to_string(spec), "node-aware:pipeline-chain:256K/knomial:8");
  EXPECT_EQ(to_string(AlgorithmSpec(Algorithm::node_aware)), "node-aware:auto/auto");
  EXPECT_EQ(parse_algorithm_spec("node_aware"), AlgorithmSpec(Algorithm::node_aware));
  EXPECT_EQ(parse_algorithm_spec(to_string(spec)), spec);
  const std::pair<const char*, const char*> bad[] = {
      {"node-aware:binomial",
       "node-aware: write node-aware:BETWEEN/WITHIN, e.g. "
       "node-aware:pipeline-chain/binomial (got 'binomial')"},
      {"node-aware:mpi/binomial",
       "node-aware: a level must be a leancast algorithm or auto, not mpi"},
      {"node-aware:node-aware/binomial", "node-aware: a level cannot be node-aware itself"},
      {"node-aware:knomial:1/binomial",
       "knomial: the radix must be an integer from 2 to 1048576 (got 1)"},
      {"node-aware:binomial/ring", "unknown algorithm 'ring'"},
  };
  for (const auto& [text, message] : bad) {
    std::string error;
    EXPECT_FALSE(parse_algorithm_spec(text, &error)) << text;
    EXPECT_EQ(error.substr(0, std::string(message).size()), message) << text;
  }
  AlgorithmSpec nested = AlgorithmSpec::node_aware(Algorithm::binomial, Algorithm::binomial);
  nested.within_nodes = {Algorithm::mpi, 0};
  EXPECT_NE(parameter_problem(nested), "");
  EXPECT_THROW(make_schedule(nested, {4, 0, 10}, 0), std::invalid_argument);
}

TEST(NodeAware, NodeMaps) {
  EXPECT_EQ(*block_nodes(7, 3), (NodeMap{0, 0, 0, 1, 1, 1, 2}));
  const auto counts = [](const BcastShape& shape) {
    const NodeCounts c = node_counts(shape);
    return std::pair(c.nodes, c.ranks_per_node);
  };
  EXPECT_EQ(counts({7, 0, 1, block_nodes(7, 3)}), std::pair(3, 3));
  EXPECT_EQ(counts({7, 0, 1}), std::pair(1, 7));
  EXPECT_EQ(counts({5, 0, 1, std::make_shared<NodeMap>(NodeMap{4, 9, 4, 4, 9})}), std::pair(2, 3));
  EXPECT_THROW(make_schedule(Algorithm::binomial, {5, 0, 10, block_nodes(4, 2)}, 0),
               std::invalid_argument);
}

}  // namespace
}  // namespace leancast
