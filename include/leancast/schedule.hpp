// Schedules as data: what one rank sends and receives, round by round. MPI-free.
//
// A broadcast of `bytes` bytes is cut into equal blocks (BlockLayout). A rank's schedule is
// a list of Transfers. Each Transfer names a peer, a round and a contiguous span of blocks,
// and may repeat over consecutive rounds with the block index advancing by a stride
// (modulo the block count): one Transfer then describes a whole ring phase or a pipeline,
// which keeps a rank's schedule O(number of phases) and lets the traffic analyzer total
// P = 100000 without expanding P^2 messages.
//
// Execution model (MPI executor, analyzer and verifier agree on it): a rank takes its
// rounds in increasing order; within a round all of its transfers may be in flight at
// once, receives posted first; the round completes before the rank's next round. A send
// in round r may only carry blocks the rank held before round r. Transfers between the
// same pair in the same round are matched in the order they are listed.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include <leancast/algorithm.hpp>

namespace leancast {

struct BcastShape {
  int procs = 1;
  int root = 0;
  std::uint64_t bytes = 0;
};

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
  std::uint32_t repeat = 1;        // consecutive rounds round, round + 1, ...
  std::uint64_t first_block = 0;   // first block of the first repetition
  std::uint64_t block_span = 1;    // blocks per repetition (never wraps)
  std::int64_t block_stride = 0;   // first block advances by this per repetition (mod count)
  std::uint8_t phase = 0;          // index into RankSchedule::phases

  // First block of repetition k (0 <= k < repeat).
  std::uint64_t first_block_at(std::uint32_t k, std::uint64_t block_count) const;
};

struct RankSchedule {
  int rank = 0;
  BlockLayout layout;
  std::vector<std::string_view> phases;  // names: "bcast", "scatter", "allgather", ...
  std::vector<Transfer> transfers;
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

// The schedule of `rank` for one broadcast. `automatic` is resolved by select_automatic.
// Requires 1 <= procs, 0 <= root, rank < procs; bytes == 0 gives an empty schedule. A plain
// Algorithm converts to its spec with the default parameter; a bad parameter (0, a radix
// below 2) throws std::invalid_argument.
RankSchedule make_schedule(const AlgorithmSpec& algorithm, const BcastShape& shape, int rank);

// Every repetition of every transfer, ordered by round (stable within a round).
std::vector<Operation> expand(const RankSchedule& schedule);

}  // namespace leancast
