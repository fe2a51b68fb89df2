// MPICH's binomial tree over ranks relative to the root, shared by the binomial
// broadcast and the binomial scatter.
//
// Relative rank q > 0 receives from q - lowest_bit(q); every rank then sends to q + m for
// m = lowest_bit(q) / 2, ..., 2, 1 (the root starts at ceil_pow2(P) / 2) while q + m < P.
// The edge of mask m happens in round ceil_log2(P) - 1 - log2(m), so the far subtrees are
// served first and the whole tree takes ceil_log2(P) rounds.
#pragma once

#include <cstdint>
#include <vector>

namespace leancast::detail {

struct TreeEdge {
  int child = 0;  // relative rank
  int mask = 0;   // child = parent + mask; the child's subtree is [child, child + mask)
  std::uint32_t round = 0;
};

int binomial_rounds(int procs);
// The edge through which relative rank q > 0 receives.
TreeEdge binomial_parent_edge(int procs, int q);
int binomial_parent(int q);
// The edges through which q sends, in round order.
std::vector<TreeEdge> binomial_child_edges(int procs, int q);
// Number of relative ranks in q's subtree: [q, q + subtree_size).
int binomial_subtree_size(int procs, int q);

}  // namespace leancast::detail
