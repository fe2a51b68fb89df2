#include "pipelined_tree.hpp"

#include <algorithm>

namespace leancast::detail {

std::uint64_t segment_count(std::uint64_t bytes, std::uint64_t segment_bytes) {
  return std::clamp<std::uint64_t>((bytes + segment_bytes - 1) / segment_bytes, 1, kMaxSegments);
}

RankSchedule pipelined_tree(const BcastShape& shape, int rank, std::uint64_t segment_bytes,
                            const TreePlace& place) {
  const std::uint64_t segments = segment_count(shape.bytes, segment_bytes);
  ScheduleBuilder out(shape, rank, segments, {"pipeline"});
  add_tree_pipeline(out, place, 0, segments);
  return out.finish();
}

void add_tree_pipeline(ScheduleBuilder& out, const TreePlace& place, std::uint64_t first,
                       std::uint64_t count) {
  const auto repeat = static_cast<std::uint32_t>(count);
  if (place.parent >= 0) out.recv_run(0, place.depth - 1, repeat, place.parent, first, 1);
  for (int child : place.children) out.send_run(0, place.depth, repeat, child, first, 1);
}

TreePlace preorder_binary_place(int q, int first, int size, int top) {
  TreePlace place{.parent = top, .depth = top < 0 ? 0u : 1u, .children = {}};
  while (q != first) {
    const int left = size / 2;  // ceil((size - 1) / 2): the left subtree is the larger
    place.parent = first;
    ++place.depth;
    if (q <= first + left) {
      first += 1;
      size = left;
    } else {
      first += 1 + left;
      size -= 1 + left;
    }
  }
  const int left = size / 2, right = size - 1 - left;
  if (left > 0) place.children.push_back(first + 1);
  if (right > 0) place.children.push_back(first + 1 + left);
  return place;
}

}  // namespace leancast::detail
