// The registry: the single list of leancast's algorithms. A new algorithm is a new file
// with its schedule function (src/schedule/NAME.cpp, built by the glob in CMakeLists.txt),
// one value of the public Algorithm enum, and one row in kRows below. Everything else is
// derived from the rows: names and aliases, parsing and the parameter's range check
// (algorithm_specs.cpp), the default, concrete_algorithms(), algorithm_names(), the tools' help
// texts and `leancast-plan --list-algorithms` (which scripts/demo.sh uses), and the tests, which
// iterate the registry.
#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include <leancast/schedule.hpp>

#include "algorithms.hpp"

namespace leancast::detail {

// 64 KiB segments: at MPI's usual 1-5 us per message and ~10 GB/s, a 64 KiB segment costs
// a few times the latency, so pipelining pays for its extra messages from a few hundred KiB
// on (Open MPI's tuned chain and pipeline pick segments of this order).
constexpr std::uint64_t kDefaultSegmentBytes = 64 << 10;
// A segment is one message; the executor splits messages above 1 GiB anyway, so a larger
// segment means nothing more (and 2^30 keeps every segment count far from overflow).
constexpr std::uint64_t kMaxSegmentBytes = std::uint64_t{1} << 30;
// Radix 4: half the binomial tree's depth for three concurrent sends per node and level,
// the short-message trade-off when a node's injection rate is not the bottleneck.
constexpr std::uint64_t kDefaultRadix = 4;
// Keeps the k-nomial arithmetic (k^levels) far from overflow; a radix >= P is linear anyway.
constexpr std::uint64_t kMaxRadix = std::uint64_t{1} << 20;
// circulant's block count: the pipelines' segment cap (kMaxSegments), so that a rank's
// expanded program stays bounded (2^32 blocks took 0.18 s to plan 4 KB before this check).
constexpr std::uint64_t kMaxBlocks = std::uint64_t{1} << 20;
// shm's segment is a slot of its shared window (src/mpi/run/shared_window.hpp), which holds
// 8 of the largest: 1 MiB keeps the window at a few MiB per node. 64 KiB measured best
// from 1 MiB on at P = 2 and 4 here (docs/algorithms.md#shm); below, one slot is one
// segment whatever its size. 8 KiB is tuned too: at 16 KiB, P = 2, it pipelines a broadcast in
// two segments, and was the one shm at or above Open MPI's coll sm under both methods
// (evidence/within-node-2core.jsonl.gz).
constexpr std::uint64_t kDefaultShmSegmentBytes = 64 << 10;
constexpr std::uint64_t kMaxShmSegmentBytes = std::uint64_t{1} << 20;
// cma's segment is one process_vm_readv, which pins and copies the source's pages itself:
// a segment pays a system call (about a microsecond), so segments are larger than shm's
// slots; they only matter where a reader's source is not the root (P > 9) or packs.
constexpr std::uint64_t kDefaultCmaSegmentBytes = 256 << 10;
// cma-split's root holds the whole message from the start: up to P = 9 a segment is only a
// system call more per part (1 MiB: 3-8 % faster than 256 KiB at P = 2, docs/algorithms.md).
constexpr std::uint64_t kDefaultCmaSplitSegmentBytes = 1 << 20;

struct Row {
  AlgorithmInfo info;
  ScheduleFunction schedule = nullptr;  // null: auto, mpi, node-aware (make_schedule)
};

// A row's schedule: the function `name` defined in the algorithm's own file, declared by
// the row itself (a block-scope declaration names leancast::detail::name, the namespace
// this table is in), so that a new algorithm needs no header line.
#define LEANCAST_SCHEDULE(name)                                    \
  [](const BcastShape& shape, int rank, std::uint64_t parameter) { \
    RankSchedule name(const BcastShape&, int, std::uint64_t);      \
    return name(shape, rank, parameter);                           \
  }
// The same for a schedule function without a parameter.
#define LEANCAST_SCHEDULE_WITHOUT_PARAMETER(name)        \
  [](const BcastShape& shape, int rank, std::uint64_t) { \
    RankSchedule name(const BcastShape&, int);           \
    return name(shape, rank);                            \
  }

using enum ParameterKind;

// {algorithm, name, alias, parameter kind, default, min, max, description, concrete, tuned,
// within_node (written only where true)}, schedule. `tuned`: what tuners measure (the parameters
// that won somewhere on the models and the real node, docs/auto.md); hypercube, split-binary-tree
// and scatter-ring never did. Rows in the order of concrete_algorithms() and of the help texts.
constexpr Row kRows[] = {
    {{Algorithm::automatic, "auto", "", none, 0, 0, 0,
      "leancast's tuning table, else the MPI library's MPI_Bcast (docs/auto.md)", false, ""}},
    {{Algorithm::linear, "linear", "", none, 0, 0, 0,
      "the root sends the buffer to every rank, all sends at once", true, "linear"},
     LEANCAST_SCHEDULE_WITHOUT_PARAMETER(linear_schedule)},
    {{Algorithm::binomial, "binomial", "", none, 0, 0, 0,
      "MPICH's binomial tree, far subtrees first", true, "binomial"},
     LEANCAST_SCHEDULE_WITHOUT_PARAMETER(binomial_schedule)},
    {{Algorithm::hypercube, "hypercube", "", none, 0, 0, 0,
      "round i: relative ranks below 2^i send to rank + 2^i", true, ""},
     LEANCAST_SCHEDULE_WITHOUT_PARAMETER(hypercube_schedule)},
    {{Algorithm::scatter_doubling, "scatter-doubling", "", none, 0, 0, 0,
      "binomial scatter + recursive-doubling allgather", true, "scatter-doubling"},
     LEANCAST_SCHEDULE_WITHOUT_PARAMETER(scatter_doubling_schedule)},
    {{Algorithm::scatter_ring, "scatter-ring", "native", none, 0, 0, 0,
      "binomial scatter + enclosed ring allgather (MPICH, the paper's native)", true, ""},
     LEANCAST_SCHEDULE_WITHOUT_PARAMETER(scatter_ring_schedule)},
    {{Algorithm::scatter_ring_tuned, "scatter-ring-tuned", "opt", none, 0, 0, 0,
      "binomial scatter + non-enclosed ring: no chunk a rank holds (the paper's opt)", true,
      "scatter-ring-tuned"},
     LEANCAST_SCHEDULE_WITHOUT_PARAMETER(scatter_ring_tuned_schedule)},
    {{Algorithm::pipeline_chain, "pipeline-chain", "", segment_bytes, kDefaultSegmentBytes, 1,
      kMaxSegmentBytes, "root -> root+1 -> ..., the message in pipelined segments", true,
      "pipeline-chain:16K,pipeline-chain"},
     LEANCAST_SCHEDULE(pipeline_chain_schedule)},
    {{Algorithm::pipeline_binary_tree, "pipeline-binary-tree", "", segment_bytes,
      kDefaultSegmentBytes, 1, kMaxSegmentBytes,
      "binary tree in preorder layout, the segments pipelined", true,
      "pipeline-binary-tree:16K,pipeline-binary-tree"},
     LEANCAST_SCHEDULE(pipeline_binary_tree_schedule)},
    {{Algorithm::split_binary_tree, "split-binary-tree", "", segment_bytes, kDefaultSegmentBytes, 1,
      kMaxSegmentBytes, "a half pipelined down each of the root's subtrees, then swapped", true,
      ""},
     LEANCAST_SCHEDULE(split_binary_tree_schedule)},
    {{Algorithm::two_tree, "two-tree", "", segment_bytes, kDefaultSegmentBytes, 1, kMaxSegmentBytes,
      "half of the segments pipelined down each of two binary trees", true,
      "two-tree:16K,two-tree"},
     LEANCAST_SCHEDULE(two_tree_schedule)},
    {{Algorithm::knomial, "knomial", "", radix, kDefaultRadix, 2, kMaxRadix,
      "the binomial tree in base RADIX", true, "knomial:8"},
     LEANCAST_SCHEDULE(knomial_schedule)},
    // 0 blocks, the default: as many as 64 KiB segments (circulant.cpp).
    {{Algorithm::circulant, "circulant", "", block_count, 0, 1, kMaxBlocks,
      "Traeff's round-optimal schedule of BLOCKS blocks on a circulant graph", true, "circulant"},
     LEANCAST_SCHEDULE(circulant_schedule)},
    {{Algorithm::shm, "shm", "", segment_bytes, kDefaultShmSegmentBytes, 1, kMaxShmSegmentBytes,
      "within one node: the root copies each segment into shared memory once, all copy out", true,
      "shm:8K,shm:16K,shm:64K", true},
     LEANCAST_SCHEDULE(shm_schedule)},
    {{Algorithm::cma, "cma", "", segment_bytes, kDefaultCmaSegmentBytes, 1, kMaxSegmentBytes,
      "within one node: each reader copies once straight from its source's buffer (CMA)", true,
      "cma", true},
     LEANCAST_SCHEDULE(cma_schedule)},
    {{Algorithm::cma_split, "cma-split", "", segment_bytes, kDefaultCmaSplitSegmentBytes, 1,
      kMaxSegmentBytes,
      "within one node: cma, the root writing a share of each segment into its readers (CMA)", true,
      "cma-split", true},
     LEANCAST_SCHEDULE(cma_split_schedule)},
    // Composes two schedules by its levels, not a parameter: make_schedule calls it.
    {{Algorithm::node_aware, "node-aware", "", levels, 0, 0, 0,
      "BETWEEN among one leader per node, then WITHIN each node (default auto/auto)", true,
      // The pairs auto's simulated nodes section measured (scripts/auto-table.sh; two won
      // there) and one with shm within a real node; linear within a node never won.
      "node-aware:binomial/binomial,node-aware:knomial:8/binomial,"
      "node-aware:pipeline-binary-tree:16K/binomial,"
      "node-aware:pipeline-chain:16K/pipeline-chain:16K,node-aware:two-tree/pipeline-chain,"
      "node-aware:two-tree:16K/two-tree:16K,node-aware:scatter-ring-tuned/pipeline-chain:16K,"
      "node-aware:binomial/shm:64K"}},
    {{Algorithm::mpi, "mpi", "", none, 0, 0, 0,
      "the MPI library's own MPI_Bcast (PMPI_Bcast); no schedule", false, ""}},
};

#undef LEANCAST_SCHEDULE
#undef LEANCAST_SCHEDULE_WITHOUT_PARAMETER

constexpr std::size_t kRowCount = std::size(kRows);

constexpr auto kInfos = [] {
  std::array<AlgorithmInfo, kRowCount> infos{};
  for (std::size_t i = 0; i < kRowCount; ++i) infos[i] = kRows[i].info;
  return infos;
}();

constexpr std::size_t kConcreteCount =
    std::count_if(std::begin(kRows), std::end(kRows), [](const Row& r) { return r.info.concrete; });

constexpr auto kConcrete = [] {
  std::array<Algorithm, kConcreteCount> concrete{};
  std::size_t n = 0;
  for (const Row& r : kRows) {
    if (r.info.concrete) concrete[n++] = r.info.algorithm;
  }
  return concrete;
}();

// Checked once, at compile time: a concrete row has a schedule (or is node-aware), every
// default lies in its range (circulant's size-dependent 0 aside), names are distinct.
constexpr bool rows_consistent() {
  for (std::size_t i = 0; i < kRowCount; ++i) {
    const AlgorithmInfo& a = kRows[i].info;
    if (a.concrete != (kRows[i].schedule != nullptr || a.parameter == levels)) return false;
    const bool ranged =
        a.parameter == segment_bytes || a.parameter == radix || a.parameter == block_count;
    if (ranged && (a.min_parameter < 1 || a.min_parameter > a.max_parameter)) return false;
    if (ranged && a.default_parameter != 0 &&
        (a.default_parameter < a.min_parameter || a.default_parameter > a.max_parameter)) {
      return false;
    }
    if (ranged && a.default_parameter == 0 && a.parameter != block_count) return false;
    for (std::size_t j = 0; j < i; ++j) {
      const AlgorithmInfo& b = kRows[j].info;
      if (a.algorithm == b.algorithm || a.name == b.name ||
          (!a.alias.empty() && (a.alias == b.name || a.alias == b.alias)) ||
          (!b.alias.empty() && b.alias == a.name)) {
        return false;
      }
    }
  }
  return true;
}
static_assert(rows_consistent(), "kRows: a row contradicts itself or another row");

// Row of each Algorithm value, by the value: row() runs on every broadcast (a scan of the
// rows was ~80 instructions, twice per small shm broadcast). kRowCount marks a value with
// no row.
constexpr auto kRowOf = [] {
  std::array<std::size_t, kRowCount + 1> of{};
  for (std::size_t& i : of) i = kRowCount;
  for (std::size_t i = 0; i < kRowCount; ++i) {
    const auto value = static_cast<std::size_t>(kRows[i].info.algorithm);
    if (value < of.size()) of[value] = i;
  }
  return of;
}();
static_assert(std::count(kRowOf.begin(), kRowOf.end(), kRowCount) == 1,
              "kRows: Algorithm values are not 0..rows-1, one row each");

const Row& row(Algorithm algorithm) {
  const auto value = static_cast<std::size_t>(algorithm);
  if (value < kRowOf.size() && kRowOf[value] < kRowCount) return kRows[kRowOf[value]];
  throw std::invalid_argument("unknown leancast::Algorithm value " +
                              std::to_string(static_cast<int>(algorithm)));
}

// "64K" for segment sizes that are whole K, M or G; else the number.
std::string parameter_text(ParameterKind kind, std::uint64_t value) {
  if (kind == segment_bytes) {
    for (auto [shift, suffix] : {std::pair{30, "G"}, std::pair{20, "M"}, std::pair{10, "K"}}) {
      if (value >= (std::uint64_t{1} << shift) && value % (std::uint64_t{1} << shift) == 0) {
        return std::to_string(value >> shift) + suffix;
      }
    }
  }
  return std::to_string(value);
}

}  // namespace leancast::detail

namespace leancast {

using detail::row;

AlgorithmSpec::AlgorithmSpec(Algorithm a) : algorithm(a), parameter(default_parameter(a)) {}

std::uint64_t default_parameter(Algorithm algorithm) {
  return row(algorithm).info.default_parameter;
}

std::string_view to_string(Algorithm algorithm) { return row(algorithm).info.name; }

bool uses_shared_memory(const AlgorithmSpec& spec) {
  const Algorithm flat =
      spec.algorithm == Algorithm::node_aware ? spec.within_nodes.algorithm : spec.algorithm;
  return row(flat).info.within_node;
}

std::string to_string(const AlgorithmSpec& spec) {
  if (spec.executor) {
    AlgorithmSpec plain = spec;
    plain.executor.reset();
    return to_string(plain) + "@" + to_string(*spec.executor);
  }
  const AlgorithmInfo& a = row(spec.algorithm).info;
  if (a.parameter == ParameterKind::levels) {
    return std::string(a.name) + ":" + to_string(AlgorithmSpec(spec.between_nodes)) + "/" +
           to_string(AlgorithmSpec(spec.within_nodes));
  }
  // circulant's default (0 blocks) depends on the size: the plain name says so.
  if (a.parameter == ParameterKind::none ||
      (a.parameter == ParameterKind::block_count && spec.parameter == 0)) {
    return std::string(a.name);
  }
  return std::string(a.name) + ":" + detail::parameter_text(a.parameter, spec.parameter);
}

AlgorithmSpec AlgorithmSpec::node_aware(const AlgorithmSpec& between, const AlgorithmSpec& within) {
  AlgorithmSpec spec(Algorithm::node_aware);
  spec.between_nodes = between.level();
  spec.within_nodes = within.level();
  return spec;
}

std::span<const Algorithm> concrete_algorithms() { return detail::kConcrete; }

std::span<const AlgorithmInfo> algorithm_registry() { return detail::kInfos; }

const AlgorithmInfo& algorithm_info(Algorithm algorithm) {
  // The element of algorithm_registry(), so that both give one address per row.
  return detail::kInfos[static_cast<std::size_t>(&row(algorithm) - detail::kRows)];
}

detail::ScheduleFunction detail::schedule_function(Algorithm algorithm) {
  return row(algorithm).schedule;
}

}  // namespace leancast
