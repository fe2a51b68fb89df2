// The alpha-beta model of analysis.hpp, played as dataflow: an event simulation over every
// message, O(M log M) for M messages.
//
// Messages: the k-th send from s to d matches the k-th receive at d from s. Each message
// knows how many of its sender's receives must have completed before the sender holds its
// bytes ("needs"): receives complete in schedule order, so that is a fixed prefix of the
// sender's receives, found once per rank from the receive at which each byte first arrives.
// A rank waits for one receive at a time (the next in its schedule order); that message
// joins its sender's ready set once the sender holds its bytes, and a sender whose send
// port is free starts the ready message that comes first in its schedule order.
#include <algorithm>
#include <functional>
#include <map>
#include <queue>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include <leancast/analysis.hpp>

#include "held_bytes.hpp"
#include "ranks.hpp"

namespace leancast {

namespace {

bool between_nodes(const CostModel& model, int sender, int receiver) {
  return model.ranks_per_node > 0 &&
         sender / model.ranks_per_node != receiver / model.ranks_per_node;
}

double message_seconds(const CostModel& model, int sender, int receiver, std::uint64_t bytes) {
  const bool crosses = between_nodes(model, sender, receiver);
  const double alpha = crosses ? model.alpha_inter : model.alpha;
  const double beta = crosses ? model.beta_inter : model.beta;
  return alpha + static_cast<double>(bytes) * beta;
}

// For each byte of one rank's buffer, the receive (1-based, in schedule order) that first
// brought it: disjoint intervals begin -> {end, receive}.
class Arrivals {
 public:
  void add(ByteRange r, std::uint32_t receive) {
    std::uint64_t at = r.offset;
    const std::uint64_t end = r.offset + r.length;
    auto it = painted_.upper_bound(at);
    if (it != painted_.begin() && std::prev(it)->second.first > at) --it;
    for (; at < end; ++it) {
      if (it == painted_.end() || it->first >= end) {
        painted_.emplace_hint(it, at, std::pair(end, receive));
        break;
      }
      if (it->first > at) painted_.emplace_hint(it, at, std::pair(it->first, receive));
      at = std::max(at, it->second.first);
    }
  }
  // The last receive `r` needs; -1 where some byte of it never arrives.
  std::int64_t needs(ByteRange r) const {
    std::int64_t last = 0;
    std::uint64_t at = r.offset;
    const std::uint64_t end = r.offset + r.length;
    auto it = painted_.upper_bound(at);
    if (it != painted_.begin()) --it;
    for (; at < end; ++it) {
      if (it == painted_.end() || it->first > at || it->second.first <= at) return -1;
      last = std::max<std::int64_t>(last, it->second.second);
      at = it->second.first;
    }
    return last;
  }

 private:
  std::map<std::uint64_t, std::pair<std::uint64_t, std::uint32_t>> painted_;
};

struct Message {
  int sender = 0;
  int receiver = 0;
  std::uint32_t pair_seq = 0;  // among the messages from sender to receiver
  std::uint32_t order = 0;     // among the sender's sends, in schedule order
  std::uint32_t needs = 0;     // sender's receives that must have completed
  ByteRange bytes;
  double seconds = 0;
};

// `key`: (sender, receiver, pair_seq) of a receive, to match it with its send.
using Key = std::tuple<int, int, std::uint32_t>;

}  // namespace

double model_seconds(const AlgorithmSpec& algorithm, const BcastShape& shape,
                     const CostModel& model) {
  if (shape.procs <= 1 || shape.bytes == 0) return 0.0;
  std::vector<Message> messages;
  std::vector<std::pair<Key, std::uint32_t>> receives;  // (key, receiver's index of the receive)
  std::vector<std::uint32_t> receive_count(shape.procs, 0);
  for (int rank = 0; rank < shape.procs; ++rank) {
    const RankSchedule schedule = make_schedule(algorithm, shape, rank);
    // A shared- or cross-memory phase is copies, not messages: the alpha-beta model does not price
    // them, and nothing it has not been held against a real node may rank them.
    for (const Phase& phase : schedule.phases) {
      if (phase.medium != Medium::messages) {
        throw std::invalid_argument(
            "model_seconds: " + phase.name +
            " moves through the node's memory, which the model does not price");
      }
    }
    const std::vector<Operation> ops = expand(schedule);
    Arrivals arrivals;
    std::unordered_map<int, std::uint32_t> sent, received;  // per peer
    for (const Operation& op : ops) {
      if (op.direction != Direction::recv) continue;
      arrivals.add(op.bytes, ++receive_count[rank]);
      receives.push_back({{op.peer, rank, received[op.peer]++}, receive_count[rank] - 1});
    }
    std::uint32_t order = 0;
    for (const Operation& op : ops) {
      if (op.direction != Direction::send) continue;
      const std::int64_t needs = rank == shape.root ? 0 : arrivals.needs(op.bytes);
      if (needs < 0) throw std::logic_error("model_seconds: a rank sends bytes it never receives");
      messages.push_back({rank, op.peer, sent[op.peer]++, order++,
                          static_cast<std::uint32_t>(needs), op.bytes,
                          message_seconds(model, rank, op.peer, op.bytes.length)});
    }
  }
  // Match: both sides sorted by (sender, receiver, pair_seq), then zipped.
  std::vector<int> by_key(messages.size());
  for (std::size_t i = 0; i < by_key.size(); ++i) by_key[i] = static_cast<int>(i);
  const auto key = [&](int m) {
    return Key{messages[m].sender, messages[m].receiver, messages[m].pair_seq};
  };
  std::sort(by_key.begin(), by_key.end(), [&](int a, int b) { return key(a) < key(b); });
  std::sort(receives.begin(), receives.end());
  if (receives.size() != messages.size()) {
    throw std::logic_error("model_seconds: sends and receives do not match");
  }
  // queue[d][j]: the message of d's j-th receive.
  std::vector<std::vector<int>> queue(shape.procs);
  for (int d = 0; d < shape.procs; ++d) queue[d].resize(receive_count[d]);
  for (std::size_t i = 0; i < receives.size(); ++i) {
    if (receives[i].first != key(by_key[i])) {
      throw std::logic_error("model_seconds: sends and receives do not match");
    }
    queue[std::get<1>(receives[i].first)][receives[i].second] = by_key[i];
  }

  using Pending = std::pair<std::uint32_t, int>;  // (needs or order, message)
  using MinHeap = std::priority_queue<Pending, std::vector<Pending>, std::greater<>>;
  std::vector<MinHeap> blocked(shape.procs), ready(shape.procs);  // per sender
  std::vector<std::uint32_t> done(shape.procs, 0);                // receives completed
  std::vector<char> sending(shape.procs, 0);
  std::vector<detail::HeldBytes> held(shape.procs);
  std::vector<double> finish(shape.procs, -1.0);
  finish[shape.root] = 0.0;
  std::vector<int> touched;
  // d waits for its next receive: the message is ready once its sender holds the bytes.
  const auto wait_next = [&](int d) {
    if (done[d] == queue[d].size()) return;
    const Message& m = messages[queue[d][done[d]]];
    if (m.needs <= done[m.sender]) {
      ready[m.sender].push({m.order, queue[d][done[d]]});
      touched.push_back(m.sender);
    } else {
      blocked[m.sender].push({m.needs, queue[d][done[d]]});
    }
  };
  // (time, event): message m arrives (m >= 0), or its sender's port is free again (-m - 1).
  using Event = std::pair<double, int>;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events;
  // With beta_node: when each node's outgoing and incoming interface is next free. Messages
  // claim them in the order they start (first come, first served).
  const bool shared_interfaces = model.beta_node > 0 && model.ranks_per_node > 0;
  const int nodes =
      shared_interfaces ? (shape.procs + model.ranks_per_node - 1) / model.ranks_per_node : 0;
  std::vector<double> out_free(nodes, 0.0), in_free(nodes, 0.0);
  const auto start = [&](int s, double now) {
    if (sending[s] || ready[s].empty()) return;
    const int m = ready[s].top().second;
    ready[s].pop();
    sending[s] = 1;
    const Message& message = messages[m];
    double begin = now;
    if (shared_interfaces && between_nodes(model, message.sender, message.receiver)) {
      double& out = out_free[message.sender / model.ranks_per_node];
      double& in = in_free[message.receiver / model.ranks_per_node];
      begin = std::max({now, out, in});
      out = in = begin + static_cast<double>(message.bytes.length) * model.beta_node;
    }
    events.push({begin + message.seconds, m});
    if (model.send_overhead > 0) {
      events.push(
          {begin + model.send_overhead +
               static_cast<double>(message.bytes.length) *
                   (between_nodes(model, message.sender, message.receiver) ? model.beta_inter
                                                                           : model.beta),
           -m - 1});
    }
  };
  for (int d = 0; d < shape.procs; ++d) wait_next(d);
  for (int s = 0; s < shape.procs; ++s) start(s, 0.0);
  std::size_t completed = 0;
  while (!events.empty()) {
    const double now = events.top().first;
    touched.clear();
    // Everything that ends now lands before any port picks its next message.
    while (!events.empty() && events.top().first == now) {
      const int event = events.top().second;
      events.pop();
      if (event < 0) {
        sending[messages[-event - 1].sender] = 0;
        touched.push_back(messages[-event - 1].sender);
        continue;
      }
      const Message& m = messages[event];
      ++completed;
      if (model.send_overhead <= 0) {
        sending[m.sender] = 0;
        touched.push_back(m.sender);
      }
      const int d = m.receiver;
      ++done[d];
      held[d].add(m.bytes);
      if (finish[d] < 0 && held[d].holds({0, shape.bytes})) finish[d] = now;
      while (!blocked[d].empty() && blocked[d].top().first <= done[d]) {
        const int next = blocked[d].top().second;
        blocked[d].pop();
        ready[d].push({messages[next].order, next});
        touched.push_back(d);
      }
      wait_next(d);
    }
    for (int s : touched) start(s, now);
  }
  if (completed != messages.size()) throw std::logic_error("model_seconds: the schedule deadlocks");
  if (std::find(finish.begin(), finish.end(), -1.0) != finish.end()) {
    throw std::logic_error("model_seconds: a rank never holds every byte");
  }
  return *std::max_element(finish.begin(), finish.end());
}

double lower_bound_seconds(const BcastShape& shape, const CostModel& model) {
  if (shape.procs <= 1 || shape.bytes == 0) return 0.0;
  const bool two_levels = model.ranks_per_node > 0;
  const double alpha = two_levels ? std::min(model.alpha, model.alpha_inter) : model.alpha;
  const double beta = two_levels ? std::min(model.beta, model.beta_inter) : model.beta;
  return detail::ceil_log2(shape.procs) * alpha + static_cast<double>(shape.bytes) * beta;
}

}  // namespace leancast
