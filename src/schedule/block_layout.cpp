#include <algorithm>
#include <map>
#include <stdexcept>

#include <leancast/schedule.hpp>

namespace leancast {

std::shared_ptr<const NodeMap> block_nodes(int procs, int ranks_per_node) {
  auto nodes = std::make_shared<NodeMap>(static_cast<std::size_t>(std::max(procs, 0)));
  for (int rank = 0; rank < procs; ++rank) (*nodes)[rank] = rank / std::max(ranks_per_node, 1);
  return nodes;
}

NodeCounts node_counts(const BcastShape& shape) {
  if (!shape.nodes) return {1, shape.procs};
  std::map<int, int> count;
  int most = 0;
  for (int node : *shape.nodes) most = std::max(most, ++count[node]);
  return {static_cast<int>(count.size()), most};
}

BlockLayout::BlockLayout(std::uint64_t total_bytes, std::uint64_t block_count)
    : total_(total_bytes), count_(std::max<std::uint64_t>(block_count, 1)) {
  block_bytes_ = std::max<std::uint64_t>((total_ + count_ - 1) / count_, 1);
}

std::uint64_t BlockLayout::offset_of(std::uint64_t block) const {
  // block_bytes_ * block cannot overflow: block <= count and count * block_bytes < total + count.
  return std::min(block * block_bytes_, total_);
}

ByteRange BlockLayout::range(std::uint64_t first, std::uint64_t span) const {
  if (first > count_ || span > count_ - first) {
    throw std::out_of_range("BlockLayout::range: blocks past the end");
  }
  const std::uint64_t begin = offset_of(first);
  return ByteRange{begin, offset_of(first + span) - begin};
}

std::uint64_t BlockLayout::cyclic_bytes(std::uint64_t first, std::uint64_t count) const {
  const std::uint64_t rounds = count / count_;
  std::uint64_t rest = count % count_;
  std::uint64_t bytes = rounds * total_;
  first %= count_;
  const std::uint64_t head = std::min(rest, count_ - first);
  bytes += range(first, head).length;
  rest -= head;
  if (rest > 0) bytes += range(0, rest).length;
  return bytes;
}

std::uint64_t Transfer::first_block_at(std::uint32_t k, std::uint64_t block_count) const {
  const auto count = static_cast<std::int64_t>(block_count);
  const std::int64_t shifted = (block_stride * static_cast<std::int64_t>(k)) % count;
  return static_cast<std::uint64_t>(
      ((static_cast<std::int64_t>(first_block) + shifted) % count + count) % count);
}

const BlockLayout& RankSchedule::layout(std::uint8_t phase) const {
  static const BlockLayout kNone;
  return phase < phases.size() ? phases[phase].layout : kNone;
}

std::vector<Operation> expand(const RankSchedule& schedule) {
  std::vector<Operation> ops;
  for (const Transfer& t : schedule.transfers) {
    const BlockLayout& layout = schedule.layout(t.phase);
    for (std::uint32_t k = 0; k < t.repeat; ++k) {
      const std::uint64_t first = t.first_block_at(k, layout.block_count());
      ops.push_back(Operation{
          .round = t.round_at(k),
          .direction = t.direction,
          .peer = t.peer,
          .bytes = layout.range(first, t.block_span),
          .first_block = first,
          .block_span = t.block_span,
          .phase = t.phase,
      });
    }
  }
  std::stable_sort(ops.begin(), ops.end(),
                   [](const Operation& a, const Operation& b) { return a.round < b.round; });
  return ops;
}

}  // namespace leancast
