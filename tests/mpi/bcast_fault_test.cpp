// The executors under MPI failures injected by fault_shim.c: one rank's MPI_Isend, MPI_Irecv,
// MPI_Waitsome or MPI_Waitall call returns MPI_ERR_OTHER. That rank's broadcast must return
// an error of that class (never success), leave no request posted, and no rank may keep wrong
// data silently or wait forever; the communicator must carry a correct broadcast afterwards.
//
// The broadcast: pipeline-chain:256 of 1000 bytes from rank 0, a chain of 4 segments
// 0 -> 1 -> ... -> P-1, every message eager. A failure that makes a rank give up (two in a
// row) is injected only where no rank waits for what it would have sent: on the last rank,
// which sends nothing, or on a linear root, whose sends are all posted by its first wait.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include <leancast/leancast.h>
#include <leancast/leancast.hpp>

#include "test_support.hpp"

extern "C" {
void lc_fault_shim_reset(void);
int lc_fault_shim_injected(void);
long lc_fault_shim_live_requests(void);
long lc_fault_shim_sends_at_once(void);
}

namespace leancast::test {
namespace {

constexpr int kBytes = 1000;
const char* const kChain = "pipeline-chain:256";

int error_class(int code) {
  int cls = MPI_SUCCESS;
  MPI_Error_class(code, &cls);
  return cls;
}

struct Fault {
  const char* executor;  // "dataflow" or "rounds"
  const char* algorithm;
  const char* fail;  // LEANCAST_TEST_FAIL
  int rank;          // where; -1: the last rank
  // The rank gives up with messages for it left unreceived: the next broadcast on the
  // communicator takes those (it has another signature, so they make it fail there).
  bool leaves_messages = false;
};

// One broadcast on every rank; returns its code after checking the data of a success.
int broadcast(MPI_Comm comm, const char* algorithm, int bytes, std::uint64_t seed,
              const std::string& what) {
  std::vector<unsigned char> buf(bytes, 0xEE);
  if (world_rank() == 0) {
    for (int i = 0; i < bytes; ++i) buf[i] = pattern(seed, i);
  }
  const int rc = LC_Bcast_with(buf.data(), bytes, MPI_BYTE, 0, comm, algorithm);
  int wrong = 0;
  for (int i = 0; i < bytes; ++i) wrong += buf[i] != pattern(seed, i);
  if (rc == MPI_SUCCESS) {
    EXPECT_EQ(wrong, 0) << what << ": rank " << world_rank();
  }
  return rc;
}

void run_fault(const Fault& fault, std::uint64_t seed) {
  const int procs = world_size(), rank = world_rank();
  const int failing = fault.rank >= 0 ? fault.rank : procs - 1;
  if (failing == procs - 1 && fault.rank > 0) return;  // not in the middle of the chain
  if (std::getenv("LEANCAST_FAULT_VERBOSE") != nullptr && rank == 0) {  // which one hangs
    std::printf("%s on rank %d\n", fault.fail, failing);
    std::fflush(stdout);
  }
  const std::string what = std::string(fault.executor) + ", " + fault.algorithm + ", " +
                           fault.fail + " on rank " + std::to_string(failing);
  ASSERT_TRUE(set_executor(fault.executor));
  MPI_Comm comm = dup_world_returning_errors();
  // The first broadcast makes the private communicator.
  EXPECT_EQ(broadcast(comm, fault.algorithm, kBytes, seed, what + ", before"), MPI_SUCCESS);
  const long live_before = lc_fault_shim_live_requests();

  setenv("LEANCAST_TEST_FAIL", fault.fail, 1);
  setenv("LEANCAST_TEST_FAIL_RANK", std::to_string(failing).c_str(), 1);
  lc_fault_shim_reset();
  const int rc = broadcast(comm, fault.algorithm, kBytes, seed + 1, what);
  const int injected = lc_fault_shim_injected();
  unsetenv("LEANCAST_TEST_FAIL");
  lc_fault_shim_reset();
  if (rank == failing) {
    EXPECT_GT(injected, 0) << what << ": nothing was injected";
    EXPECT_EQ(error_class(rc), MPI_ERR_OTHER) << what << ": code " << rc;
  }
  // Every executor (rounds is dataflow's code held to one round) leaves nothing posted.
  EXPECT_EQ(lc_fault_shim_live_requests(), live_before) << what << ": requests left posted";
  // The communicator carries the next broadcast (of another count: see leaves_messages).
  const int next =
      broadcast(comm, fault.algorithm, kBytes + 3, seed + 2, what + ", then a correct broadcast");
  if (!fault.leaves_messages || rank != failing) {
    EXPECT_EQ(next, MPI_SUCCESS) << what << ", then a correct broadcast: rank " << rank;
  }
  // A communicator with messages left over is kept: MPICH would give its context to a later
  // communicator, which would then receive them.
  static std::vector<MPI_Comm> kept;
  if (fault.leaves_messages) {
    kept.push_back(comm);
  } else {
    EXPECT_EQ(MPI_Comm_free(&comm), MPI_SUCCESS);
  }
  set_executor("");
}

TEST(BcastFaults, TheFailingRankReturnsTheErrorAndNothingHangs) {
  if (world_size() < 2) GTEST_SKIP() << "a chain needs two ranks";
  const Fault faults[] = {
      // Once: the call is retried (a post) or repeated (a wait); the rank completes its
      // schedule and flags what it sends from then on.
      {"dataflow", kChain, "MPI_Isend:1", 0},
      {"dataflow", kChain, "MPI_Isend:3", 0},
      {"dataflow", kChain, "MPI_Irecv:2", 1},
      {"dataflow", kChain, "MPI_Irecv:1", -1},
      {"dataflow", kChain, "MPI_Waitsome:1", 0},
      {"dataflow", kChain, "MPI_Waitsome:2", 1},
      {"dataflow", kChain, "MPI_Waitsome:1", -1},
      // Twice in a row: the rank cancels or releases its requests and gives up. The root's
      // posted sends still arrive (neither library cancels a send that has gone).
      {"dataflow", "linear", "MPI_Waitsome:1:2", 0},
      {"dataflow", kChain, "MPI_Irecv:1:2", -1, true},
      {"dataflow", kChain, "MPI_Waitsome:1:2", -1, true},
      // The rounds executor recovers alike: it is the same code.
      {"rounds", kChain, "MPI_Isend:3", 0},
      {"rounds", kChain, "MPI_Waitsome:1", -1},
      {"rounds", kChain, "MPI_Irecv:1:2", -1, true},
  };
  std::uint64_t seed = 0;
  for (const Fault& fault : faults) run_fault(fault, seed += 10);
}

// The dataflow executor posts every send of the rank's earliest unfinished round at once,
// however many (the send window limits only sends beyond it): a linear root's P - 1 sends,
// all of round 0, are posted before its first wait. (Only visible above the send window of
// 4: the test runs at P = 6.)
TEST(BcastFaults, EverySendOfTheCurrentRoundIsPostedAtOnce) {
  const int procs = world_size();
  if (procs < 6) GTEST_SKIP() << "needs more sends in a round than the send window (4)";
  LC_Comm_prepare(MPI_COMM_WORLD);  // its own waits come before the counting
  for (const char* algorithm : {"linear", "linear@dataflow", "linear@dataflow:0"}) {
    lc_fault_shim_reset();
    EXPECT_EQ(broadcast(MPI_COMM_WORLD, algorithm, kBytes, 7, algorithm), MPI_SUCCESS);
    if (world_rank() == 0) {
      EXPECT_EQ(lc_fault_shim_sends_at_once(), procs - 1) << algorithm;
    }
  }
}

// A node leader whose receive failed (node-aware:binomial/shm, nodes of 2 ranks set by the
// test's LEANCAST_RANKS_PER_NODE=2) flags what it writes into its node's window, so the
// node's other rank returns an error too instead of success with data it cannot trust.
TEST(SharedMemoryFaults, ALeadersErrorReachesItsNode) {
  const char* per_node = std::getenv("LEANCAST_RANKS_PER_NODE");
  if (world_size() < 4 || per_node == nullptr || std::string(per_node) != "2") {
    GTEST_SKIP() << "needs two nodes of two ranks (LEANCAST_RANKS_PER_NODE=2, P >= 4)";
  }
  const int rank = world_rank();
  MPI_Comm comm = dup_world_returning_errors();
  const char* algorithm = "node-aware:binomial/shm";
  EXPECT_EQ(broadcast(comm, algorithm, kBytes, 30, "before"), MPI_SUCCESS);
  setenv("LEANCAST_TEST_FAIL", "MPI_Irecv:1", 1);  // once: retried, the data still arrives
  setenv("LEANCAST_TEST_FAIL_RANK", "2", 1);       // the second node's leader
  lc_fault_shim_reset();
  const int rc = broadcast(comm, algorithm, kBytes, 31, "leader failed");
  unsetenv("LEANCAST_TEST_FAIL");
  unsetenv("LEANCAST_TEST_FAIL_RANK");
  lc_fault_shim_reset();
  if (rank == 2 || rank == 3) {
    EXPECT_EQ(error_class(rc), MPI_ERR_OTHER) << "rank " << rank << " (the failed leader's node)";
  } else {
    EXPECT_EQ(rc, MPI_SUCCESS) << "rank " << rank;
  }
  EXPECT_EQ(broadcast(comm, algorithm, kBytes + 3, 32, "after"), MPI_SUCCESS);
  EXPECT_EQ(MPI_Comm_free(&comm), MPI_SUCCESS);
}

// A rank that may not map the shared memory (shm_open fails there) makes shm fail on every
// rank of the communicator, with the cause, and for good on that communicator; nothing
// hangs and the communicator carries other broadcasts. Where auto chose shm, every rank
// runs the library's broadcast instead.
TEST(SharedMemoryFaults, ARankThatCannotMapItFailsShmOnEveryRank) {
  const int procs = world_size(), rank = world_rank();
  if (procs < 2) GTEST_SKIP() << "one rank shares nothing";
  for (const int failing : {0, procs - 1}) {  // the group's first rank makes it, the last maps it
    MPI_Comm comm = dup_world_returning_errors();
    setenv("LEANCAST_TEST_FAIL", "shm_open:1:100", 1);
    setenv("LEANCAST_TEST_FAIL_RANK", std::to_string(failing).c_str(), 1);
    lc_fault_shim_reset();
    const int rc = broadcast(comm, "shm", kBytes, 20 + failing, "shm");
    const int again = broadcast(comm, "shm:4K", 3 * kBytes, 21 + failing, "shm again");
    // auto's choice where it runs shm, if it does at some size here.
    std::optional<int> fell_back;
    for (int bytes = 1024; bytes <= (1 << 24) && !fell_back; bytes *= 4) {
      const auto choice = chosen_algorithm(comm, bytes);
      if (choice && uses_shared_memory(*choice)) {
        fell_back = broadcast(comm, "auto", bytes, 22 + failing, "auto (shm)");
      }
    }
    const int injected = lc_fault_shim_injected();
    unsetenv("LEANCAST_TEST_FAIL");
    unsetenv("LEANCAST_TEST_FAIL_RANK");
    lc_fault_shim_reset();
    if (rank == failing) {
      EXPECT_GT(injected, 0) << "shm_open did not fail";
    }
    EXPECT_EQ(error_class(rc), MPI_ERR_UNSUPPORTED_OPERATION)
        << "rank " << rank << ", failing " << failing;
    EXPECT_EQ(error_class(again), MPI_ERR_UNSUPPORTED_OPERATION) << "rank " << rank;
    if (fell_back) {
      EXPECT_EQ(*fell_back, MPI_SUCCESS) << "auto falls back on rank " << rank;
    }
    EXPECT_EQ(broadcast(comm, "binomial", kBytes, 23, "binomial after"), MPI_SUCCESS);
    EXPECT_EQ(MPI_Comm_free(&comm), MPI_SUCCESS);
  }
}

}  // namespace
}  // namespace leancast::test
