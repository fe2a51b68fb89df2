#include "binomial_scatter.hpp"

#include <algorithm>

#include "binomial_tree.hpp"

namespace leancast::detail {

std::uint32_t add_binomial_scatter(ScheduleBuilder& builder, std::uint8_t phase) {
  const int procs = builder.procs();
  const int me = builder.me();
  // A subtree [first, first + mask) cut at P.
  auto chunks_of = [procs](int first, int mask) {
    return static_cast<std::uint64_t>(std::min(mask, procs - first));
  };
  if (me != 0) {
    const TreeEdge in = binomial_parent_edge(procs, me);
    builder.recv(phase, in.round, binomial_parent(me), me, chunks_of(me, in.mask));
  }
  for (const TreeEdge& out : binomial_child_edges(procs, me)) {
    builder.send(phase, out.round, out.child, out.child, chunks_of(out.child, out.mask));
  }
  return static_cast<std::uint32_t>(binomial_rounds(procs));
}

}  // namespace leancast::detail
