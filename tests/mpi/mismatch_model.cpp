#include "mismatch_model.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "mpi/run/broadcast_tag.hpp"
#include "select/automatic.hpp"

namespace leancast::test {

namespace {

using Message = Model::Message;

constexpr std::size_t kNone = ~std::size_t{0};

// One rank running the schedule of its view. The model assumes messages below 1 GiB (one
// MPI message per operation), as in the tests.
struct Rank {
  std::vector<Operation> ops;
  std::vector<std::size_t> receives;  // receive operations, in schedule order
  std::vector<std::size_t> nth;       // per operation: its index among those with its peer
  std::map<int, std::vector<std::size_t>> sends_to;
  std::map<int, std::size_t> next_send;
  std::size_t next_receive = 0;
  std::vector<std::size_t> in_flight;  // posted receives
  std::vector<char> held;              // per byte
  // Per byte: the first receive in schedule order that brings it (kNone on the root). The
  // executor receives bytes already held or on their way into scratch memory, so a byte is
  // held once that receive completes, and only then.
  std::vector<std::size_t> bringer;
  std::vector<char> failed;  // per operation: a receive that surely failed
  int signature = 0;
  bool failing = false;

  bool holds(ByteRange r) const {
    return std::all_of(held.begin() + static_cast<std::ptrdiff_t>(r.offset),
                       held.begin() + static_cast<std::ptrdiff_t>(r.offset + r.length),
                       [](char h) { return h != 0; });
  }

  // A send goes out after the receives that bring its bytes: if one of those failed, the
  // error was recorded before the send was posted, so it is flagged.
  bool surely_flagged(ByteRange r) const {
    for (std::uint64_t b = r.offset; b < r.offset + r.length; ++b) {
      if (bringer[b] != kNone && failed[bringer[b]]) return true;
    }
    return false;
  }
};

Rank make_rank(const View& view, const std::shared_ptr<const NodeMap>& nodes, int rank) {
  const int procs = nodes ? static_cast<int>(nodes->size()) : 0;
  const BcastShape shape{procs, view.root, view.bytes, nodes};
  // As the library decides: auto (or a node-aware level left to auto) resolved for the shape.
  const AlgorithmSpec spec =
      resolve_automatic(view.algorithm, BcastShape{procs, 0, view.bytes, nodes});
  Rank r;
  r.ops = expand(make_schedule(spec, shape, rank));
  r.signature = detail::broadcast_signature(spec, view.root, view.bytes);
  r.held.assign(view.bytes, rank == view.root ? 1 : 0);
  r.bringer.assign(view.bytes, kNone);
  r.failed.assign(r.ops.size(), 0);
  std::map<std::pair<int, Direction>, std::size_t> counted;
  for (std::size_t i = 0; i < r.ops.size(); ++i) {
    const Operation& op = r.ops[i];
    r.nth.push_back(counted[{op.peer, op.direction}]++);
    if (op.direction == Direction::send) {
      r.sends_to[op.peer].push_back(i);
      continue;
    }
    r.receives.push_back(i);
    for (std::uint64_t b = op.bytes.offset; b < op.bytes.offset + op.bytes.length; ++b) {
      if (rank != view.root && r.bringer[b] == kNone) r.bringer[b] = i;
    }
  }
  return r;
}

}  // namespace

Prediction Model::run(const std::vector<View>& views) {
  const int procs = static_cast<int>(views.size());
  const int now = broadcasts_++;
  std::shared_ptr<const NodeMap> map = nodes_ ? nodes_ : block_nodes(procs, procs);
  std::vector<Rank> ranks;
  for (int r = 0; r < procs; ++r) ranks.push_back(make_rank(views[r], map, r));
  // (from, to) -> messages in order, those left over by earlier broadcasts first.
  std::map<std::pair<int, int>, std::vector<Message>> sent = std::move(stale_);
  stale_.clear();
  // With sequence numbers every receive passes over what earlier broadcasts left, and a
  // rank that receives from a peer that left it messages reports an error.
  std::set<std::pair<int, int>> passed_over;
  if (sequences_) {
    for (const auto& [pair, messages] : sent) {
      if (!messages.empty()) passed_over.insert(pair);
    }
    sent.clear();
  }
  Prediction out;

  // Everything that can happen happens; the result does not depend on the order (more
  // progress never prevents any), so a fixed point is what the executor reaches.
  for (bool progress = true; progress;) {
    progress = false;
    for (int r = 0; r < procs; ++r) {
      Rank& me = ranks[r];
      while (me.in_flight.size() < static_cast<std::size_t>(window_) &&
             me.next_receive < me.receives.size()) {
        me.in_flight.push_back(me.receives[me.next_receive++]);
        progress = true;
      }
      for (auto it = me.in_flight.begin(); it != me.in_flight.end();) {
        const Operation& op = me.ops[*it];
        const std::vector<Message>& from = sent[{op.peer, r}];
        if (from.size() <= me.nth[*it]) {
          ++it;
          continue;
        }
        const Message& m = from[me.nth[*it]];
        if (m.length != op.bytes.length || m.signature != me.signature || m.flagged) {
          me.failed[*it] = 1;
          me.failing = true;
        } else if (m.broadcast != now) {
          out.silently_stale = true;
        }
        for (std::uint64_t b = op.bytes.offset; b < op.bytes.offset + op.bytes.length; ++b) {
          if (me.bringer[b] == *it) me.held[b] = 1;
        }
        it = me.in_flight.erase(it);
        progress = true;
      }
      for (auto& [peer, sends] : me.sends_to) {
        std::size_t& next = me.next_send[peer];
        while (next < sends.size() && me.holds(me.ops[sends[next]].bytes)) {
          const ByteRange bytes = me.ops[sends[next++]].bytes;
          sent[{r, peer}].push_back({bytes.length, me.signature, me.surely_flagged(bytes), now});
          progress = true;
        }
      }
    }
  }

  for (int r = 0; r < procs; ++r) {
    const Rank& me = ranks[r];
    const bool passes_over =
        std::any_of(me.receives.begin(), me.receives.end(), [&](std::size_t i) {
          return passed_over.count({me.ops[i].peer, r}) > 0;
        });
    out.must_fail.push_back(me.failing || passes_over);
    if (!me.in_flight.empty() || me.next_receive < me.receives.size()) {
      const std::size_t waiting =
          me.in_flight.empty() ? me.receives[me.next_receive] : me.in_flight.front();
      if (!out.hangs) {
        out.reason = fmt::format("rank {} waits for message {} from rank {}", r,
                                 me.nth[waiting] + 1, me.ops[waiting].peer);
      }
      out.hangs = true;
    }
  }
  for (auto& [pair, messages] : sent) {
    const auto [from, to] = pair;
    const Rank& receiver = ranks[to];
    const auto taken = static_cast<std::size_t>(
        std::count_if(receiver.receives.begin(), receiver.receives.end(),
                      [&](std::size_t i) { return receiver.ops[i].peer == from; }));
    if (taken >= messages.size()) continue;
    out.leftovers += messages.size() - taken;
    if (out.reason.empty()) {
      out.reason = fmt::format("{} message(s) from rank {} to rank {} left over",
                               messages.size() - taken, from, to);
    }
    for (std::size_t k = taken; k < messages.size(); ++k) {
      if (messages[k].length > kEagerBytes && !out.hangs) {
        out.hangs = true;
        out.reason = fmt::format("rank {} waits for its {}-byte message to rank {} to be received",
                                 from, messages[k].length, to);
      }
    }
    stale_[pair].assign(messages.begin() + static_cast<std::ptrdiff_t>(taken), messages.end());
  }
  return out;
}

}  // namespace leancast::test
