// The alpha-beta model of analysis.hpp: one pass over every message, round by round.
#include <algorithm>
#include <cmath>
#include <tuple>

#include <leancast/analysis.hpp>

#include "ranks.hpp"

namespace leancast {

namespace {

struct Send {
  std::uint32_t round;
  int sender;
  std::size_t seq;  // the sender's schedule order within the round
  int receiver;
  std::uint64_t bytes;
};

double message_seconds(const CostModel& model, int sender, int receiver, std::uint64_t bytes) {
  const bool between_nodes = model.ranks_per_node > 0 &&
                             sender / model.ranks_per_node != receiver / model.ranks_per_node;
  const double alpha = between_nodes ? model.alpha_inter : model.alpha;
  const double beta = between_nodes ? model.beta_inter : model.beta;
  return alpha + static_cast<double>(bytes) * beta;
}

}  // namespace

double model_seconds(const AlgorithmSpec& algorithm, const BcastShape& shape,
                     const CostModel& model) {
  std::vector<Send> sends;
  for (int rank = 0; rank < shape.procs; ++rank) {
    const std::vector<Operation> ops = expand(make_schedule(algorithm, shape, rank));
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].direction != Direction::send) continue;
      sends.push_back({ops[i].round, rank, i, ops[i].peer, ops[i].bytes.length});
    }
  }
  std::sort(sends.begin(), sends.end(), [](const Send& a, const Send& b) {
    return std::tie(a.round, a.sender, a.seq) < std::tie(b.round, b.sender, b.seq);
  });
  // clock: when a rank finished its last round; send_free / recv_free: its ports this round.
  std::vector<double> clock(shape.procs, 0.0), send_free(shape.procs), recv_free(shape.procs);
  std::vector<int> involved;
  for (std::size_t begin = 0; begin < sends.size();) {
    std::size_t end = begin;
    while (end < sends.size() && sends[end].round == sends[begin].round) ++end;
    involved.clear();
    for (std::size_t i = begin; i < end; ++i) {
      for (int rank : {sends[i].sender, sends[i].receiver}) {
        involved.push_back(rank);
        send_free[rank] = recv_free[rank] = clock[rank];
      }
    }
    for (std::size_t i = begin; i < end; ++i) {
      const Send& s = sends[i];
      const double start = std::max(send_free[s.sender], recv_free[s.receiver]);
      const double finish = start + message_seconds(model, s.sender, s.receiver, s.bytes);
      send_free[s.sender] = recv_free[s.receiver] = finish;
    }
    for (int rank : involved) clock[rank] = std::max(send_free[rank], recv_free[rank]);
    begin = end;
  }
  return clock.empty() ? 0.0 : *std::max_element(clock.begin(), clock.end());
}

double lower_bound_seconds(const BcastShape& shape, const CostModel& model) {
  if (shape.procs <= 1 || shape.bytes == 0) return 0.0;
  const bool two_levels = model.ranks_per_node > 0;
  const double alpha = two_levels ? std::min(model.alpha, model.alpha_inter) : model.alpha;
  const double beta = two_levels ? std::min(model.beta, model.beta_inter) : model.beta;
  return detail::ceil_log2(shape.procs) * alpha + static_cast<double>(shape.bytes) * beta;
}

}  // namespace leancast
