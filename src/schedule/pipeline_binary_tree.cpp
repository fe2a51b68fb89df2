// pipeline-binary-tree: the heap-shaped binary tree on relative ranks (q's children are
// 2q + 1 and 2q + 2) with segment pipelining: a rank receives segment s from its parent
// while it sends segment s - 1 to both children. With S segments it takes
// floor(log2 P) + S - 1 rounds; an inner rank sends every byte twice.
#include <bit>

#include "algorithms.hpp"
#include "pipelined_tree.hpp"
#include "ranks.hpp"

namespace leancast::detail {

RankSchedule pipeline_binary_tree_schedule(const BcastShape& shape, int rank,
                                           std::uint64_t segment_bytes) {
  const int q = relative_rank(rank, shape.root, shape.procs);
  TreePlace place{.parent = q == 0 ? -1 : (q - 1) / 2,
                  .depth = static_cast<std::uint32_t>(std::bit_width(unsigned(q) + 1) - 1),
                  .children = {}};
  for (int child : {2 * q + 1, 2 * q + 2}) {
    if (child < shape.procs) place.children.push_back(child);
  }
  return pipelined_tree(shape, rank, segment_bytes, place);
}

}  // namespace leancast::detail
