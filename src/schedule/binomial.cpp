// binomial: MPICH's binomial-tree broadcast of the whole buffer (MPIR_Bcast_intra_binomial),
// ceil(log2 P) rounds, the far subtrees first.
#include "algorithms.hpp"
#include "binomial_tree.hpp"
#include "schedule_builder.hpp"

namespace leancast::detail {

RankSchedule binomial_schedule(const BcastShape& shape, int rank) {
  ScheduleBuilder out(shape, rank, 1, {"bcast"});
  const int me = out.me();
  if (me != 0) out.recv(0, binomial_parent_edge(shape.procs, me).round, binomial_parent(me), 0, 1);
  for (const TreeEdge& edge : binomial_child_edges(shape.procs, me)) {
    out.send(0, edge.round, edge.child, 0, 1);
  }
  return out.finish();
}

}  // namespace leancast::detail
