// The broadcast algorithms leancast knows, by name. MPI-free.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

// What this header declares is leancast's exported API (the rest is hidden).
#pragma GCC visibility push(default)

namespace leancast {

enum class Algorithm {
  automatic,           // "auto": the built-in table (data/auto.rules), else the library's MPI_Bcast
  linear,              // root sends to every rank
  binomial,            // MPICH's binomial tree
  hypercube,           // lecture's dimension order: round i, ranks < 2^i send to rank + 2^i
  scatter_doubling,    // binomial scatter + recursive-doubling allgather
  scatter_ring,        // paper's MPI_Bcast_native: binomial scatter + enclosed ring
  scatter_ring_tuned,  // paper's MPI_Bcast_opt: binomial scatter + non-enclosed ring
  mpi,                 // "mpi": the MPI library's own broadcast (PMPI_Bcast); no schedule
  pipeline_chain,      // root -> root+1 -> ..., the message cut into pipelined segments
  pipeline_binary_tree,  // binary tree in preorder layout with the same segment pipelining
  knomial,               // k-ary generalisation of the binomial tree (radix k >= 2)
  two_tree,              // two binary trees, each pipelining half of the segments
  circulant,             // Traeff's round-optimal n-block schedule on a circulant graph
  node_aware,            // one algorithm between node leaders, then one within each node
  split_binary_tree,     // Open MPI's split binary tree: a half down each subtree, then swap
  shm,                   // within one node: the root copies into a shared window, all copy out
  cma,                   // within one node: each reader copies once from its source's buffer
  cma_split,             // cma with the root copying a share of each segment into its readers
  // A new algorithm: one value here (the C++ API names it) and one row in
  // src/schedule/registry.cpp beside its schedule file; everything else is derived.
};

// One level of a node-aware broadcast: a flat algorithm (neither node_aware nor mpi) or
// auto, with its parameter.
struct LevelSpec {
  Algorithm algorithm = Algorithm::automatic;
  std::uint64_t parameter = 0;
  friend auto operator<=>(const LevelSpec&, const LevelSpec&) = default;
};

// How a broadcast's messages run (src/mpi/run/executor.hpp), written after '@': "dataflow" posts
// every transfer whose bytes are there, within the receive and send windows
// (LEANCAST_WINDOW, LEANCAST_SEND_WINDOW); "dataflow:L" only those of rounds at most L past
// the rank's earliest unfinished round (0: the round's transfers, each completing on its
// own); "rounds" posts a round and waits for all of it. docs/algorithms.md#executors says
// what each costs where.
struct ExecutorSpec {
  enum class Kind { dataflow, rounds };
  Kind kind = Kind::dataflow;
  int lookahead = -1;  // dataflow: rounds past the earliest unfinished one; -1: no limit
  friend auto operator<=>(const ExecutorSpec&, const ExecutorSpec&) = default;
};

// "dataflow", "dataflow:1", "rounds".
std::string to_string(const ExecutorSpec& executor);
// Parses what to_string writes; on failure nullopt and, if `error` is given, why.
std::optional<ExecutorSpec> parse_executor_spec(std::string_view text,
                                                std::string* error = nullptr);

// An algorithm with its parameter, written "name:VALUE" ("pipeline-chain:64K", "knomial:8",
// "circulant:32"): the segment size in bytes of the pipelines (K, M, G base 2), the radix
// of knomial, the block count of circulant (0, its default: one block per 64 KiB). A
// node-aware broadcast names its two levels instead, "node-aware:BETWEEN/WITHIN"
// ("node-aware:pipeline-chain:256K/binomial"; default auto/auto). An Algorithm converts
// to its spec with the default parameter; algorithms without a parameter have 0. Any but
// mpi may end in "@EXECUTOR" ("pipeline-chain:64K@dataflow:0"): that executor runs it
// instead of the process's (LEANCAST_EXECUTOR).
struct AlgorithmSpec {
  Algorithm algorithm = Algorithm::automatic;
  std::uint64_t parameter = 0;
  LevelSpec between_nodes;               // node_aware only: among node leaders
  LevelSpec within_nodes;                // node_aware only: from each leader to its node
  std::optional<ExecutorSpec> executor;  // empty: the process's

  AlgorithmSpec() = default;
  AlgorithmSpec(Algorithm a);  // NOLINT: implicit, so every Algorithm is a spec
  AlgorithmSpec(Algorithm a, std::uint64_t p) : algorithm(a), parameter(p) {}
  AlgorithmSpec(LevelSpec level)
      : algorithm(level.algorithm), parameter(level.parameter) {}  // NOLINT
  // node_aware with the given levels (flat algorithms or auto).
  static AlgorithmSpec node_aware(const AlgorithmSpec& between, const AlgorithmSpec& within);
  LevelSpec level() const { return {algorithm, parameter}; }
  friend auto operator<=>(const AlgorithmSpec&, const AlgorithmSpec&) = default;
};

// The parameter an algorithm takes when none is written (0: it takes none).
std::uint64_t default_parameter(Algorithm algorithm);

// "knomial:4", "pipeline-chain:64K"; just the name for algorithms without a parameter; the
// executor after '@' where the spec names one.
std::string to_string(const AlgorithmSpec& spec);

// Parses "name" or "name:VALUE" (names as parse_algorithm), and
// "node-aware:BETWEEN/WITHIN" with each level "name[:VALUE]". On failure returns nullopt
// and, if `error` is given, says why: unknown name, a parameter the algorithm does not
// take, or a bad value (not a number, outside the range of the algorithm's registry row, a
// level that is node-aware or mpi); the text names the algorithm, the value and the range.
std::optional<AlgorithmSpec> parse_algorithm_spec(std::string_view text,
                                                  std::string* error = nullptr);

// User-facing name ("scatter-ring-tuned", "auto", ...).
std::string_view to_string(Algorithm algorithm);

// Accepts the user-facing names, '_' for '-', and the paper's aliases "native" / "opt";
// no parameters (parse_algorithm_spec takes those).
std::optional<Algorithm> parse_algorithm(std::string_view name);

// Every algorithm with a schedule of its own (all but automatic and mpi), in a stable order.
std::span<const Algorithm> concrete_algorithms();

// Why `spec`'s parameter is not valid for its algorithm (outside its registry row's range:
// 0 segment bytes, a radix below 2, 2^32 circulant blocks; a parameter for an algorithm that
// takes none; a node-aware level that is not flat or whose parameter is out of range), or
// "" if it is. The text names the algorithm, the value and the allowed range.
std::string parameter_problem(const AlgorithmSpec& spec);

// Whether `spec` (auto already resolved) moves data through the memory of one node at any
// level: a within-node algorithm (shm, cma, cma-split: the row's `within_node`), or node-aware with
// one within nodes. Such a broadcast needs its ranks (each node's) to share a node and a window of
// shared memory, and the alpha-beta model does not price it.
bool uses_shared_memory(const AlgorithmSpec& spec);

// Comma-separated list of every accepted name (mpi included), for messages; parameters
// are shown as "knomial[:RADIX]".
std::string algorithm_names();

// What the text after "NAME:" means.
enum class ParameterKind { none, segment_bytes, radix, block_count, levels };

// One row of leancast's algorithm registry (src/schedule/registry.cpp), the single list of
// algorithms: every name, parse, check, help text and list of algorithms is derived from it.
struct AlgorithmInfo {
  Algorithm algorithm;
  std::string_view name;
  std::string_view alias;  // another accepted name ("" if none): the paper's "native", "opt"
  ParameterKind parameter = ParameterKind::none;
  std::uint64_t default_parameter = 0;  // what a name without ":VALUE" takes
  // The range a written parameter must lie in (segment_bytes, radix, block_count; 0 and 0
  // otherwise). circulant's default, 0 (one block per 64 KiB), lies outside it.
  std::uint64_t min_parameter = 0;
  std::uint64_t max_parameter = 0;
  std::string_view description;  // one line, for help texts
  bool concrete = false;         // has a schedule of its own: all but auto and mpi
  // The specs tuners measure of this algorithm, comma-separated ("" if none): the parameters
  // that won somewhere (docs/auto.md); for node-aware, the level pairs. Online tuning and
  // leancast-tune (via `leancast-plan --list-algorithms --json`) take their candidates here.
  std::string_view tuned;
  // Moves data through the memory of one node (shm, cma, cma-split), not messages: a level within
  // nodes only, never priced by the model.
  bool within_node = false;
};

// Whether `info` is a flat algorithm: one schedule over all ranks (concrete, not node-aware).
bool is_flat(const AlgorithmInfo& info);

// Every flat algorithm, in the registry's order.
std::vector<Algorithm> flat_algorithms();

// `info.tuned` split at its commas, as written there ("pipeline-chain", not ":64K").
std::vector<std::string_view> tuned_names(const AlgorithmInfo& info);

// The specs tuners measure (the rows' `tuned` lists, parsed), in the registry's order: the
// flat ones, or the node-aware pairs.
std::vector<AlgorithmSpec> tuned_specs(bool node_aware);

// Every row of the registry, in its order (auto first, mpi last).
std::span<const AlgorithmInfo> algorithm_registry();

// The registry row of `algorithm` (std::invalid_argument for a value without one).
const AlgorithmInfo& algorithm_info(Algorithm algorithm);

// "NAME[:PARAMETER]" as help texts write it: "knomial[:RADIX]".
std::string algorithm_usage(const AlgorithmInfo& info);

// One line per algorithm for help texts: usage, description, default and range.
std::string algorithm_help();

}  // namespace leancast

#pragma GCC visibility pop
