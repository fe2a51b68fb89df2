// The verifier on broken schedules: correct schedules of a few algorithms, each broken in one
// way (a byte missing at the end, a size mismatch, a pair out of order, a send of bytes that
// only arrive later, a receive nobody sends, a transfer past the buffer, a rank talking to
// itself); every break must give a problem, the untouched schedules none. A send of bytes
// that arrive later is wrong in rounds, and in the dataflow model only where the bytes can
// never arrive (a cycle): both cases are here, and a schedule that stalls only when receives
// are posted one at a time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>

#include <leancast/analysis.hpp>

namespace leancast {
namespace {

// Every rank's messages in its expanded order, one Operation each, so that a test can break
// one message.
using Messages = std::vector<std::vector<Operation>>;

// Back to schedules: each message one Transfer over one-byte blocks that span twice the
// buffer, so that a test can also write ranges past its end.
std::vector<RankSchedule> schedules_of(const Messages& messages, const BcastShape& shape) {
  std::vector<RankSchedule> schedules(messages.size());
  for (std::size_t rank = 0; rank < messages.size(); ++rank) {
    schedules[rank].rank = static_cast<int>(rank);
    schedules[rank].phases = {Phase{"bytes", BlockLayout(2 * shape.bytes, 2 * shape.bytes)}};
    for (const Operation& op : messages[rank]) {
      schedules[rank].transfers.push_back(Transfer{.direction = op.direction,
                                                   .peer = op.peer,
                                                   .round = op.round,
                                                   .first_block = op.bytes.offset,
                                                   .block_span = op.bytes.length});
    }
  }
  return schedules;
}

bool is_send(const Operation& op) { return op.direction == Direction::send; }
bool overlaps(ByteRange a, ByteRange b) {
  return a.offset < b.offset + b.length && b.offset < a.offset + a.length;
}
std::string text(ByteRange r) {
  return "[" + std::to_string(r.offset) + ", +" + std::to_string(r.length) + ")";
}

// The position in `sender`'s list of the send that matches `receiver`'s message `at`: the
// k-th message of the pair on both sides.
std::size_t matching_send(const Messages& messages, int receiver, std::size_t at) {
  const int sender = messages[receiver][at].peer;
  std::size_t k = 0;
  for (std::size_t i = 0; i < at; ++i) {
    const Operation& op = messages[receiver][i];
    k += !is_send(op) && op.peer == sender;
  }
  for (std::size_t i = 0; i < messages[sender].size(); ++i) {
    const Operation& op = messages[sender][i];
    if (is_send(op) && op.peer == receiver && k-- == 0) return i;
  }
  ADD_FAILURE() << "no send matches receive " << at << " of rank " << receiver;
  return 0;
}

// Rank `rank`'s receives that overlap `bytes`.
std::vector<std::size_t> receives_of(const Messages& messages, int rank, ByteRange bytes) {
  std::vector<std::size_t> found;
  for (std::size_t i = 0; i < messages[rank].size(); ++i) {
    const Operation& op = messages[rank][i];
    if (!is_send(op) && overlaps(op.bytes, bytes)) found.push_back(i);
  }
  return found;
}

std::uint32_t last_round(const Messages& messages) {
  std::uint32_t last = 0;
  for (const auto& list : messages) {
    for (const Operation& op : list) last = std::max(last, op.round);
  }
  return last;
}

Operation message(Direction direction, int peer, std::uint32_t round, ByteRange bytes) {
  return Operation{.round = round, .direction = direction, .peer = peer, .bytes = bytes};
}

struct Case {
  const char* algorithm;
  BcastShape shape;
};

void PrintTo(const Case& c, std::ostream* out) {
  *out << c.algorithm << " P=" << c.shape.procs << " root=" << c.shape.root;
}

class BrokenSchedule : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    spec_ = parse_algorithm_spec(GetParam().algorithm).value();
    for (int rank = 0; rank < shape().procs; ++rank) {
      messages_.push_back(expand(make_schedule(spec_, shape(), rank)));
    }
  }
  const BcastShape& shape() const { return GetParam().shape; }
  VerifyReport verify() const {
    return verify_schedules(schedules_of(messages_, shape()), shape());
  }

  // Expects a problem containing each of `parts`; returns the report's problems as text.
  std::string expect_problem(const VerifyReport& report, std::vector<std::string> parts) const {
    std::string all;
    for (const std::string& p : report.problems) all += "\n  " + p;
    const bool found =
        std::any_of(report.problems.begin(), report.problems.end(), [&](const std::string& p) {
          return std::all_of(parts.begin(), parts.end(),
                             [&](auto& part) { return p.find(part) != std::string::npos; });
        });
    EXPECT_TRUE(found) << "no problem says \"" << parts.front() << "\"; problems:" << all;
    return all;
  }

  AlgorithmSpec spec_;
  Messages messages_;
};

TEST_P(BrokenSchedule, UntouchedSchedulesPass) {
  std::vector<RankSchedule> schedules;
  for (int rank = 0; rank < shape().procs; ++rank) {
    schedules.push_back(make_schedule(spec_, shape(), rank));
  }
  const VerifyReport direct = verify_schedules(schedules, shape());
  EXPECT_TRUE(direct.ok()) << direct.problems.front();
  const VerifyReport rewritten = verify();  // the same messages as one-byte-block transfers
  EXPECT_TRUE(rewritten.ok()) << rewritten.problems.front();
}

// A rank that receives the buffer's last byte once and forwards it to nobody loses it.
TEST_P(BrokenSchedule, RankMissingOnlyTheLastByte) {
  const ByteRange last{shape().bytes - 1, 1};
  for (int rank = 0; rank < shape().procs; ++rank) {
    const std::vector<std::size_t> receives = receives_of(messages_, rank, last);
    const bool forwards =
        std::any_of(messages_[rank].begin(), messages_[rank].end(),
                    [&](const Operation& op) { return is_send(op) && overlaps(op.bytes, last); });
    if (rank == shape().root || receives.size() != 1 || forwards) continue;
    const std::size_t send = matching_send(messages_, rank, receives[0]);
    messages_[rank][receives[0]].bytes.length -= 1;
    messages_[messages_[rank][receives[0]].peer][send].bytes.length -= 1;
    const VerifyReport report = verify();
    ASSERT_EQ(report.problems.size(), 1u) << expect_problem(report, {"ends without"});
    EXPECT_EQ(report.problems[0], "rank " + std::to_string(rank) + " ends without byte " +
                                      std::to_string(last.offset) + " of " +
                                      std::to_string(shape().bytes));
    return;
  }
  FAIL() << "no rank receives the last byte once without forwarding it";
}

// A send one byte shorter than its receive.
TEST_P(BrokenSchedule, SendShorterThanItsReceive) {
  for (int rank = 0; rank < shape().procs; ++rank) {
    for (std::size_t i = 0; i < messages_[rank].size(); ++i) {
      Operation& receive = messages_[rank][i];
      if (is_send(receive) || receive.bytes.length < 2) continue;
      messages_[receive.peer][matching_send(messages_, rank, i)].bytes.length -= 1;
      const VerifyReport report = verify();
      ByteRange shorter = receive.bytes;
      shorter.length -= 1;
      expect_problem(report, {std::to_string(receive.peer) + "->" + std::to_string(rank),
                              "send " + text(shorter) + " vs receive " + text(receive.bytes)});
      expect_problem(report, {"size mismatch"});
      return;
    }
  }
  FAIL() << "no receive of two bytes or more";
}

// A message split in two halves on both sides (still correct), then the halves swapped in
// the receiver's list only.
TEST_P(BrokenSchedule, PairOutOfOrderOnOneSide) {
  for (int rank = 0; rank < shape().procs; ++rank) {
    for (std::size_t i = 0; i < messages_[rank].size(); ++i) {
      const Operation receive = messages_[rank][i];
      if (is_send(receive) || receive.bytes.length < 2) continue;
      const std::uint64_t half = receive.bytes.length / 2;
      const ByteRange first{receive.bytes.offset, half};
      const ByteRange second{receive.bytes.offset + half, receive.bytes.length - half};
      for (auto [list, at] :
           {std::pair(&messages_[receive.peer], matching_send(messages_, rank, i)),
            std::pair(&messages_[rank], i)}) {
        (*list)[at].bytes = second;
        Operation front = (*list)[at];
        front.bytes = first;
        list->insert(list->begin() + static_cast<std::ptrdiff_t>(at), front);
      }
      const VerifyReport split = verify();
      ASSERT_TRUE(split.ok()) << split.problems.front();
      std::swap(messages_[rank][i].bytes, messages_[rank][i + 1].bytes);
      const std::string pair = std::to_string(receive.peer) + "->" + std::to_string(rank);
      expect_problem(verify(), {"pair " + pair + ": message",
                                "send " + text(first) + " vs receive " + text(second)});
      return;
    }
  }
  FAIL() << "no receive of two bytes or more";
}

// A receive moved (on both sides) behind everything: the rank's sends of its bytes come
// before it in the schedule. Wrong in rounds; the dataflow executor just waits for them.
TEST_P(BrokenSchedule, SendBeforeItsBytesArriveBreaksOnlyTheRounds) {
  for (int rank = 0; rank < shape().procs; ++rank) {
    auto& list = messages_[rank];
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Operation receive = list[i];
      if (rank == shape().root) break;
      const bool forwarded = std::any_of(list.begin() + i, list.end(), [&](const Operation& op) {
        return is_send(op) && overlaps(op.bytes, receive.bytes);
      });
      if (is_send(receive) || !forwarded) continue;
      auto& sender = messages_[receive.peer];
      const std::size_t send = matching_send(messages_, rank, i);
      const Operation moved_send = sender[send];
      const std::uint32_t later = last_round(messages_) + 1;
      sender.erase(sender.begin() + static_cast<std::ptrdiff_t>(send));
      list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
      sender.push_back(message(Direction::send, rank, later, moved_send.bytes));
      list.push_back(message(Direction::recv, receive.peer, later, receive.bytes));
      const VerifyReport report = verify();
      const std::string all = expect_problem(report, {"sends bytes it does not hold"});
      for (const std::string& p : report.problems) {  // the pairs match, both plays complete
        EXPECT_TRUE(p.starts_with("sends bytes it does not hold") || p.starts_with("... ")) << all;
      }
      return;
    }
  }
  FAIL() << "no rank forwards bytes it receives";
}

// Rank s forwards bytes X to r, and gets X only from r, after that send: r waits for X from
// s, s for X from r. Every rank still lists a receive of every byte: only the plays see it.
TEST_P(BrokenSchedule, SendOfBytesOnlyReceivedFromItsReceiver) {
  for (int s = 0; s < shape().procs; ++s) {
    for (const Operation& forward : messages_[s]) {
      const int r = forward.peer;
      const ByteRange x = forward.bytes;
      if (!is_send(forward) || s == shape().root || r == shape().root || x.length == 0) continue;
      const std::vector<std::size_t> at_s = receives_of(messages_, s, x);
      const std::vector<std::size_t> at_r = receives_of(messages_, r, x);
      if (at_s.size() != 1 || !(messages_[s][at_s[0]].bytes == x) || at_r.size() != 1 ||
          messages_[r][at_r[0]].peer != s || !(messages_[r][at_r[0]].bytes == x)) {
        continue;
      }
      const int q = messages_[s][at_s[0]].peer;  // X's sender until now: drop that message
      messages_[q].erase(messages_[q].begin() +
                         static_cast<std::ptrdiff_t>(matching_send(messages_, s, at_s[0])));
      messages_[s].erase(messages_[s].begin() + static_cast<std::ptrdiff_t>(at_s[0]));
      const std::uint32_t later = last_round(messages_) + 1;
      messages_[r].push_back(message(Direction::send, s, later, x));
      messages_[s].push_back(message(Direction::recv, r, later, x));
      const VerifyReport report = verify();
      const std::string all = expect_problem(
          report,
          {"rank " + std::to_string(s) + " cannot send " + text(x) + " to " + std::to_string(r),
           "never holds byte " + std::to_string(x.offset)});
      expect_problem(report, {"unbounded receive window) stalls"});
      EXPECT_EQ(all.find("ends without"), std::string::npos) << all;
      return;
    }
  }
  FAIL() << "no rank forwards bytes that it and its receiver each get once";
}

TEST_P(BrokenSchedule, ReceiveFromAPeerThatNeverSends) {
  const int rank = (shape().root + 1) % shape().procs;
  for (int peer = 0; peer < shape().procs; ++peer) {
    const bool sends =
        std::any_of(messages_[peer].begin(), messages_[peer].end(),
                    [&](const Operation& op) { return is_send(op) && op.peer == rank; });
    if (peer == rank || sends) continue;
    messages_[rank].push_back(
        message(Direction::recv, peer, last_round(messages_) + 1, ByteRange{0, 1}));
    const VerifyReport report = verify();
    expect_problem(report, {std::to_string(peer) + " sends 0 messages to " + std::to_string(rank) +
                            ", " + std::to_string(rank) + " receives 1"});
    expect_problem(report, {"unmatched receive"});
    return;
  }
  FAIL() << "every rank sends to rank " << rank;
}

// A message and its receive both reaching one byte past the buffer.
TEST_P(BrokenSchedule, TransferPastTheBuffer) {
  for (int rank = 0; rank < shape().procs; ++rank) {
    for (std::size_t i = 0; i < messages_[rank].size(); ++i) {
      Operation& receive = messages_[rank][i];
      if (is_send(receive)) continue;
      Operation& send = messages_[receive.peer][matching_send(messages_, rank, i)];
      receive.bytes = send.bytes = ByteRange{shape().bytes - 1, 2};
      expect_problem(verify(), {"receives [" + std::to_string(shape().bytes - 1) + ", +2)",
                                "outside the buffer of " + std::to_string(shape().bytes)});
      return;
    }
  }
  FAIL() << "no receive";
}

TEST_P(BrokenSchedule, RankTalkingToItselfOrToNobody) {
  const int root = shape().root;  // a rank that sends
  for (int bad_peer : {root, shape().procs}) {
    Messages broken = messages_;
    Operation& send = *std::find_if(broken[root].begin(), broken[root].end(), is_send);
    send.peer = bad_peer;
    expect_problem(verify_schedules(schedules_of(broken, shape()), shape()),
                   {"rank " + std::to_string(root) + " sends",
                    bad_peer == root ? "talks to itself" : "no such rank"});
  }
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string name = info.param.algorithm;
  for (char& c : name) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Verifier, BrokenSchedule,
                         ::testing::Values(Case{"scatter-ring-tuned", {7, 2, 1000}},
                                           Case{"pipeline-chain:100", {6, 4, 1000}},
                                           Case{"binomial", {9, 0, 1000}},
                                           Case{"node-aware:binomial/pipeline-chain:64",
                                                {10, 3, 1000, block_nodes(10, 3)}}),
                         case_name);

// Receives posted one at a time deadlock where rank 1 first waits for byte 1 from rank 2,
// which rank 2 gets from the root only after byte 0 from rank 1, which rank 1 gets from the
// root only after that first receive. With every receive posted at once it completes. (All
// in round 0: the round checks fail too.)
TEST(Verifier, StallsWithAWindowOfOneReceive) {
  const BcastShape shape{3, 0, 2};
  const Messages messages{
      {message(Direction::send, 1, 0, {0, 1}), message(Direction::send, 2, 0, {1, 1})},
      {message(Direction::recv, 2, 0, {1, 1}), message(Direction::recv, 0, 0, {0, 1}),
       message(Direction::send, 2, 0, {0, 1})},
      {message(Direction::recv, 1, 0, {0, 1}), message(Direction::recv, 0, 0, {1, 1}),
       message(Direction::send, 1, 0, {1, 1})},
  };
  const VerifyReport report = verify_schedules(schedules_of(messages, shape), shape);
  std::string all;
  for (const std::string& p : report.problems) all += "\n  " + p;
  EXPECT_NE(all.find("dataflow play (receive window 1) stalls"), std::string::npos) << all;
  EXPECT_NE(all.find("rank 2 cannot send [1, +1) to 1"), std::string::npos) << all;
  EXPECT_EQ(all.find("unbounded"), std::string::npos) << all;
}

TEST(Verifier, WantsOneScheduleForEachRank) {
  const BcastShape shape{3, 0, 10};
  std::vector<RankSchedule> schedules{make_schedule(Algorithm::binomial, shape, 0),
                                      make_schedule(Algorithm::binomial, shape, 1)};
  EXPECT_EQ(verify_schedules(schedules, shape).problems,
            std::vector<std::string>{"2 schedules for 3 ranks"});
  schedules.push_back(make_schedule(Algorithm::binomial, shape, 1));  // rank 1's again
  EXPECT_FALSE(verify_schedules(schedules, shape).ok());
}

}  // namespace
}  // namespace leancast
