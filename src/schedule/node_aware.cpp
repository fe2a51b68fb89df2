// node-aware: the lecture's one-message-per-node broadcast and MPICH's smp design, for any
// pair of algorithms. One leader per node (the root on its own node, the lowest rank
// elsewhere) broadcasts among the leaders with the BETWEEN algorithm, so the message
// crosses each node's network interface once; then each leader broadcasts within its node
// with the WITHIN algorithm. Both levels are ordinary schedules of this library, computed
// for the leaders (nodes in order of their lowest rank) and for each node's ranks (in rank
// order) and renamed to absolute ranks: no chunk arithmetic of its own.
//
// A node's within-node rounds start after its leader's last between-node round; ranks of
// one node agree on that offset because each of them computes the leader's schedule.
// Leaders talk to leaders and ranks within a node to each other, so the two levels never
// share a pair of ranks (their messages cannot match each other's receives).
#include <algorithm>
#include <map>

#include "algorithms.hpp"

namespace leancast::detail {

namespace {

struct Layout {
  std::vector<int> leaders;  // absolute rank of each node's leader, nodes in order
  std::vector<int> members;  // this rank's node, in rank order
  int node = 0;              // index of this rank's node
  int root_node = 0;         // index of the root's node
};

Layout layout_of(const BcastShape& shape, int rank) {
  const auto node_of = [&](int r) { return shape.nodes ? (*shape.nodes)[r] : 0; };
  std::map<int, int> index;  // node id -> index, in order of the node's lowest rank
  Layout layout;
  for (int r = 0; r < shape.procs; ++r) {
    const auto [it, added] = index.emplace(node_of(r), static_cast<int>(index.size()));
    if (added) layout.leaders.push_back(r);
    if (node_of(r) == node_of(rank)) layout.members.push_back(r);
  }
  layout.node = index.at(node_of(rank));
  layout.root_node = index.at(node_of(shape.root));
  layout.leaders[layout.root_node] = shape.root;
  return layout;
}

// Appends `part` (a schedule among `ranks`, peers numbered 0..) to `out`: phases renamed
// "PREFIX:name", peers made absolute, rounds shifted by `first_round`.
void append(RankSchedule& out, const RankSchedule& part, const std::vector<int>& ranks,
            std::string_view prefix, std::uint32_t first_round) {
  const auto phase_base = static_cast<std::uint8_t>(out.phases.size());
  for (const Phase& phase : part.phases) {
    out.phases.push_back(Phase{std::string(prefix) + ":" + phase.name, phase.layout});
  }
  for (Transfer t : part.transfers) {
    t.peer = ranks[t.peer];
    t.round += first_round;
    t.phase = static_cast<std::uint8_t>(t.phase + phase_base);
    out.transfers.push_back(t);
  }
}

std::uint32_t end_round(const RankSchedule& schedule) {
  std::uint32_t end = 0;
  for (const Transfer& t : schedule.transfers) end = std::max(end, t.end_round());
  return end;
}

}  // namespace

RankSchedule node_aware_schedule(const AlgorithmSpec& spec, const BcastShape& shape, int rank) {
  const Layout layout = layout_of(shape, rank);
  const auto nodes = static_cast<int>(layout.leaders.size());
  const int leader = layout.leaders[layout.node];
  RankSchedule out;
  out.rank = rank;
  // Every rank of the node plays its leader's between-node part, for the offset.
  const RankSchedule between = make_schedule(
      AlgorithmSpec(spec.between_nodes), {nodes, layout.root_node, shape.bytes}, layout.node);
  if (rank == leader) append(out, between, layout.leaders, "inter", 0);
  const auto local_root = static_cast<int>(
      std::find(layout.members.begin(), layout.members.end(), leader) - layout.members.begin());
  const auto size = static_cast<int>(layout.members.size());
  const auto me = static_cast<int>(
      std::find(layout.members.begin(), layout.members.end(), rank) - layout.members.begin());
  append(out,
         make_schedule(AlgorithmSpec(spec.within_nodes), {size, local_root, shape.bytes}, me),
         layout.members, "intra", end_round(between));
  return out;
}

}  // namespace leancast::detail
