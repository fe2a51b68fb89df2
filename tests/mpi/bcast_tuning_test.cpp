// Online tuning (LEANCAST_TUNE=online, set by the test's registration) on real MPI: every
// trial is a complete, correct broadcast (every byte checked on every rank, after every call),
// with a non-zero root and with ranks that describe the same bytes with different datatypes;
// all ranks settle a size class at the same call and on the same winner; classes are by
// bytes; a fresh communicator starts untuned; a call that names its algorithm is never tuned;
// set_tuning("off") stops it; LEANCAST_TUNE_CANDIDATES=a,b restricts the candidates. The
// tests never look at times: which candidate wins is the machine's business, that the ranks
// agree on it is leancast's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <leancast/leancast.hpp>

#include "test_support.hpp"

namespace leancast::test {
namespace {

// What the registration set (the library's defaults otherwise): calls per candidate.
int setting(const char* name, int fallback) {
  const char* text = std::getenv(name);
  return text != nullptr && *text != '\0' ? std::atoi(text) : fallback;
}
int calls_per_candidate() {
  return setting("LEANCAST_TUNE_WARMUP", 1) + setting("LEANCAST_TUNE_TRIALS", 8);
}

// A communicator of the test's own, freed at the end of the scope.
class OwnedComm {
 public:
  explicit OwnedComm(MPI_Comm from) { MPI_Comm_dup(from, &comm_); }
  ~OwnedComm() { MPI_Comm_free(&comm_); }
  OwnedComm(const OwnedComm&) = delete;
  OwnedComm& operator=(const OwnedComm&) = delete;
  operator MPI_Comm() const { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

int rank_of(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}
int size_of(MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  return size;
}

// How a rank describes `bytes` bytes (a multiple of 16) in its call number `call`: MPI_INT,
// MPI_BYTE, or a derived type of 4 ints (which leancast packs), changing with rank and call,
// so that the ranks of one broadcast mostly use different datatypes for the same bytes.
struct Layout {
  MPI_Datatype type;
  int count;
  const char* name;
};
Layout layout_of(MPI_Comm comm, std::uint64_t bytes, int call) {
  static const MPI_Datatype four_ints = [] {
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_Type_contiguous(4, MPI_INT, &type);
    MPI_Type_commit(&type);
    return type;
  }();
  const auto n = static_cast<int>(bytes);
  switch ((rank_of(comm) + call) % 3) {
    case 0:
      return {MPI_INT, n / 4, "MPI_INT"};
    case 1:
      return {MPI_BYTE, n, "MPI_BYTE"};
    default:
      return {four_ints, n / 16, "4 x MPI_INT"};
  }
}

constexpr std::size_t kGuard = 64;  // bytes past the message that must stay untouched

// One broadcast of `bytes` bytes from `root` (a = a named algorithm, or none), checked on this
// rank: every byte the root's, nothing written past the end. Returns the wrong bytes (-1: the
// call failed).
long checked_bcast(MPI_Comm comm, std::uint64_t bytes, int root, int call,
                   std::optional<Algorithm> named = std::nullopt) {
  const int rank = rank_of(comm);
  const std::uint64_t seed = bytes * 1009 + static_cast<std::uint64_t>(call);
  std::vector<unsigned char> buf(bytes + kGuard, 0x5A);
  for (std::uint64_t i = 0; i < bytes; ++i) {
    buf[i] = rank == root ? pattern(seed, i) : static_cast<unsigned char>(~pattern(seed, i));
  }
  const Layout layout = layout_of(comm, bytes, call);
  const int rc = named ? bcast(buf.data(), layout.count, layout.type, root, comm, *named)
                       : bcast(buf.data(), layout.count, layout.type, root, comm);
  if (rc != MPI_SUCCESS) return -1;
  long wrong = 0;
  for (std::uint64_t i = 0; i < bytes; ++i) wrong += buf[i] != pattern(seed, i);
  for (std::size_t i = 0; i < kGuard; ++i) wrong += buf[bytes + i] != 0x5A;
  return wrong;
}

// A non-zero root that changes from call to call (rank 0 at P = 1).
int root_for(MPI_Comm comm, int call) {
  const int procs = size_of(comm);
  return procs > 1 ? 1 + call % (procs - 1) : 0;
}

std::string name_of(const std::optional<AlgorithmSpec>& spec) {
  return spec ? to_string(*spec) : std::string("(untuned)");
}

// Every rank's text, in rank order (collective on `comm`).
std::vector<std::string> all_ranks(MPI_Comm comm, const std::string& mine) {
  constexpr int kWidth = 128;
  char text[kWidth] = {};
  std::strncpy(text, mine.c_str(), kWidth - 1);
  std::vector<char> every(static_cast<std::size_t>(kWidth) * size_of(comm));
  MPI_Allgather(text, kWidth, MPI_CHAR, every.data(), kWidth, MPI_CHAR, comm);
  std::vector<std::string> out;
  for (int r = 0; r < size_of(comm); ++r)
    out.emplace_back(&every[static_cast<std::size_t>(r) * kWidth]);
  return out;
}

// True when every rank has a winner for `bytes` on `comm`; fails the test when only some
// ranks have one (the ranks must settle a class at the same call).
bool settled_everywhere(MPI_Comm comm, std::uint64_t bytes, int call) {
  const int mine = tuned_algorithm(comm, bytes).has_value() ? 1 : 0;
  int fewest = 0, most = 0;
  MPI_Allreduce(&mine, &fewest, 1, MPI_INT, MPI_MIN, comm);
  MPI_Allreduce(&mine, &most, 1, MPI_INT, MPI_MAX, comm);
  EXPECT_EQ(fewest, most) << "after call " << call << ", " << bytes
                          << " bytes are tuned on some ranks only";
  return fewest == 1;
}

// The winner of `bytes`'s class, the same on every rank (else the test fails).
std::string agreed_winner(MPI_Comm comm, std::uint64_t bytes) {
  const std::string mine = name_of(tuned_algorithm(comm, bytes));
  const std::vector<std::string> every = all_ranks(comm, mine);
  for (std::size_t r = 0; r < every.size(); ++r) {
    EXPECT_EQ(every[r], every[0]) << "rank " << r << " tuned " << bytes << " bytes to " << every[r]
                                  << ", rank 0 to " << every[0];
  }
  EXPECT_NE(mine, "(untuned)");
  return every[0];
}

// Broadcasts `bytes` (by default, root changing) until every rank settled its class; checks
// the data of every call and that no rank is tuned before the last. Returns the calls made.
int tune_class(MPI_Comm comm, std::uint64_t bytes, int limit) {
  EXPECT_FALSE(tuned_algorithm(comm, bytes).has_value()) << bytes << " bytes tuned before a call";
  for (int call = 1; call <= limit; ++call) {
    EXPECT_EQ(checked_bcast(comm, bytes, root_for(comm, call), call), 0)
        << bytes << " bytes, call " << call << " (on trial)";
    if (settled_everywhere(comm, bytes, call)) return call;
  }
  ADD_FAILURE() << bytes << " bytes still untuned after " << limit << " calls";
  return limit;
}

// The default candidates: mpi and up to 3 of leancast's (LEANCAST_TUNE_CANDIDATES=4), each
// tried for the same number of calls.
void expect_default_trial_count(int calls, std::uint64_t bytes) {
  const int per = calls_per_candidate();
  EXPECT_EQ(calls % per, 0) << bytes << " bytes settled after " << calls << " calls, not a "
                            << "multiple of " << per << " (warm-up + trials) per candidate";
  EXPECT_GE(calls, 2 * per) << bytes << " bytes: fewer than two candidates tried";
  EXPECT_LE(calls, 4 * per) << bytes << " bytes: more than four candidates tried";
}

TEST(BcastTuning, DataCorrectDuringTrialsAndEveryRankSettlesOnTheSameWinner) {
  if (world_size() < 2) GTEST_SKIP() << "one rank: nothing to tune";
  OwnedComm comm(MPI_COMM_WORLD);
  // 64 KiB and 96 KiB share one class ([65536, 131071]): their calls feed the same trials.
  // The classes are tried side by side, round by round.
  const std::vector<std::uint64_t> sizes = {1024, 65536, 98304, std::uint64_t{1} << 20};
  const std::vector<int> classes = {10, 16, 16, 20};
  std::vector<int> calls_in_class(21, 0), settled_at(21, 0);
  const int limit = 4 * calls_per_candidate() * 2 + 8;
  for (int round = 1; round <= limit; ++round) {
    bool all_settled = true;
    for (std::size_t s = 0; s < sizes.size(); ++s) {
      const int k = classes[s];
      if (settled_at[k] != 0) continue;
      all_settled = false;
      const int call = ++calls_in_class[k];
      const long wrong = checked_bcast(comm, sizes[s], root_for(comm, round), call);
      EXPECT_EQ(wrong, 0) << sizes[s] << " bytes, round " << round << " ("
                          << layout_of(comm, sizes[s], call).name << " on this rank)";
      if (settled_everywhere(comm, sizes[s], call)) settled_at[k] = call;
    }
    if (all_settled) break;
  }
  for (int k : {10, 16, 20}) {
    ASSERT_NE(settled_at[k], 0) << "class " << k << " never settled";
    expect_default_trial_count(settled_at[k], std::uint64_t{1} << k);
  }
  // Both sizes of class 16 fed its trials (else it would have needed twice the calls).
  EXPECT_EQ(tuned_algorithm(comm, 65536), tuned_algorithm(comm, 98304));
  // The class is by bytes: its bounds are tuned, the neighbours' are not.
  EXPECT_TRUE(tuned_algorithm(comm, 131071).has_value());
  EXPECT_FALSE(tuned_algorithm(comm, 65535).has_value());
  EXPECT_FALSE(tuned_algorithm(comm, 131072).has_value());
  EXPECT_FALSE(tuned_algorithm(comm, 0).has_value());

  std::vector<std::string> winners;
  for (std::uint64_t bytes : {std::uint64_t{1024}, std::uint64_t{65536}, std::uint64_t{1} << 20}) {
    winners.push_back(agreed_winner(comm, bytes));
  }
  if (rank_of(comm) == 0) {
    std::printf("online tuning at P=%d: 1 KiB -> %s, 64 KiB -> %s, 1 MiB -> %s\n", size_of(comm),
                winners[0].c_str(), winners[1].c_str(), winners[2].c_str());
  }
  // The winners run from now on: still correct, and settled for good.
  for (int call = 1000; call < 1006; ++call) {
    for (std::uint64_t bytes :
         {std::uint64_t{1024}, std::uint64_t{120000}, std::uint64_t{1} << 20}) {
      EXPECT_EQ(checked_bcast(comm, bytes, root_for(comm, call), call), 0)
          << bytes << " bytes, tuned";
    }
  }
  EXPECT_EQ(agreed_winner(comm, 1024), winners[0]);
  EXPECT_EQ(agreed_winner(comm, 120000), winners[1]);
  EXPECT_EQ(agreed_winner(comm, std::uint64_t{1} << 20), winners[2]);
}

TEST(BcastTuning, AFreshDuplicateStartsUntuned) {
  if (world_size() < 2) GTEST_SKIP() << "one rank: nothing to tune";
  OwnedComm first(MPI_COMM_WORLD);
  const int limit = 4 * calls_per_candidate() + 1;
  expect_default_trial_count(tune_class(first, 4096, limit), 4096);
  const std::string winner = agreed_winner(first, 4096);
  OwnedComm second(static_cast<MPI_Comm>(first));
  EXPECT_FALSE(tuned_algorithm(second, 4096).has_value());
  EXPECT_EQ(checked_bcast(second, 4096, root_for(second, 1), 1), 0);
  EXPECT_FALSE(tuned_algorithm(second, 4096).has_value())
      << "one call settled a fresh communicator";
  EXPECT_EQ(name_of(tuned_algorithm(first, 4096)), winner)
      << "the duplicate's trials changed its parent's";
  expect_default_trial_count(tune_class(second, 4096, limit) + 1, 4096);
  agreed_winner(second, 4096);
  EXPECT_FALSE(tuned_algorithm(MPI_COMM_WORLD, 4096).has_value());
}

TEST(BcastTuning, ACallThatNamesItsAlgorithmIsNeverTuned) {
  if (world_size() < 2) GTEST_SKIP() << "one rank: nothing to tune";
  OwnedComm comm(MPI_COMM_WORLD);
  const int per = calls_per_candidate();
  // Named calls only: never a trial.
  for (int call = 1; call <= 4 * per + 2; ++call) {
    EXPECT_EQ(checked_bcast(comm, 4096, root_for(comm, call), call, Algorithm::binomial), 0);
  }
  EXPECT_FALSE(tuned_algorithm(comm, 4096).has_value()) << "binomial named, yet tuned";
  // Three named calls before each unnamed one: if the named ones counted, the class would
  // settle after a quarter of the unnamed calls it needs.
  int unnamed = 0;
  for (int call = 1; call <= 4 * per + 1; ++call) {
    for (int named = 0; named < 3; ++named) {
      EXPECT_EQ(
          checked_bcast(comm, 4096, root_for(comm, named), call * 10 + named, Algorithm::binomial),
          0);
    }
    EXPECT_EQ(checked_bcast(comm, 4096, root_for(comm, call), call), 0);
    ++unnamed;
    if (settled_everywhere(comm, 4096, call)) break;
  }
  expect_default_trial_count(unnamed, 4096);
  // auto named is auto deciding: tuned like the default.
  OwnedComm other(MPI_COMM_WORLD);
  int calls = 0;
  for (int call = 1; call <= 4 * per + 1; ++call) {
    EXPECT_EQ(checked_bcast(other, 4096, root_for(other, call), call, Algorithm::automatic), 0);
    calls = call;
    if (settled_everywhere(other, 4096, call)) break;
  }
  expect_default_trial_count(calls, 4096);
  agreed_winner(other, 4096);
}

TEST(BcastTuning, SetTuningOffStopsTrials) {
  if (world_size() < 2) GTEST_SKIP() << "one rank: nothing to tune";
  EXPECT_FALSE(set_tuning("sometimes"));
  ASSERT_TRUE(set_tuning("off"));
  {
    OwnedComm comm(MPI_COMM_WORLD);
    for (int call = 1; call <= 4 * calls_per_candidate() + 2; ++call) {
      EXPECT_EQ(checked_bcast(comm, 8192, root_for(comm, call), call), 0);
    }
    EXPECT_FALSE(tuned_algorithm(comm, 8192).has_value()) << "tuned with set_tuning(\"off\")";
  }
  ASSERT_TRUE(set_tuning(""));  // LEANCAST_TUNE=online again
  {
    OwnedComm comm(MPI_COMM_WORLD);
    expect_default_trial_count(tune_class(comm, 8192, 4 * calls_per_candidate() + 1), 8192);
    agreed_winner(comm, 8192);
  }
}

// LEANCAST_TUNE_CANDIDATES=a,b,... (the registration tuning_list sets it): exactly those
// candidates and mpi are tried, so the winner is one of them.
TEST(BcastTuningList, TheWinnerIsListedOrMpi) {
  const char* list = std::getenv("LEANCAST_TUNE_CANDIDATES");
  if (list == nullptr || std::strchr(list, ',') == nullptr) {
    GTEST_SKIP() << "runs with LEANCAST_TUNE_CANDIDATES=a,b,... (the tuning_list tests)";
  }
  if (world_size() < 2) GTEST_SKIP() << "one rank: nothing to tune";
  std::vector<std::string> allowed{"mpi"};
  for (std::string rest = list; !rest.empty();) {
    const std::size_t comma = rest.find(',');
    const auto spec = parse_algorithm_spec(rest.substr(0, comma));
    ASSERT_TRUE(spec.has_value()) << rest;
    allowed.push_back(to_string(*spec));
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
  }
  OwnedComm comm(MPI_COMM_WORLD);
  const int per = calls_per_candidate();
  for (std::uint64_t bytes : {std::uint64_t{1024}, std::uint64_t{65536}, std::uint64_t{1} << 20}) {
    const int calls = tune_class(comm, bytes, static_cast<int>(allowed.size()) * per + 1);
    EXPECT_EQ(calls, static_cast<int>(allowed.size()) * per)
        << bytes << " bytes: not exactly the listed candidates and mpi were tried";
    const std::string winner = agreed_winner(comm, bytes);
    EXPECT_TRUE(std::find(allowed.begin(), allowed.end(), winner) != allowed.end())
        << bytes << " bytes: the winner " << winner << " is neither listed nor mpi (" << list
        << ")";
  }
}

}  // namespace
}  // namespace leancast::test
