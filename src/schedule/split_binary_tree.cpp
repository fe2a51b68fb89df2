// split-binary-tree: Open MPI's split binary tree broadcast (coll_tuned bcast algorithm 4,
// ompi_coll_base_bcast_intra_split_bintree). The message is split in two halves; the
// first half is pipelined in segments down the left subtree of the root, the second half
// down the right subtree, both at once; then each rank of the left subtree swaps halves
// with its partner in the right one (left rank 1 + i with right rank L + 1 + i), and where
// the left subtree has one rank more (P even), the root sends that last left rank the
// second half itself. Every byte leaves the root once, an inner rank sends its half to two
// children plus once to its partner: 1.5 n per inner rank against the binary tree's 2 n.
//
// Both subtrees are preorder binary trees over contiguous ranges of relative ranks (left:
// 1 .. L, L = ceil((P - 1) / 2); right: L + 1 .. P - 1), as in pipeline-binary-tree, so
// few edges cross nodes. Rounds: a rank at depth d (the subtrees' roots have depth 1)
// receives segment s of its half in round d - 1 + s; the swap is in round D + H - 1, once
// the deepest rank (D = bit_width(L)) holds all H segments of the larger half.
#include <algorithm>
#include <bit>

#include "pipelined_tree.hpp"

namespace leancast::detail {

RankSchedule split_binary_tree_schedule(const BcastShape& shape, int rank,
                                        std::uint64_t segment_bytes) {
  // At least two segments, one per half (the second may be empty for a 1-byte message).
  const std::uint64_t segments =
      std::max<std::uint64_t>(segment_count(shape.bytes, segment_bytes), 2);
  const std::uint64_t half = (segments + 1) / 2;  // segments [0, half) left, [half, S) right
  ScheduleBuilder out(shape, rank, segments, {"pipeline", "exchange"});
  const int m = shape.procs - 1;  // non-root ranks
  const int left = (m + 1) / 2, right = m - left;
  const auto swap_round =
      static_cast<std::uint32_t>(std::bit_width(static_cast<unsigned>(left)) + half - 1);
  const int q = out.me();
  if (q == 0) {
    add_tree_pipeline(out, {.parent = -1, .depth = 0, .children = {1}}, 0, half);
    if (right > 0) {
      add_tree_pipeline(out, {.parent = -1, .depth = 0, .children = {left + 1}}, half,
                        segments - half);
    }
    if (left > right) out.send(1, swap_round, left, half, segments - half);
    return out.finish();
  }
  if (q <= left) {
    add_tree_pipeline(out, preorder_binary_place(q, 1, left, 0), 0, half);
    const int i = q - 1;
    if (i < right) {
      out.send(1, swap_round, left + 1 + i, 0, half);
      out.recv(1, swap_round, left + 1 + i, half, segments - half);
    } else {
      out.recv(1, swap_round, 0, half, segments - half);  // the extra left rank
    }
  } else {
    add_tree_pipeline(out, preorder_binary_place(q, left + 1, right, 0), half, segments - half);
    const int partner = q - left;  // left rank 1 + i for right rank left + 1 + i
    out.recv(1, swap_round, partner, 0, half);
    out.send(1, swap_round, partner, half, segments - half);
  }
  return out.finish();
}

}  // namespace leancast::detail
