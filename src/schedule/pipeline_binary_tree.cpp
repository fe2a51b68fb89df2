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

RankSchedule pipeline_binary_tree_schedule(const BcastShape& shape, int rank,
                                           std::uint64_t segment_bytes) {
  const int q = relative_rank(rank, shape.root, shape.procs);
  return pipelined_tree(shape, rank, segment_bytes, preorder_binary_place(q, 0, shape.procs, -1));
}

}  // namespace leancast::detail
