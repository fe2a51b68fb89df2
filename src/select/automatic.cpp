// auto, version 3: a tuning table by process count, ranks per node and size, built into
// the library from data/auto.rules (the measurements behind each line are in
// docs/auto.md). Where no line applies there is no evidence that leancast is faster, so
// auto runs the MPI library's own broadcast (mpi): leancast must never make MPI_Bcast
// slower. A line may name mpi too, where the library measured fastest.
//
// MPICH's selection (MPIR_Bcast_intra_auto in MPICH 3.x/4.x): binomial for short messages
// (< MPIR_CVAR_BCAST_SHORT_MSG_SIZE = 12288 bytes) or few processes
// (< MPIR_CVAR_BCAST_MIN_PROCS = 8); scatter + recursive doubling for medium messages
// (< MPIR_CVAR_BCAST_LONG_MSG_SIZE = 524288) on power-of-two P; the scatter + ring
// otherwise, where leancast runs the paper's tuned ring instead of the enclosed one.
// MPICH compares with '<', so 12288 bytes is already a medium message (the paper's
// Figure 7 measures the rings there) and 524288 a long one.
#include <bit>

#include "select/automatic.hpp"
#include "select/rules.hpp"

namespace leancast {

namespace detail {
extern const char* const kAutomaticTable;  // generated from data/auto.rules
}  // namespace detail

namespace {

constexpr std::uint64_t kShortMessageBytes = 12288;
constexpr std::uint64_t kLongMessageBytes = 524288;
constexpr int kMinProcs = 8;

// The built-in table, parsed once. A malformed table is a build error in spirit: the
// schedule tests parse it and fail; here it then falls back to MPICH's rule everywhere.
const detail::RuleSet& table() {
  static const detail::ParsedRules parsed =
      detail::parse_rules(automatic_table(), "auto table", true);
  return parsed.rules;
}

// A node-aware level's choice: the table's where it names a flat leancast algorithm. A
// level cannot be the library's broadcast (it runs on leancast's own sub-communicator
// schedule) nor node-aware again, so where the table says mpi, node-aware or nothing, the
// level follows MPICH's documented selection: the user asked for leancast's node-aware
// broadcast, and that is the best-known schedule without a measurement.
LevelSpec flat_choice(int procs, std::uint64_t bytes, int ranks_per_node) {
  const AlgorithmSpec chosen = select_automatic(procs, bytes, ranks_per_node);
  if (chosen.algorithm == Algorithm::node_aware || chosen.algorithm == Algorithm::mpi) {
    return AlgorithmSpec(select_mpich(procs, bytes)).level();
  }
  return chosen.level();
}

}  // namespace

std::string_view automatic_table() { return detail::kAutomaticTable; }

Algorithm select_mpich(int procs, std::uint64_t bytes) {
  if (bytes < kShortMessageBytes || procs < kMinProcs) return Algorithm::binomial;
  if (bytes < kLongMessageBytes && std::has_single_bit(static_cast<unsigned>(procs))) {
    return Algorithm::scatter_doubling;
  }
  return Algorithm::scatter_ring_tuned;
}

AlgorithmSpec select_automatic(int procs, std::uint64_t bytes, int ranks_per_node,
                               const detail::Configuration& configuration) {
  if (procs <= 1) return Algorithm::linear;  // nothing to send: name the plainest algorithm
  const detail::Rule* rule = table().match(procs, bytes, ranks_per_node, configuration);
  if (rule == nullptr || rule->algorithm.algorithm == Algorithm::automatic) return Algorithm::mpi;
  // A rule measured against the library's defaults says nothing about a broadcast the user
  // configured (coll sm forced, a tuned rules file): another broadcast.
  if (!configuration.empty() && rule->configured.empty()) return Algorithm::mpi;
  // A rule measured on one node claims ppn as wide as its procs ("procs=12-16 ppn=12-16"),
  // which also matches 16 ranks on nodes of 12; shm and cma run within one node only, and
  // nothing was measured across nodes.
  if (uses_shared_memory(rule->algorithm) && ranks_per_node < procs) return Algorithm::mpi;
  return rule->algorithm;
}

AlgorithmSpec resolve_automatic(const AlgorithmSpec& spec, const BcastShape& shape,
                                const detail::Configuration& configuration) {
  AlgorithmSpec runs = spec.algorithm == Algorithm::automatic
                           ? select_automatic(shape.procs, shape.bytes,
                                              node_counts(shape).ranks_per_node, configuration)
                           : spec;
  if (spec.algorithm == Algorithm::automatic && spec.executor && !runs.executor &&
      runs.algorithm != Algorithm::mpi) {
    runs.executor = spec.executor;
  }
  if (runs.algorithm != Algorithm::node_aware) return runs;
  const NodeCounts counts = node_counts(shape);
  if (runs.between_nodes.algorithm == Algorithm::automatic) {
    runs.between_nodes = flat_choice(counts.nodes, shape.bytes, 1);
  }
  if (runs.within_nodes.algorithm == Algorithm::automatic) {
    runs.within_nodes = flat_choice(counts.ranks_per_node, shape.bytes, counts.ranks_per_node);
  }
  return runs;
}

}  // namespace leancast
