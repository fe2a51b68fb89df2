// circulant: Traeff's round-optimal broadcast of N blocks in N - 1 + q rounds, q =
// ceil(log2 P) (J. L. Traeff, "Round-optimal n-Block Broadcast Schedules in Logarithmic
// Time", arXiv 2312.11236; MPICH's development line calls it circ_graph).
//
// Every rank uses the same circulant graph: skips s[q] = P, s[k] = ceil(s[k+1] / 2), so
// s[0] = 1 and the skips roughly double. Round i uses skip s[i mod q]: relative rank r
// sends one block to r + s[k] and receives one from r - s[k] (mod P). Each rank's part is
// two tables of q entries, computed from P and r alone in O(log^2 P):
//   recv[k]: the block r receives in the round of skip k, relative to the current group of
//            q rounds: its base block b (the block the root started down r's path in this
//            group) or e - q for every other skip index e (block e of the previous group);
//   send[k]: what r + s[k] receives in that round (recv of the receiver), since the
//            rounds pair every send with the receiver's receive.
// Each group of q rounds thus hands every rank one block of each residue mod q. The
// rounds are shifted (by x below) so that the last block arrives in round N - 2 + q.
#include <algorithm>
#include <stdexcept>
#include <vector>

#include "algorithms.hpp"
#include "pipelined_tree.hpp"
#include "ranks.hpp"
#include "schedule_builder.hpp"

namespace leancast::detail {

namespace {

// 64 KiB blocks when no block count is given, as the pipelines' default segments.
constexpr std::uint64_t kDefaultBlockBytes = 64 << 10;

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0);
}

class CirculantGraph {
 public:
  explicit CirculantGraph(int procs) : procs_(procs), q_(ceil_log2(procs)), skip_(q_ + 1) {
    skip_[q_] = procs;
    for (int k = q_ - 1; k >= 0; --k) skip_[k] = (skip_[k + 1] + 1) / 2;
  }

  int q() const { return q_; }
  int skip(int k) const { return skip_[k]; }

  // The skip index of the last step when r is written greedily as a sum of decreasing
  // skips (the largest that still fits first); q for the root.
  int base_block(int r) const {
    int sum = 0;
    for (int i = q_ - 1; i >= 0; --i) {
      if (sum + skip_[i] == r) return i;
      if (sum + skip_[i] < r) sum += skip_[i];
    }
    if (r != 0) throw std::logic_error("circulant: rank is no sum of skips");
    return q_;
  }

  // recv[k] for relative rank r > 0, as described at the top of the file.
  std::vector<int> receive_blocks(int r) const {
    Search search{*this, procs_ + r, std::vector<bool>(q_ + 1, true), std::vector<int>(q_, 0)};
    const int base = base_block(r);
    search.unused[base] = false;
    const int found = search.assign(0, 2 * procs_, q_, 0);
    if (found != q_) throw std::logic_error("circulant: incomplete receive schedule");
    for (int& e : search.blocks) e = e == q_ ? base : e - q_;
    return search.blocks;
  }

 private:
  // Traeff's search for the receive schedule. Rank r sits at r + P on an unrolled line
  // where the current group's root is at P and the previous group's at 0. For the rounds
  // k = 0, 1, ... in order it walks sums of non-increasing skips from 0 (paths a block
  // travels, largest skips first) and gives round k the skip index e that ends a path
  // reaching no further than the round's sender, r + P - s[k], each e used once. Index q
  // (the path through the current root) stands for the base block, e < q for block e of
  // the previous group.
  struct Search {
    const CirculantGraph& graph;
    int target;                // r + P
    std::vector<bool> unused;  // skip indices not yet given to a round
    std::vector<int> blocks;   // the result, by round k

    // Extends the path at `reached` with skips e <= `largest`, each below `bound`; `k` is
    // the next round to assign. Returns the next unassigned round.
    int assign(int reached, int bound, int largest, int k) {
      for (int e = largest; e >= 0 && k < graph.q_; --e) {
        if (!unused[e]) continue;
        const int next = reached + graph.skip_[e];
        if (next > target - graph.skip_[k] || next >= bound) continue;
        if (next <= target - graph.skip_[k + 1]) k = assign(next, bound, e, k);
        if (k == graph.q_ || reached > target - graph.skip_[k + 1]) return k;
        bound = next;
        blocks[k++] = e;
        unused[e] = false;
      }
      return k;
    }
  };

  int procs_;
  int q_;
  std::vector<int> skip_;
};

// Adds the repetitions of one (skip k, relative block `value`) pair over the whole run:
// rounds i = x + t with i mod q = k carry block value + q * floor(i / q) - x. Blocks below 0
// do not exist yet (nothing moves); blocks past the last one stand for the last block
// (Traeff's rule: in the final groups a rank whose own block would lie past the end is
// still owed the last block, and its sender holds it by then).
void add_skip_run(ScheduleBuilder& out, Direction direction, int peer, int q, int k, int value,
                  std::int64_t x, std::int64_t blocks) {
  const std::int64_t last_round = x + blocks - 2 + q;  // virtual rounds x .. last_round
  const std::int64_t first = x + ((k - x) % q + q) % q;
  if (first > last_round) return;
  const std::int64_t group = first / q;
  const std::int64_t start = value + q * group - x;  // block(m) = start + q * m
  const std::int64_t rounds = floor_div(last_round - first, q) + 1;
  const std::int64_t low = std::max<std::int64_t>(0, -floor_div(start, q));
  const std::int64_t in_range = std::min(floor_div(blocks - 1 - start, q) + 1, rounds);
  const auto add = [&](std::int64_t from, std::int64_t to, std::uint64_t block,
                       std::int64_t stride) {
    if (from >= to) return;
    const auto round = static_cast<std::uint32_t>(first + q * from - x);
    const auto repeat = static_cast<std::uint32_t>(to - from);
    const auto round_stride = static_cast<std::uint32_t>(q);
    if (direction == Direction::send) {
      out.send_run(0, round, repeat, peer, block, stride, round_stride);
    } else {
      out.recv_run(0, round, repeat, peer, block, stride, round_stride);
    }
  };
  add(low, in_range, static_cast<std::uint64_t>(std::max<std::int64_t>(start + q * low, 0)), q);
  add(std::max(low, in_range), rounds, static_cast<std::uint64_t>(blocks - 1), 0);
}

}  // namespace

RankSchedule circulant_schedule(const BcastShape& shape, int rank, std::uint64_t blocks) {
  const std::uint64_t count =
      blocks == 0 ? segment_count(shape.bytes, kDefaultBlockBytes)
                  : std::clamp<std::uint64_t>(std::min(blocks, shape.bytes), 1, kMaxSegments);
  ScheduleBuilder out(shape, rank, count, {"circulant"});
  const int procs = shape.procs;
  const CirculantGraph graph(procs);
  const int q = graph.q();
  const auto n = static_cast<std::int64_t>(count);
  // Shift so that the last group of q rounds ends with the last round.
  const std::int64_t x = (q - (n - 1) % q) % q;
  const int r = out.me();
  if (r != 0) {
    const std::vector<int> recv = graph.receive_blocks(r);
    for (int k = 0; k < q; ++k) {
      add_skip_run(out, Direction::recv, (r - graph.skip(k) + procs) % procs, q, k, recv[k], x, n);
    }
  }
  for (int k = 0; k < q; ++k) {
    const int to = (r + graph.skip(k)) % procs;
    if (to == 0) continue;  // the root needs nothing
    add_skip_run(out, Direction::send, to, q, k, graph.receive_blocks(to)[k], x, n);
  }
  return out.finish();
}

}  // namespace leancast::detail
