// two-tree (after Sanders, Speck and Traeff): the segments split in two halves, each
// pipelined down its own binary tree over the non-root ranks, both at once. The trees are
// in-order trees over positions 0 .. m - 1 (position = relative rank - 1, m = P - 1); the
// second is the first with positions mirrored (m even) or shifted by one (m odd), so that
// the leaves of one are inner nodes of the other (exactly for P = 2^h, mostly otherwise):
// a rank forwards in about one tree, so the two halves do not queue behind each other at
// its send port. The root feeds each tree's root. Unlike the paper's version, both trees
// run in the same consecutive rounds instead of alternating, colour-scheduled steps, so a
// rank receives two segments per round.
#include "algorithms.hpp"
#include "pipelined_tree.hpp"
#include "ranks.hpp"

namespace leancast::detail {

namespace {

// Relative rank of position p (-1: the broadcast's root, relative rank 0).
int rank_of(int position) { return position + 1; }

// Where position p sits in the in-order tree over [0, m): the middle of a range is its root.
TreePlace in_order_place(int m, int p) {
  TreePlace place{.parent = -1, .depth = 1, .children = {}};
  int low = 0, high = m;
  while (true) {
    const int middle = low + (high - low) / 2;
    if (p == middle) {
      if (low < middle) place.children.push_back(low + (middle - low) / 2);
      if (middle + 1 < high) place.children.push_back(middle + 1 + (high - middle - 1) / 2);
      return place;
    }
    place.parent = middle;
    ++place.depth;
    if (p < middle) {
      high = middle;
    } else {
      low = middle + 1;
    }
  }
}

// The second tree is the first one's shape at image(p): mirrored for even m, shifted for
// odd m (a mirror would map the first tree's leaves, its even positions, onto leaves).
int image(int m, int p) { return m % 2 == 0 ? m - 1 - p : (p + 1) % m; }
int preimage(int m, int x) { return m % 2 == 0 ? m - 1 - x : (x + m - 1) % m; }

// Position p's place in the second tree: the first tree's place of its image, mapped back.
TreePlace second_tree_place(int m, int p) {
  TreePlace place = in_order_place(m, image(m, p));
  if (place.parent >= 0) place.parent = preimage(m, place.parent);
  for (int& child : place.children) child = preimage(m, child);
  return place;
}

// Positions to relative ranks; the trees' roots receive from the broadcast's root.
TreePlace as_ranks(TreePlace place) {
  place.parent = place.parent < 0 ? 0 : rank_of(place.parent);
  for (int& child : place.children) child = rank_of(child);
  return place;
}

}  // namespace

RankSchedule two_tree_schedule(const BcastShape& shape, int rank, std::uint64_t segment_bytes) {
  const std::uint64_t segments = segment_count(shape.bytes, segment_bytes);
  ScheduleBuilder out(shape, rank, segments, {"pipeline"});
  const std::uint64_t first_half = (segments + 1) / 2;
  const int m = shape.procs - 1;
  const int q = out.me();
  if (q == 0) {
    // The in-order tree's root is the middle position.
    const TreePlace feeds_first{.parent = -1, .depth = 0, .children = {rank_of(m / 2)}};
    const TreePlace feeds_second{
        .parent = -1, .depth = 0, .children = {rank_of(preimage(m, m / 2))}};
    add_tree_pipeline(out, feeds_first, 0, first_half);
    add_tree_pipeline(out, feeds_second, first_half, segments - first_half);
    return out.finish();
  }
  add_tree_pipeline(out, as_ranks(in_order_place(m, q - 1)), 0, first_half);
  add_tree_pipeline(out, as_ranks(second_tree_place(m, q - 1)), first_half, segments - first_half);
  return out.finish();
}

}  // namespace leancast::detail
