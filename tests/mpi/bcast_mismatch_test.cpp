// Ranks that disagree on a broadcast (an erroneous program, but a common bug): on the
// count (one rank larger or smaller), on the root, on the algorithm, for every algorithm.
// With MPI_ERRORS_RETURN every rank must return an error or exactly the root's bytes (a
// rank that takes itself for the root keeps its buffer), write nothing past its count, and
// the ranks a revealing or flagged message reaches (mismatch_model) must return an error.
// A case the model says would leave a rank waiting forever is not run; the hanging kinds
// are listed in docs/errors.md (LEANCAST_MISMATCH_REPORT=1 prints every one,
// LEANCAST_MISMATCH_CASE=TEXT runs the cases named so even if they hang).
//
// Each case runs on a fresh duplicate of MPI_COMM_WORLD, and a correct broadcast follows it
// on that communicator: it must succeed with the right data where no message was left
// over, and never deliver wrong data silently where some were (stale messages then stay on
// that communicator's pair of ranks, so later cases get their own, and such a communicator
// is kept to the end: see keep_or_free).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include <leancast/leancast.hpp>

#include "mismatch_model.hpp"
#include "mpi/run/broadcast_tag.hpp"
#include "test_support.hpp"
#include "select/automatic.hpp"

namespace leancast::test {
namespace {

constexpr std::uint64_t kBytes = 1000;  // 4 segments at 256-byte segments; every message eager
constexpr std::uint64_t kGuard = 64;
constexpr unsigned char kUnset = 0xEE;

std::vector<std::string> algorithms_under_test() {
  std::vector<std::string> names;
  // shm, cma and cma-split move no messages: the model does not describe them (their own
  // disagreement test is Levels/WithinNode.ARankThatDisagreesOnTheCountGetsAnError/*,
  // bcast_shm_test.cpp).
  for (Algorithm a : concrete_algorithms()) {
    if (!uses_shared_memory(a)) names.emplace_back(to_string(a));
  }
  // Several segments or blocks at kBytes, and node-aware levels named (several nodes under
  // LEANCAST_RANKS_PER_NODE).
  for (const char* name : {"pipeline-chain:256", "pipeline-binary-tree:256", "two-tree:256",
                           "knomial:3", "circulant:4", "node-aware:pipeline-chain:256/binomial",
                           "node-aware:binomial/scatter-ring-tuned"}) {
    names.emplace_back(name);
  }
  return names;
}

AlgorithmSpec spec_of(const std::string& name) { return *parse_algorithm_spec(name); }

int window() {
  const char* text = std::getenv("LEANCAST_WINDOW");
  return text != nullptr && std::atoi(text) > 0 ? std::atoi(text) : 4;  // the executor's default
}

int error_class(int code) {
  int cls = MPI_SUCCESS;
  MPI_Error_class(code, &cls);
  return cls;
}

struct Case {
  std::string what;
  std::vector<View> views;
  int odd = 0;  // the rank that disagrees
};

// Tallies, and the cases not run, for the summary rank 0 prints.
struct Report {
  int run = 0, hanging = 0, stale = 0, errors = 0, sure_errors = 0, unseen = 0;
  std::vector<std::string> hangs;
};

std::shared_ptr<const NodeMap> world_nodes() {
  std::shared_ptr<const NodeMap> nodes;
  EXPECT_EQ(node_map(MPI_COMM_WORLD, nodes), MPI_SUCCESS);
  return nodes;
}

// Fills, broadcasts and checks one rank's part; returns the code.
int run_view(MPI_Comm comm, const View& view, int true_root, std::uint64_t true_bytes,
             std::uint64_t seed, const std::string& what) {
  const int rank = world_rank();
  std::vector<unsigned char> buf(view.bytes + kGuard, kUnset);
  // The true root holds the data whatever it believes; a rank that takes itself for the
  // root holds data of its own.
  const std::uint64_t own = rank == true_root ? seed : seed + 1000 + static_cast<unsigned>(rank);
  const bool holds = rank == true_root || rank == view.root;
  if (holds) {
    for (std::uint64_t i = 0; i < view.bytes; ++i) buf[i] = pattern(own, i);
  }
  const int rc =
      bcast(buf.data(), static_cast<int>(view.bytes), MPI_BYTE, view.root, comm, view.algorithm);
  std::uint64_t past = 0, wrong = 0;
  for (std::uint64_t i = view.bytes; i < view.bytes + kGuard; ++i) past += buf[i] != kUnset;
  EXPECT_EQ(past, 0u) << what << ": rank " << rank << " wrote past its count";
  if (view.root == rank) {  // a root's buffer is never written
    for (std::uint64_t i = 0; i < view.bytes; ++i) wrong += buf[i] != pattern(own, i);
    EXPECT_EQ(wrong, 0u) << what << ": rank " << rank << " changed its root buffer";
  } else if (rc == MPI_SUCCESS) {  // the true root's bytes, which end at its count
    for (std::uint64_t i = 0; i < view.bytes; ++i) {
      wrong += i >= true_bytes || buf[i] != pattern(seed, i);
    }
    EXPECT_EQ(wrong, 0u) << what << ": rank " << rank << " returned success with " << wrong
                         << " wrong bytes";
  }
  return rc;
}

// A communicator with messages left over is never freed: MPICH gives a freed
// communicator's context to a later one, which would then receive those messages.
void keep_or_free(MPI_Comm& comm, bool left_over) {
  static std::vector<MPI_Comm> kept;
  if (left_over) {
    kept.push_back(comm);
  } else {
    EXPECT_EQ(MPI_Comm_free(&comm), MPI_SUCCESS);
  }
}

// Checks one rank's code against the model: an error where a revealing or flagged
// message reaches the rank, of the classes the executor raises.
void expect_outcome(int rc, bool must_fail, const std::string& what) {
  if (must_fail) {
    EXPECT_NE(rc, MPI_SUCCESS) << what << ": rank " << world_rank() << " must fail";
  }
  if (rc != MPI_SUCCESS) {
    EXPECT_TRUE(error_class(rc) == MPI_ERR_TRUNCATE || error_class(rc) == MPI_ERR_OTHER)
        << what << ": rank " << world_rank() << " class " << error_class(rc);
  }
}

// MPI_TAG_UB leaves room for broadcast sequence numbers (broadcast_tag.hpp).
bool tags_carry_sequences() {
  int* tag_ub = nullptr;
  int found = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &found);
  return found && detail::sequence_bits(*tag_ub) > 0;
}

int count_on_all(bool mine) {
  int one = mine ? 1 : 0, sum = 0;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return sum;
}

void run_case(const Case& c, const std::shared_ptr<const NodeMap>& nodes, Report& report) {
  const int rank = world_rank(), procs = world_size();
  // LEANCAST_MISMATCH_CASE=TEXT runs only the cases whose description has TEXT, those
  // the model says hang too (to see them hang, under `timeout`).
  const char* only = std::getenv("LEANCAST_MISMATCH_CASE");
  if (only != nullptr && c.what.find(only) == std::string::npos) return;
  // A view whose broadcast goes through shared memory (auto, or node-aware's level left to
  // it, may choose shm for 2 ranks per node) is outside the model: not run.
  for (const View& view : c.views) {
    if (uses_shared_memory(
            resolve_automatic(view.algorithm, {procs, view.root, view.bytes, nodes}))) {
      return;
    }
  }
  Model model(nodes, window(), tags_carry_sequences());
  const Prediction p = model.run(c.views);
  if (only != nullptr && rank == 0) std::printf("%s: %s\n", c.what.c_str(), p.reason.c_str());
  if (p.hangs && only == nullptr) {
    ++report.hanging;
    report.hangs.push_back(c.what + ": " + p.reason);
    return;
  }
  // The disagreement shows now (at the disagreeing rank or a rank it sends to), or, where
  // every rank only sends to ranks that do not expect it, in the next broadcast.
  const bool shows_now = std::count(p.must_fail.begin(), p.must_fail.end(), true) > 0;
  ASSERT_TRUE(shows_now || p.leftovers > 0 || p.hangs) << c.what << ": nothing shows it";
  ++report.run;
  static std::uint64_t seed = 0;
  seed += 2000;
  const View& truth = c.views[(c.odd + 1) % procs];  // any rank but the odd one
  MPI_Comm comm = dup_world_returning_errors();
  const int rc = run_view(comm, c.views[rank], truth.root, truth.bytes, seed, c.what);
  expect_outcome(rc, p.must_fail[rank], c.what);
  report.errors += count_on_all(rc != MPI_SUCCESS);
  report.sure_errors += count_on_all(p.must_fail[rank]);

  // The communicator still works. Where the tags carry sequence numbers (both libraries
  // here), its receives pass over the messages left over; else its next broadcast has
  // another signature than any case, so the receives that take them fail, never take
  // them for data.
  View next = truth;
  next.bytes = kBytes + 3;
  const std::vector<View> views(procs, next);
  const Prediction after = model.run(views);
  ASSERT_FALSE(after.hangs || after.silently_stale) << c.what << ": " << after.reason;
  ASSERT_TRUE(shows_now || std::count(after.must_fail.begin(), after.must_fail.end(), true) > 0)
      << c.what << ": the messages left over show nowhere";
  report.unseen += !shows_now;
  const std::string then = c.what + ", then a correct broadcast";
  const int next_rc = run_view(comm, next, next.root, next.bytes, seed + 1, then);
  expect_outcome(next_rc, after.must_fail[rank], then);
  if (p.leftovers == 0) {
    EXPECT_EQ(next_rc, MPI_SUCCESS) << then << ": rank " << rank;
  }
  report.stale += count_on_all(next_rc != MPI_SUCCESS) > 0;
  keep_or_free(comm, p.leftovers > 0);
}

void run_all(const std::string& kind, std::vector<Case> (*make)(const std::string&, int)) {
  const int procs = world_size();
  if (procs < 2) GTEST_SKIP() << "a disagreement needs two ranks";
  const auto nodes = world_nodes();
  Report report;
  for (const std::string& name : algorithms_under_test()) {
    for (const Case& c : make(name, procs)) run_case(c, nodes, report);
  }
  if (world_rank() == 0) {
    std::printf(
        "%s, P=%d: %d cases run (%d rank errors, %d of them sure; %d cases seen by "
        "the next broadcast only), %d not run (would hang), %d left messages that "
        "failed the next broadcast\n",
        kind.c_str(), procs, report.run, report.errors, report.sure_errors, report.unseen,
        report.hanging, report.stale);
    if (std::getenv("LEANCAST_MISMATCH_REPORT") != nullptr) {
      for (const std::string& line : report.hangs) {
        std::printf("  hangs: P=%d %s\n", procs, line.c_str());
      }
    }
  }
}

// Cases for one algorithm: every rank in turn disagrees; the root is procs / 2.
Case base_case(const std::string& name, int procs, int odd, const std::string& what) {
  Case c;
  c.views.assign(procs, View{spec_of(name), procs / 2, kBytes});
  c.odd = odd;
  c.what = name + ", " + what + " at rank " + std::to_string(odd);
  return c;
}

std::vector<Case> count_cases(const std::string& name, int procs) {
  std::vector<Case> cases;
  // +-1 keeps every pipeline's segment count; x2 and /2 change it.
  const auto n = static_cast<std::int64_t>(kBytes);
  for (std::int64_t delta : {std::int64_t{1}, std::int64_t{-1}, n, -n / 2}) {
    for (int odd = 0; odd < procs; ++odd) {
      Case c = base_case(name, procs, odd, "count " + std::to_string(kBytes + delta));
      c.views[odd].bytes = kBytes + delta;
      cases.push_back(c);
    }
  }
  return cases;
}

std::vector<Case> root_cases(const std::string& name, int procs) {
  std::vector<Case> cases;
  const int root = procs / 2;
  for (int odd = 0; odd < procs; ++odd) {
    if (odd == root) continue;
    Case self = base_case(name, procs, odd, "root taken to be itself");
    self.views[odd].root = odd;
    cases.push_back(self);
    Case other = base_case(name, procs, root, "root taken to be rank " + std::to_string(odd));
    other.views[root].root = odd;
    cases.push_back(other);
    const int third = (std::max(odd, root) + 1) % procs;
    if (third != odd && third != root) {
      Case c = base_case(name, procs, odd, "root taken to be rank " + std::to_string(third));
      c.views[odd].root = third;
      cases.push_back(c);
    }
  }
  return cases;
}

std::vector<Case> algorithm_cases(const std::string& name, int procs) {
  std::vector<Case> cases;
  const int root = procs / 2;
  for (const std::string& other : algorithms_under_test()) {
    if (other == name) continue;
    for (int odd : {root, (root + 1) % procs}) {
      Case c = base_case(name, procs, odd, "algorithm " + other);
      c.views[odd].algorithm = spec_of(other);
      cases.push_back(c);
    }
  }
  return cases;
}

// A receive of another size than the schedule's is MPI_ERR_TRUNCATE, as in MPI's own
// broadcasts, with a message naming the peer and both sizes (MPICH 4.0 cannot carry the
// text in the code: leancast prints it to stderr there).
void expect_truncation(int root_bytes, int other_bytes, const std::string& sizes) {
  const int rank = world_rank();
  MPI_Comm comm = dup_world_returning_errors();
  const int bytes = rank == 0 ? root_bytes : other_bytes;
  std::vector<unsigned char> buf(static_cast<std::size_t>(std::max(root_bytes, other_bytes)));
  const int rc = bcast(buf.data(), bytes, MPI_BYTE, 0, comm, Algorithm::linear);
  if (rank == 0) {
    EXPECT_EQ(rc, MPI_SUCCESS);  // it only sends
  } else {
    EXPECT_EQ(error_class(rc), MPI_ERR_TRUNCATE) << "code " << rc;
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(rc, text, &length);
    const std::string message(text, static_cast<std::size_t>(length));
#ifdef OPEN_MPI
    const std::string peer = "rank " + std::to_string(rank) + " from rank 0";
    EXPECT_NE(message.find(peer), std::string::npos) << message;
    EXPECT_NE(message.find(sizes), std::string::npos) << message;
#else
    (void)sizes;
#endif
  }
  MPI_Comm_free(&comm);
}

TEST(BcastMismatch, ReceivesOfAnotherSizeNameThePeerAndTheSizes) {
  if (world_size() < 2) GTEST_SKIP() << "a disagreement needs two ranks";
  expect_truncation(1000, 500, "a message of 1000 bytes arrived where the schedule expects 500");
  expect_truncation(500, 1000, "500 bytes arrived where the schedule expects 1000");
}

TEST(BcastMismatch, Count) { run_all("count", count_cases); }
TEST(BcastMismatch, Root) { run_all("root", root_cases); }
TEST(BcastMismatch, Algorithm) { run_all("algorithm", algorithm_cases); }

}  // namespace
}  // namespace leancast::test
