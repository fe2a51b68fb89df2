// pipeline-binary-tree: a binary tree on relative ranks with segment pipelining: a rank
// receives segment s from its parent while it sends segment s - 1 to both children. With
// S segments it takes floor(log2 P) + S - 1 rounds; an inner rank sends every byte twice.
//
// The tree is laid out in preorder: every subtree holds a contiguous range of relative
// ranks, its root first, then its left subtree (the larger half), then its right. MPI
// launchers place ranks on nodes in blocks, so only the few edges at range boundaries
// cross nodes. (A heap layout, children 2q + 1 and 2q + 2, crosses nodes on most edges,
// and all of a node's ranks then share its network interface: on the hornet model at
// P = 64 that made the pipeline 4.5 times slower than this layout.)
#include "algorithms.hpp"
#include "pipelined_tree.hpp"
#include "ranks.hpp"

namespace leancast::detail {

namespace {

// Walks down from the root to relative rank q through the nested ranges.
TreePlace preorder_place(int q, int procs) {
  TreePlace place;
  int first = 0, size = procs;
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

}  // namespace

RankSchedule pipeline_binary_tree_schedule(const BcastShape& shape, int rank,
                                           std::uint64_t segment_bytes) {
  const int q = relative_rank(rank, shape.root, shape.procs);
  return pipelined_tree(shape, rank, segment_bytes, preorder_place(q, shape.procs));
}

}  // namespace leancast::detail
