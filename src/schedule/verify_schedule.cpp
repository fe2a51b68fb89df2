// The verifier: checks the schedules of all ranks in both models leancast runs them in.
//  - Round model (schedule.hpp; the rounds executor's): every send is matched by a receive of
//    the same bytes in the same round, in the same order per pair, and only carries bytes
//    its sender held before that round.
//  - Dataflow model (the dataflow executor's and the cost model's): no rounds; the k-th send from s
//  to r matches the
//    k-th receive at r from s (MPI's non-overtaking rule), receives are posted in schedule
//    order a window at a time, and a send is posted once its sender holds its bytes, after
//    the earlier sends to the same peer. The play must complete every message.
// Both end with every rank holding every byte. A schedule valid in the round model is valid
// in the dataflow model for any window (a rank's rounds are an order in which the dataflow
// rule can post everything), not conversely: the dataflow play is what the dataflow executor
// and the cost model need, the round play what the rounds executor does.
#include <algorithm>
#include <map>
#include <numeric>
#include <sstream>
#include <tuple>
#include <utility>

#include <leancast/analysis.hpp>

#include "held_bytes.hpp"

namespace leancast {

namespace {

using detail::HeldBytes;

std::string text(ByteRange r) {
  return "[" + std::to_string(r.offset) + ", +" + std::to_string(r.length) + ")";
}

// The first byte of `r` that `held` lacks, or r's end where it holds them all: a binary
// search on the longest held prefix of r (holds() is monotone in the prefix length).
std::uint64_t first_missing(const HeldBytes& held, ByteRange r) {
  if (held.holds(r)) return r.offset + r.length;
  std::uint64_t lo = 0, hi = r.length;  // it holds the prefix of length lo, not that of hi
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (held.holds({r.offset, mid}) ? lo : hi) = mid;
  }
  return r.offset + lo;
}

// One expanded transfer, named from the sender's side whichever side lists it.
struct Message {
  std::uint32_t round;
  int sender;
  int receiver;
  std::size_t seq;     // round model: position among the pair's messages of its round
  std::size_t listed;  // position among all sends (receives) as collected: rank by rank,
                       // each rank's in its expanded order
  ByteRange bytes;
  auto round_key() const { return std::tie(round, sender, receiver, seq); }
};

// Stable counting sort by key(m) < buckets: O(n + buckets), where std::sort on 4-field keys
// dominated the verifier's time.
template <class Key>
void counting_sort(std::vector<Message>& messages, std::size_t buckets, Key key) {
  std::vector<std::size_t> start(buckets + 1);
  for (const Message& m : messages) ++start[key(m) + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  std::vector<Message> sorted(messages.size());
  for (const Message& m : messages) sorted[start[key(m)]++] = m;
  messages.swap(sorted);
}

std::string describe(const Message& m, const char* what) {
  std::ostringstream out;
  out << what << " round " << m.round << " " << m.sender << "->" << m.receiver << " bytes "
      << text(m.bytes);
  return out.str();
}

// The messages of one ordered pair, in the sorted sends and receives of the dataflow play.
struct Pair {
  int sender;
  int receiver;
  std::size_t sends;     // index of its first message in sends_
  std::size_t receives;  // ... in recvs_
  std::size_t count;     // messages (the same on both sides, or no play)
};

class Verifier {
 public:
  Verifier(const std::vector<RankSchedule>& schedules, const BcastShape& shape) : shape_(shape) {
    if (schedules.size() != static_cast<std::size_t>(shape.procs)) {
      problem(std::to_string(schedules.size()) + " schedules for " + std::to_string(shape.procs) +
              " ranks");
      unusable_ = true;
      return;
    }
    for (int rank = 0; rank < shape.procs; ++rank) {
      recv_begin_.push_back(recvs_.size());
      collect(schedules[rank], rank);
    }
    recv_begin_.push_back(recvs_.size());
    recv_pair_.resize(recvs_.size());
    end_check();
    // Pair order: by (sender, receiver), each side's messages in their listed order.
    for (std::vector<Message>* messages : {&sends_, &recvs_}) {
      counting_sort(*messages, shape.procs, [](const Message& m) { return m.receiver; });
      counting_sort(*messages, shape.procs, [](const Message& m) { return m.sender; });
    }
  }

  VerifyReport run() {
    if (unusable_) return std::move(report_);
    check_rounds();
    check_final_holdings();
    if (check_pairs()) {
      // A stall with a window stalls with any smaller one: try the largest first.
      if (play_dataflow(0)) play_dataflow(1);
    }
    return std::move(report_);
  }

 private:
  // Each check reports at most kShown problems, so that one cannot hide the others.
  static constexpr std::size_t kShown = 8;
  void problem(std::string line) {
    if (++shown_ <= kShown) report_.problems.push_back(std::move(line));
  }
  void end_check() {
    if (shown_ > kShown) {
      report_.problems.push_back("... " + std::to_string(shown_ - kShown) + " more");
    }
    shown_ = 0;
  }

  void collect(const RankSchedule& schedule, int rank) {
    const std::string who = "rank " + std::to_string(rank);
    if (schedule.rank != rank) {
      problem(who + "'s schedule is rank " + std::to_string(schedule.rank) + "'s");
    }
    std::vector<Operation> ops;
    try {
      ops = expand(schedule);
    } catch (const std::exception& e) {
      problem(who + "'s schedule does not expand: " + e.what());
      return;
    }
    for (const Operation& op : ops) {
      const bool send = op.direction == Direction::send;
      const auto bad = [&](const std::string& why) {
        problem(who + (send ? " sends " : " receives ") + text(op.bytes) +
                (send ? " to " : " from ") + std::to_string(op.peer) + ": " + why);
      };
      if (op.peer == rank || op.peer < 0 || op.peer >= shape_.procs) {
        bad(op.peer == rank ? "talks to itself" : "no such rank");
        continue;
      }
      if (op.bytes.offset > shape_.bytes || op.bytes.length > shape_.bytes - op.bytes.offset) {
        bad("outside the buffer of " + std::to_string(shape_.bytes) + " bytes");
      }
      std::vector<Message>& list = send ? sends_ : recvs_;
      list.push_back(Message{op.round, send ? rank : op.peer, send ? op.peer : rank, 0, list.size(),
                             op.bytes});
    }
  }

  // ---- Round model ----

  // Sorts messages in pair order by round (stably: (round, sender, receiver, listed order))
  // and numbers seq within each (round, sender, receiver): the k-th send of a round then
  // has to match the k-th receive.
  static void number_pairs(std::vector<Message>& messages) {
    std::uint32_t last = 0;
    for (const Message& m : messages) last = std::max(last, m.round);
    if (last < 4 * messages.size() + 64) {
      counting_sort(messages, last + std::size_t{1}, [](const Message& m) { return m.round; });
    } else {  // sparse rounds, in hand-made schedules
      std::stable_sort(messages.begin(), messages.end(),
                       [](const Message& a, const Message& b) { return a.round < b.round; });
    }
    for (std::size_t i = 0; i < messages.size(); ++i) {
      const bool same = i > 0 && messages[i - 1].round == messages[i].round &&
                        messages[i - 1].sender == messages[i].sender &&
                        messages[i - 1].receiver == messages[i].receiver;
      messages[i].seq = same ? messages[i - 1].seq + 1 : 0;
    }
  }

  void check_rounds() {
    std::vector<Message> sends = sends_, recvs = recvs_;
    number_pairs(sends);
    number_pairs(recvs);
    bool matched = true;
    std::size_t i = 0, j = 0;
    while (i < sends.size() || j < recvs.size()) {
      if (j == recvs.size() || (i < sends.size() && sends[i].round_key() < recvs[j].round_key())) {
        problem(describe(sends[i++], "unmatched send"));
        matched = false;
      } else if (i == sends.size() || recvs[j].round_key() < sends[i].round_key()) {
        problem(describe(recvs[j++], "unmatched receive"));
        matched = false;
      } else {
        if (!(sends[i].bytes == recvs[j].bytes)) {
          problem(describe(sends[i], "size mismatch") + " vs receive " + text(recvs[j].bytes));
          matched = false;
        }
        ++i, ++j;
      }
    }
    end_check();
    if (matched) play_rounds(sends, recvs);
  }

  // Holdings per rank, round by round: sends first check what the sender held before the
  // round, then the round's receives add their bytes. `sends` and `recvs` are matched one
  // to one, sorted by round and pair alike.
  void play_rounds(const std::vector<Message>& sends, const std::vector<Message>& recvs) {
    std::vector<HeldBytes> held(shape_.procs);
    held[shape_.root].add({0, shape_.bytes});
    std::size_t next = 0;
    while (next < sends.size()) {
      const std::uint32_t round = sends[next].round;
      std::size_t end = next;
      while (end < sends.size() && sends[end].round == round) ++end;
      for (std::size_t k = next; k < end; ++k) {
        const Message& m = sends[k];
        if (!held[m.sender].holds(m.bytes)) problem(describe(m, "sends bytes it does not hold:"));
      }
      for (std::size_t k = next; k < end; ++k) {
        const Message& m = recvs[k];
        if (const std::uint64_t again = held[m.receiver].add(m.bytes); again > 0) {
          report_.redundant_bytes += again;
          report_.redundant_receives += 1;
        }
      }
      next = end;
    }
    end_check();
  }

  // ---- Both models: what the ranks end with ----

  // Every rank's receives together (in either model, all of them complete in a correct
  // play) must cover the buffer: checked up to its last byte.
  void check_final_holdings() {
    std::vector<HeldBytes> held(shape_.procs);
    held[shape_.root].add({0, shape_.bytes});
    for (const Message& m : recvs_) held[m.receiver].add(m.bytes);
    for (int rank = 0; rank < shape_.procs; ++rank) {
      const std::uint64_t missing = first_missing(held[rank], {0, shape_.bytes});
      if (missing < shape_.bytes) {
        problem("rank " + std::to_string(rank) + " ends without byte " + std::to_string(missing) +
                " of " + std::to_string(shape_.bytes));
      }
    }
    end_check();
  }

  // ---- Dataflow model ----

  // Pair order: each pair's sends in the sender's order carry the byte ranges of the pair's
  // receives in the receiver's order. Builds pairs_ and recv_pair_ for the play.
  bool check_pairs() {
    const auto pair_of = [](const Message& m) { return std::pair(m.sender, m.receiver); };
    // One past the messages of m's pair from m on.
    const auto pair_end = [&](const std::vector<Message>& messages, std::size_t at) {
      std::size_t end = at;
      while (end < messages.size() && pair_of(messages[end]) == pair_of(messages[at])) ++end;
      return end;
    };
    bool ok = true;
    std::size_t i = 0, j = 0;
    while (i < sends_.size() || j < recvs_.size()) {
      // The next pair in (sender, receiver) order, and its messages on either side.
      const auto [sender, receiver] = j == recvs_.size() ? pair_of(sends_[i])
                                      : i == sends_.size()
                                          ? pair_of(recvs_[j])
                                          : std::min(pair_of(sends_[i]), pair_of(recvs_[j]));
      const bool sends = i < sends_.size() && pair_of(sends_[i]) == std::pair(sender, receiver);
      const bool recvs = j < recvs_.size() && pair_of(recvs_[j]) == std::pair(sender, receiver);
      const std::size_t sent = (sends ? pair_end(sends_, i) : i) - i;
      const std::size_t received = (recvs ? pair_end(recvs_, j) : j) - j;
      if (sent != received) {
        problem(std::to_string(sender) + " sends " + std::to_string(sent) + " messages to " +
                std::to_string(receiver) + ", " + std::to_string(receiver) + " receives " +
                std::to_string(received));
        ok = false;
      }
      for (std::size_t k = 0; k < std::min(sent, received); ++k) {
        if (!(sends_[i + k].bytes == recvs_[j + k].bytes)) {
          problem("pair " + std::to_string(sender) + "->" + std::to_string(receiver) +
                  ": message " + std::to_string(k) + ": send " + text(sends_[i + k].bytes) +
                  " vs receive " + text(recvs_[j + k].bytes));
          ok = false;
        }
      }
      for (std::size_t k = 0; k < received; ++k) recv_pair_[recvs_[j + k].listed] = pairs_.size();
      pairs_.push_back(Pair{sender, receiver, i, j, std::min(sent, received)});
      i += sent, j += received;
    }
    end_check();
    return ok;
  }

  // The executor's rule played to its end (a fixpoint: the order of events does not
  // change what completes). window: receives a rank has posted and not completed, at most
  // (0: unbounded). Messages of a pair complete in order: message k once the pair's k-th
  // send and k-th receive are both posted. A blocked send waits in `waiters` under the
  // first byte it lacks, so that each arrival wakes only the sends it may unblock.
  bool play_dataflow(std::size_t window) {
    const std::size_t count = pairs_.size();
    std::vector<std::size_t> sent(count), posted(count), done(count);
    std::vector<bool> blocked(count);
    std::vector<HeldBytes> held(shape_.procs);
    held[shape_.root].add({0, shape_.bytes});
    std::vector<std::multimap<std::uint64_t, std::size_t>> waiters(shape_.procs);
    std::vector<std::size_t> next_recv(recv_begin_.begin(), recv_begin_.end() - 1);
    std::vector<std::size_t> in_flight(shape_.procs);
    std::vector<std::size_t> work;  // pairs that may progress

    const auto post_receives = [&](int rank) {
      while (next_recv[rank] < recv_begin_[rank + 1] && (window == 0 || in_flight[rank] < window)) {
        const std::size_t p = recv_pair_[next_recv[rank]++];
        ++posted[p], ++in_flight[rank];
        work.push_back(p);
      }
    };
    for (int rank = 0; rank < shape_.procs; ++rank) post_receives(rank);
    for (std::size_t p = 0; p < count; ++p) work.push_back(p);

    while (!work.empty()) {
      const std::size_t p = work.back();
      work.pop_back();
      const Pair& pair = pairs_[p];
      while (!blocked[p] && sent[p] < pair.count) {
        const ByteRange bytes = sends_[pair.sends + sent[p]].bytes;
        const std::uint64_t missing = first_missing(held[pair.sender], bytes);
        if (missing == bytes.offset + bytes.length) {
          ++sent[p];
        } else {
          blocked[p] = true;
          waiters[pair.sender].emplace(missing, p);
        }
      }
      while (done[p] < std::min(sent[p], posted[p])) {
        const ByteRange bytes = recvs_[pair.receives + done[p]++].bytes;
        held[pair.receiver].add(bytes);
        auto& waiting = waiters[pair.receiver];
        for (auto it = waiting.lower_bound(bytes.offset);
             it != waiting.end() && it->first < bytes.offset + bytes.length;) {
          blocked[it->second] = false;
          work.push_back(it->second);
          it = waiting.erase(it);
        }
        --in_flight[pair.receiver];
        post_receives(pair.receiver);
      }
    }

    std::size_t total = 0, completed = 0;
    for (std::size_t p = 0; p < count; ++p) total += pairs_[p].count, completed += done[p];
    if (completed == total) return true;
    const std::string model =
        window == 0 ? "unbounded receive window" : "receive window " + std::to_string(window);
    problem("dataflow play (" + model + ") stalls: " + std::to_string(total - completed) + " of " +
            std::to_string(total) + " messages never complete");
    // Every stall has a send that waits for bytes: a receive that is never posted waits
    // behind receives whose sends are not posted.
    for (int rank = 0; rank < shape_.procs; ++rank) {
      for (const auto& [missing, p] : waiters[rank]) {
        const Pair& pair = pairs_[p];
        problem("rank " + std::to_string(rank) + " cannot send " +
                text(sends_[pair.sends + sent[p]].bytes) + " to " + std::to_string(pair.receiver) +
                " (message " + std::to_string(sent[p]) + " of the pair): it never holds byte " +
                std::to_string(missing));
      }
    }
    end_check();
    return false;
  }

  BcastShape shape_;
  // Every valid send and receive, sorted by pair and then each side's order.
  std::vector<Message> sends_;
  std::vector<Message> recvs_;
  std::vector<std::size_t> recv_begin_;  // rank r's receives are listed recv_begin_[r]..[r + 1)
  std::vector<std::size_t> recv_pair_;   // the pair of each receive, by listed position
  std::vector<Pair> pairs_;
  std::size_t shown_ = 0;  // problems of the current check
  bool unusable_ = false;  // not one schedule per rank
  VerifyReport report_;
};

}  // namespace

VerifyReport verify_schedules(const std::vector<RankSchedule>& schedules, const BcastShape& shape) {
  return Verifier(schedules, shape).run();
}

VerifyReport verify_schedule(const AlgorithmSpec& algorithm, const BcastShape& shape) {
  if (shape.bytes == 0) return {};
  std::vector<RankSchedule> schedules;
  schedules.reserve(shape.procs);
  for (int rank = 0; rank < shape.procs; ++rank) {
    schedules.push_back(make_schedule(algorithm, shape, rank));
  }
  return verify_schedules(schedules, shape);
}

}  // namespace leancast
