// node-aware: the lecture's one-message-per-node broadcast and MPICH's smp design, for any
// pair of algorithms. One leader per node (the root on its own node, the lowest rank
// elsewhere) broadcasts among the leaders with the BETWEEN algorithm, so the message
// crosses each node's network interface once; then each leader broadcasts within its node
// with the WITHIN algorithm. Both levels are ordinary schedules of this library, computed
// for the leaders (nodes in order of their lowest rank) and for each node's ranks (in rank
// order) and renamed to absolute ranks.
//
// A node's within-node rounds start after its leader's last between-node round; ranks of
// one node agree on that offset because each of them computes the leader's schedule.
// Leaders talk to leaders and ranks within a node to each other, so the two levels never
// share a pair of ranks (their messages cannot match each other's receives).
//
// Overlap of the levels. Many WITHIN algorithms move the whole message in one transfer, so
// even a dataflow executor (which sends what a rank holds, without waiting for rounds)
// would let a leader forward nothing before it held everything. On every node but the
// root's (whose leader holds everything from the start), the within level's single
// transfers are therefore cut where the leader's between-node receives start and end, and
// the node's ranks receive and pass on the same pieces. Every rank of the node derives
// the same cuts from its leader's between-node schedule:
// - Cuts are at least max(n / 16, 64 KiB) apart (each piece costs a start-up), so a
//   transfer becomes at most 16 pieces; a repeated receive (a stream of single blocks:
//   ring, pipeline) offers every block boundary.
// - A cut transfer becomes its pieces in the order the leader completes them (two-tree's
//   leaders receive two halves interleaved), all in the transfer's round and on both sides
//   of the pair alike: rounds do not change, the round model stays valid, and messages
//   between a pair still match in posting order.
// - Repeated transfers (streams of single blocks) are not cut: their blocks are small
//   already; one that straddles a cut waits for both pieces.
// - Layouts: the cuts are block boundaries of the between level's layout (a flat algorithm
//   has one for all its phases). A within phase whose blocks do not end at every cut gets a
//   finer layout: the between level's where it had one block (the whole message), else
//   blocks of gcd(its block, gcd of the cuts) bytes, an exact subdivision of its own blocks
//   (ceil(ceil(n / c) / r) = ceil(n / (c r))), its transfers' block indices scaled to it.
#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <stdexcept>

#include "algorithms.hpp"
#include "held_bytes.hpp"

namespace leancast::detail {

namespace {

constexpr std::uint64_t kMaxPieces = 16;
constexpr std::uint64_t kMinPieceBytes = 64 << 10;

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
    out.phases.push_back(Phase{std::string(prefix) + ":" + phase.name, phase.layout, phase.medium});
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

// Byte offsets in (0, bytes), ascending, where the within level's transfers are cut: ends of
// the leader's between-node receives, at least a piece apart. A repeated receive (a stream
// of single blocks) counts every block boundary.
std::vector<std::uint64_t> cut_points(const RankSchedule& between, std::uint64_t bytes) {
  std::vector<std::uint64_t> ends;
  bool every_block = false;
  for (const Transfer& t : between.transfers) {
    if (t.direction != Direction::recv) continue;
    if (t.repeat > 1) {
      every_block = true;
      continue;
    }
    const ByteRange r = between.layout(t.phase).range(t.first_block, t.block_span);
    ends.insert(ends.end(), {r.offset, r.offset + r.length});
  }
  std::sort(ends.begin(), ends.end());
  const std::uint64_t block = between.layout(0).block_bytes();
  const std::uint64_t piece = std::max(kMinPieceBytes, (bytes + kMaxPieces - 1) / kMaxPieces);
  std::vector<std::uint64_t> cuts;
  for (std::uint64_t at = piece; at < bytes; at = cuts.back() + piece) {
    const auto it = std::lower_bound(ends.begin(), ends.end(), at);
    std::uint64_t next = it == ends.end() ? bytes : *it;
    if (every_block) next = std::min(next, (at + block - 1) / block * block);
    if (next >= bytes || bytes - next < kMinPieceBytes) break;
    cuts.push_back(next);
  }
  return cuts;
}

// For each piece between the cuts, the number of the leader's between-node receives (in
// schedule order) after which it holds the whole piece.
std::vector<std::size_t> piece_arrivals(const RankSchedule& between,
                                        const std::vector<std::uint64_t>& cuts,
                                        std::uint64_t bytes) {
  std::vector<std::uint64_t> bounds{0};
  bounds.insert(bounds.end(), cuts.begin(), cuts.end());
  bounds.push_back(bytes);
  std::vector<std::size_t> arrival(cuts.size() + 1, SIZE_MAX);
  HeldBytes held;
  std::size_t receives = 0;
  for (const Operation& op : expand(between)) {
    if (op.direction != Direction::recv) continue;
    ++receives;
    held.add(op.bytes);
    auto k = static_cast<std::size_t>(std::upper_bound(cuts.begin(), cuts.end(), op.bytes.offset) -
                                      cuts.begin());
    for (; k < arrival.size() && bounds[k] < op.bytes.offset + op.bytes.length; ++k) {
      if (arrival[k] == SIZE_MAX && held.holds({bounds[k], bounds[k + 1] - bounds[k]})) {
        arrival[k] = receives;
      }
    }
  }
  return arrival;
}

// Refines the layout of each phase of `within` whose blocks do not end at every cut (see the
// header) and splits every single transfer at the cuts inside it, its pieces in the order
// the leader completes them (`arrival`, by piece).
void cut_transfers(RankSchedule& within, const std::vector<std::uint64_t>& cuts,
                   const std::vector<std::size_t>& arrival, const BlockLayout& between_blocks) {
  std::uint64_t cut_gcd = 0;
  for (std::uint64_t cut : cuts) cut_gcd = std::gcd(cut_gcd, cut);
  std::vector<std::uint64_t> factor(within.phases.size(), 1);
  for (std::size_t p = 0; p < within.phases.size(); ++p) {
    BlockLayout& layout = within.phases[p].layout;
    if (cut_gcd % layout.block_bytes() == 0) continue;
    factor[p] = layout.block_count() == 1
                    ? between_blocks.block_count()
                    : layout.block_bytes() / std::gcd(layout.block_bytes(), cut_gcd);
    layout = BlockLayout(layout.total_bytes(), layout.block_count() * factor[p]);
    if (cut_gcd % layout.block_bytes() != 0) throw std::logic_error("node-aware: uneven cut");
  }
  std::vector<Transfer> out;
  std::vector<std::pair<std::size_t, Transfer>> pieces;  // (arrival, piece)
  for (Transfer t : within.transfers) {
    const std::uint64_t r = factor[t.phase];
    t.first_block *= r;
    t.block_span *= r;
    t.block_stride *= static_cast<std::int64_t>(r);
    if (t.repeat > 1) {
      out.push_back(t);
      continue;
    }
    const std::uint64_t block = within.layout(t.phase).block_bytes();
    const std::uint64_t end = t.first_block + t.block_span;
    auto it = std::upper_bound(cuts.begin(), cuts.end(), t.first_block * block);
    pieces.clear();
    while (true) {
      const auto k = static_cast<std::size_t>(it - cuts.begin());  // the piece t starts in
      if (it == cuts.end() || *it / block >= end) {
        pieces.push_back({arrival[k], t});
        break;
      }
      t.block_span = *it / block - t.first_block;
      pieces.push_back({arrival[k], t});
      t.first_block = *it / block;
      t.block_span = end - t.first_block;
      ++it;
    }
    std::stable_sort(pieces.begin(), pieces.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& piece : pieces) out.push_back(piece.second);
  }
  within.transfers = std::move(out);
}

}  // namespace

RankSchedule node_aware_schedule(const AlgorithmSpec& spec, const BcastShape& shape, int rank) {
  const Layout layout = layout_of(shape, rank);
  const auto nodes = static_cast<int>(layout.leaders.size());
  const int leader = layout.leaders[layout.node];
  RankSchedule out;
  out.rank = rank;
  // Every rank of the node plays its leader's between-node part, for the offset and the cuts.
  const RankSchedule between = make_schedule(AlgorithmSpec(spec.between_nodes),
                                             {nodes, layout.root_node, shape.bytes}, layout.node);
  if (rank == leader) append(out, between, layout.leaders, "inter", 0);
  const auto local_root = static_cast<int>(
      std::find(layout.members.begin(), layout.members.end(), leader) - layout.members.begin());
  const auto size = static_cast<int>(layout.members.size());
  const auto me = static_cast<int>(std::find(layout.members.begin(), layout.members.end(), rank) -
                                   layout.members.begin());
  RankSchedule within =
      make_schedule(AlgorithmSpec(spec.within_nodes), {size, local_root, shape.bytes}, me);
  if (layout.node != layout.root_node) {  // the root holds everything from the start
    const std::vector<std::uint64_t> cuts = cut_points(between, shape.bytes);
    if (!cuts.empty()) {
      cut_transfers(within, cuts, piece_arrivals(between, cuts, shape.bytes), between.layout(0));
    }
  }
  append(out, within, layout.members, "intra", end_round(between));
  return out;
}

}  // namespace leancast::detail
