#include "binomial_tree.hpp"

#include <algorithm>
#include <bit>

#include "ranks.hpp"

namespace leancast::detail {

namespace {
std::uint32_t round_of_mask(int procs, int mask) {
  return static_cast<std::uint32_t>(ceil_log2(procs) - 1 - std::countr_zero(unsigned(mask)));
}
// The largest mask q may send with: its own lowest bit, or all of the tree for the root.
int span_of(int procs, int q) { return q == 0 ? ceil_pow2(procs) : lowest_bit(q); }
}  // namespace

int binomial_rounds(int procs) { return ceil_log2(procs); }

int binomial_parent(int q) { return q - lowest_bit(q); }

TreeEdge binomial_parent_edge(int procs, int q) {
  const int mask = lowest_bit(q);
  return TreeEdge{.child = q, .mask = mask, .round = round_of_mask(procs, mask)};
}

std::vector<TreeEdge> binomial_child_edges(int procs, int q) {
  std::vector<TreeEdge> edges;
  for (int mask = span_of(procs, q) / 2; mask > 0; mask /= 2) {
    if (q + mask < procs) edges.push_back({q + mask, mask, round_of_mask(procs, mask)});
  }
  return edges;
}

int binomial_subtree_size(int procs, int q) { return std::min(span_of(procs, q), procs - q); }

}  // namespace leancast::detail
