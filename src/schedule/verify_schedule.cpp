#include <algorithm>
#include <map>
#include <sstream>
#include <tuple>

#include <leancast/analysis.hpp>

#include "held_bytes.hpp"

namespace leancast {

namespace {

using detail::HeldBytes;

// One expanded transfer seen from the sender's side: (round, sender, receiver, seq).
struct Message {
  std::uint32_t round;
  int sender;
  int receiver;
  std::size_t seq;  // position among the pair's messages of this round (MPI matching order)
  ByteRange bytes;
  auto key() const { return std::tie(round, sender, receiver, seq); }
};

std::string describe(const Message& m, const char* what) {
  std::ostringstream out;
  out << what << " round " << m.round << " " << m.sender << "->" << m.receiver << " bytes ["
      << m.bytes.offset << ", +" << m.bytes.length << ")";
  return out.str();
}

class Verifier {
 public:
  Verifier(const AlgorithmSpec& algorithm, const BcastShape& shape) : shape_(shape) {
    for (int rank = 0; rank < shape.procs; ++rank) {
      collect(make_schedule(algorithm, shape, rank));
    }
  }

  VerifyReport run() {
    check_structure();
    if (report_.ok()) play();
    return std::move(report_);
  }

 private:
  void problem(std::string text) {
    if (report_.problems.size() < 20) report_.problems.push_back(std::move(text));
  }

  void collect(const RankSchedule& schedule) {
    const std::vector<Operation> ops = expand(schedule);
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const Operation& op = ops[i];
      if (op.peer < 0 || op.peer >= shape_.procs || op.peer == schedule.rank) {
        problem("rank " + std::to_string(schedule.rank) + " talks to invalid peer " +
                std::to_string(op.peer));
        continue;
      }
      const bool send = op.direction == Direction::send;
      // seq starts as the position in this rank's list; number_pairs() makes it per pair.
      (send ? sends_ : recvs_)
          .push_back(Message{op.round, send ? schedule.rank : op.peer,
                             send ? op.peer : schedule.rank, i, op.bytes});
    }
  }

  // Sorts by (round, sender, receiver, list position) and renumbers seq within each
  // (round, sender, receiver): the k-th send then has to match the k-th receive.
  static void number_pairs(std::vector<Message>& messages) {
    std::sort(messages.begin(), messages.end(),
              [](const Message& a, const Message& b) { return a.key() < b.key(); });
    for (std::size_t i = 0; i < messages.size(); ++i) {
      const bool same = i > 0 && messages[i - 1].round == messages[i].round &&
                        messages[i - 1].sender == messages[i].sender &&
                        messages[i - 1].receiver == messages[i].receiver;
      messages[i].seq = same ? messages[i - 1].seq + 1 : 0;
    }
  }

  void check_structure() {
    number_pairs(sends_);
    number_pairs(recvs_);
    std::size_t i = 0, j = 0;
    while (i < sends_.size() || j < recvs_.size()) {
      if (j == recvs_.size() || (i < sends_.size() && sends_[i].key() < recvs_[j].key())) {
        problem(describe(sends_[i++], "unmatched send"));
      } else if (i == sends_.size() || recvs_[j].key() < sends_[i].key()) {
        problem(describe(recvs_[j++], "unmatched receive"));
      } else {
        if (!(sends_[i].bytes == recvs_[j].bytes)) problem(describe(sends_[i], "size mismatch"));
        ++i, ++j;
      }
    }
  }

  // Holdings per rank, round by round: sends first check what the sender held before the
  // round, then the round's receives add their bytes.
  void play() {
    std::vector<HeldBytes> held(shape_.procs);
    held[shape_.root].add({0, shape_.bytes});
    std::size_t next = 0;  // sends_ and recvs_ are sorted by round and pair alike
    while (next < sends_.size()) {
      const std::uint32_t round = sends_[next].round;
      std::size_t end = next;
      while (end < sends_.size() && sends_[end].round == round) ++end;
      for (std::size_t k = next; k < end; ++k) {
        const Message& m = sends_[k];
        if (!held[m.sender].holds(m.bytes)) problem(describe(m, "sends bytes it does not hold:"));
      }
      for (std::size_t k = next; k < end; ++k) {
        const Message& m = recvs_[k];
        if (const std::uint64_t again = held[m.receiver].add(m.bytes); again > 0) {
          report_.redundant_bytes += again;
          report_.redundant_receives += 1;
        }
      }
      next = end;
    }
    for (int rank = 0; rank < shape_.procs; ++rank) {
      if (!held[rank].holds({0, shape_.bytes})) {
        problem("rank " + std::to_string(rank) + " ends without every byte");
      }
    }
  }

  BcastShape shape_;
  std::vector<Message> sends_;
  std::vector<Message> recvs_;
  VerifyReport report_;
};

}  // namespace

VerifyReport verify_schedule(const AlgorithmSpec& algorithm, const BcastShape& shape) {
  if (shape.bytes == 0) return {};
  return Verifier(algorithm, shape).run();
}

}  // namespace leancast
