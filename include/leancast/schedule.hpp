// Schedules as data: what one rank sends and receives, round by round. MPI-free.
//
// A broadcast of `bytes` bytes is cut into equal blocks (BlockLayout), one layout per phase
// (most algorithms use one for all phases; a node-aware broadcast composes two algorithms
// whose blocks differ). A rank's schedule is a list of Transfers. Each Transfer names a
// peer, a round and a contiguous span of its phase's blocks, and may repeat every
// `round_stride` rounds with the block index advancing by a stride (modulo the block
// count): one Transfer then describes a whole ring phase or a pipeline, which keeps a
// rank's schedule O(number of phases) and lets the traffic analyzer total P = 100000
// without expanding P^2 messages.
//
// Rounds: a send in round r may only carry blocks the rank held before round r, and the
// transfers between one ordered pair of ranks are matched in the order they are listed
// (expand() orders by round, stably). The round-by-round executor runs exactly that; the
// dataflow executor (the default) starts each transfer as soon as its bytes are held and
// relies on the same pair order; the verifier checks both, and the cost model plays the
// dataflow rule.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <leancast/algorithm.hpp>

// What this header declares is leancast's exported API (the rest is hidden).
#pragma GCC visibility push(default)

namespace leancast {

// Which node each rank runs on: node_of[rank], any integers (equal = same node).
using NodeMap = std::vector<int>;

struct BcastShape {
  int procs = 1;
  int root = 0;
  std::uint64_t bytes = 0;
  // The ranks' nodes, for the node-aware algorithm and auto's ranks-per-node rules; null:
  // unknown, every rank on one node. Shared, so that shapes copy cheaply.
  std::shared_ptr<const NodeMap> nodes = nullptr;
};

// Nodes laid out in blocks: rank r on node r / ranks_per_node (as launchers place ranks).
std::shared_ptr<const NodeMap> block_nodes(int procs, int ranks_per_node);

struct NodeCounts {
  int nodes = 1;           // distinct nodes
  int ranks_per_node = 1;  // ranks on the most populated node: what auto and ppn= rules see
};
// Counted from the shape's node map; without one, all procs ranks on one node.
NodeCounts node_counts(const BcastShape& shape);

struct ByteRange {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  friend bool operator==(const ByteRange&, const ByteRange&) = default;
};

// `total_bytes` cut into `block_count` blocks of ceil(total / count) bytes (at least 1):
// block i covers [i * block_bytes, (i + 1) * block_bytes) clipped to the buffer, so the
// blocks past the end are empty (MPICH's scatter_size arithmetic).
class BlockLayout {
 public:
  BlockLayout() = default;
  BlockLayout(std::uint64_t total_bytes, std::uint64_t block_count);

  std::uint64_t total_bytes() const { return total_; }
  std::uint64_t block_bytes() const { return block_bytes_; }
  std::uint64_t block_count() const { return count_; }

  // Byte offset where block `block` starts (clipped to the buffer); valid for 0..count.
  std::uint64_t offset_of(std::uint64_t block) const;
  // Bytes of blocks [first, first + span); the span must not pass block_count.
  ByteRange range(std::uint64_t first, std::uint64_t span) const;
  // Bytes of `count` consecutive blocks starting at `first`, wrapping past the last block.
  std::uint64_t cyclic_bytes(std::uint64_t first, std::uint64_t count) const;

 private:
  std::uint64_t total_ = 0;
  std::uint64_t count_ = 1;
  std::uint64_t block_bytes_ = 1;
};

enum class Direction : std::uint8_t { send, recv };

struct Transfer {
  Direction direction = Direction::send;
  int peer = 0;                    // absolute rank in the communicator
  std::uint32_t round = 0;         // first round
  std::uint32_t repeat = 1;        // rounds round, round + round_stride, ...
  std::uint32_t round_stride = 1;  // rounds between repetitions (>= 1)
  std::uint64_t first_block = 0;   // first block of the first repetition
  std::uint64_t block_span = 1;    // blocks per repetition (never wraps)
  std::int64_t block_stride = 0;   // first block advances by this per repetition (mod count)
  std::uint8_t phase = 0;          // index into RankSchedule::phases

  // First block of repetition k (0 <= k < repeat).
  std::uint64_t first_block_at(std::uint32_t k, std::uint64_t block_count) const;
  // Round of repetition k.
  std::uint32_t round_at(std::uint32_t k) const { return round + k * round_stride; }
  // One past the round of the last repetition.
  std::uint32_t end_round() const { return round_at(repeat - 1) + 1; }
};

// How a phase's transfers travel. Through messages: each send is a point-to-point message
// to its peer. Through shared memory (the shm algorithm): the ranks share a window, and the
// sends of one block range to several peers are one copy into the window, which every one
// of those peers copies out; the transfers still say who gets which bytes from whom, so
// the verifier and the analyzer read them as they read messages. Through cross memory (the
// cma algorithm): a receive is a copy the receiver makes straight from its peer's buffer
// (process_vm_readv), and a send is keeping that buffer until the peer is done. Written
// through cross memory (cma-split's second phase): a send is a copy the sender makes
// straight into its peer's buffer (process_vm_writev), and a receive is waiting for it.
enum class Medium : std::uint8_t { messages, shared_memory, cross_memory, cross_memory_write };

// Whether transfers of `medium` are copies the kernel makes between processes (cross-memory
// attach, read or written): a system call each.
constexpr bool through_kernel(Medium medium) {
  return medium == Medium::cross_memory || medium == Medium::cross_memory_write;
}

struct Phase {
  std::string
      name;  // "bcast", "scatter", "allgather", "pipeline", "inter:bcast", "intra:pipeline", ...
  BlockLayout layout;  // what the phase's block indices mean
  Medium medium = Medium::messages;
};

struct RankSchedule {
  int rank = 0;
  std::vector<Phase> phases;
  std::vector<Transfer> transfers;
  // The layout of phase `phase` (the first phase's where there is none, in empty schedules).
  const BlockLayout& layout(std::uint8_t phase = 0) const;
};

// One transfer of one round, with its bytes resolved.
struct Operation {
  std::uint32_t round = 0;
  Direction direction = Direction::send;
  int peer = 0;
  ByteRange bytes;
  std::uint64_t first_block = 0;
  std::uint64_t block_span = 0;
  std::uint8_t phase = 0;
};

// The schedule of `rank` for one broadcast of a concrete algorithm: auto (at any level) is
// policy, resolved first (src/select/automatic.hpp). Requires 1 <= procs, 0 <= root,
// rank < procs, and a node map (if any) of procs entries; bytes == 0 gives an empty
// schedule. mpi has no schedule, and auto is not resolved here: std::invalid_argument. A plain
// Algorithm converts to its spec with the default parameter; a bad parameter (0, a radix below 2)
// throws std::invalid_argument.
RankSchedule make_schedule(const AlgorithmSpec& algorithm, const BcastShape& shape, int rank);

// Every repetition of every transfer, ordered by round (stable within a round).
std::vector<Operation> expand(const RankSchedule& schedule);

}  // namespace leancast

#pragma GCC visibility pop
