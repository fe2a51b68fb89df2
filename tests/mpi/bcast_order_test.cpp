// One communicator's nonblocking broadcasts run one after the other on each rank, in the
// order they were started (src/mpi/requests/tasks.hpp, docs/nonblocking.md#semantics):
//  - a later broadcast's messages are posted only once the earlier one is done: stepped
//    side by side, the second one's receives would take the first one's later messages;
//    started at once, a rank that forwards (P >= 3) would post the second one's receives
//    before the first one's later sends;
//  - a later shm broadcast takes its first segment number from the window only once the
//    earlier one is done (started at once, both would count from the same one);
//  - the helper thread below MPI_THREAD_MULTIPLE (LEANCAST_PROGRESS_THREAD=1) copies a
//    later shm broadcast only once the earlier one is done, though the earlier one needs
//    messages it cannot send: watched from the user's buffers while no rank calls MPI.
#include <gtest/gtest.h>
#include <leancast/leancast.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "test_support.hpp"

namespace leancast::test {
namespace {

// A broadcast's buffer, filled with the pattern of `seed` on the root and 0 elsewhere.
struct Filled {
  Filled(std::uint64_t bytes, int root, std::uint64_t seed) : seed(seed), data(bytes, 0) {
    if (world_rank() == root) {
      for (std::uint64_t i = 0; i < bytes; ++i) data[i] = pattern(seed, i);
    }
  }
  // Whether every byte holds the pattern. The helper thread (or the progress thread) may be
  // copying into the buffer meanwhile: each byte is read once, atomically.
  bool complete() {
    for (std::uint64_t i = 0; i < data.size(); ++i) {
      if (std::atomic_ref<unsigned char>(data[i]).load(std::memory_order_acquire) !=
          pattern(seed, i)) {
        return false;
      }
    }
    return true;
  }
  int count() const { return static_cast<int>(data.size()); }
  std::uint64_t seed;
  std::vector<unsigned char> data;
};

// Two pipelines of 64 segments on one communicator from one root, and a third from the
// last rank, started back to back and completed in the reverse order: each rank's receives
// must pair with the messages of the broadcast they belong to.
TEST(Nonblocking, BroadcastsOfOneCommunicatorRunInStartOrder) {
  const int procs = world_size();
  if (procs < 2) GTEST_SKIP() << "needs 2 ranks";
  MPI_Comm comm = dup_world_returning_errors();
  for (int round = 0; round < 3; ++round) {
    const std::vector<int> roots{0, 0, procs - 1};
    std::vector<Filled> buffers;
    for (std::size_t i = 0; i < roots.size(); ++i) {
      buffers.emplace_back(std::uint64_t{64} << 10, roots[i], 10 * round + i);
    }
    std::vector<MPI_Request> requests(roots.size(), MPI_REQUEST_NULL);
    for (std::size_t i = 0; i < roots.size(); ++i) {
      ASSERT_EQ(LC_Ibcast_with(buffers[i].data.data(), buffers[i].count(), MPI_BYTE, roots[i], comm,
                               "pipeline-chain:1K", &requests[i]),
                MPI_SUCCESS);
    }
    for (std::size_t i = roots.size(); i-- > 0;) {
      EXPECT_EQ(MPI_Wait(&requests[i], MPI_STATUS_IGNORE), MPI_SUCCESS)
          << "broadcast " << i << " rank " << world_rank();
    }
    for (std::size_t i = 0; i < roots.size(); ++i) {
      EXPECT_TRUE(buffers[i].complete()) << "broadcast " << i << " rank " << world_rank();
    }
  }
  MPI_Comm_free(&comm);
}

// Two shm broadcasts of 16 segments on one communicator, through the window a blocking one
// made, started back to back and completed in the reverse order.
TEST(Nonblocking, CopiesOfOneCommunicatorRunInStartOrder) {
  if (world_size() < 2) GTEST_SKIP() << "needs 2 ranks";
  MPI_Comm comm = dup_world_returning_errors();
  constexpr std::uint64_t kBytes = 64 << 10;
  Filled window(kBytes, 0, 1);
  ASSERT_EQ(LC_Bcast_with(window.data.data(), window.count(), MPI_BYTE, 0, comm, "shm:4K"),
            MPI_SUCCESS);
  for (int round = 0; round < 3; ++round) {
    std::vector<Filled> buffers;
    for (int i = 0; i < 2; ++i) buffers.emplace_back(kBytes, round % world_size(), 10 * round + i);
    MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    for (int i = 0; i < 2; ++i) {
      ASSERT_EQ(LC_Ibcast_with(buffers[i].data.data(), buffers[i].count(), MPI_BYTE,
                               round % world_size(), comm, "shm:4K", &requests[i]),
                MPI_SUCCESS);
    }
    for (int i = 2; i-- > 0;) {
      EXPECT_EQ(MPI_Wait(&requests[i], MPI_STATUS_IGNORE), MPI_SUCCESS)
          << "broadcast " << i << " rank " << world_rank();
    }
    for (int i = 0; i < 2; ++i) {
      EXPECT_TRUE(buffers[i].complete()) << "broadcast " << i << " rank " << world_rank();
    }
  }
  MPI_Comm_free(&comm);
}

// With LEANCAST_PROGRESS_THREAD=1 (below MPI_THREAD_MULTIPLE the helper, which only copies;
// at it the progress thread): a pipeline and then an shm broadcast through the window a
// blocking one made. Every rank then stays out of MPI for a while, so the pipeline (whose
// messages the helper cannot send) waits; if the shm broadcast's bytes arrive meanwhile, the
// pipeline's must have arrived before them. Then both complete.
TEST(ProgressThread, HelperKeepsOneCommunicatorsOrder) {
  const char* setting = std::getenv("LEANCAST_PROGRESS_THREAD");
  if (setting == nullptr || std::string(setting) != "1") GTEST_SKIP() << "needs the thread";
  if (world_size() < 2) GTEST_SKIP() << "needs 2 ranks";
  MPI_Comm comm = dup_world_returning_errors();
  constexpr std::uint64_t kBytes = 256 << 10;
  Filled window(kBytes, 0, 1);  // makes the window the shm broadcast copies through
  ASSERT_EQ(LC_Bcast_with(window.data.data(), window.count(), MPI_BYTE, 0, comm, "shm:64K"),
            MPI_SUCCESS);
  ASSERT_TRUE(window.complete());
  Filled first(kBytes, 0, 2), second(kBytes, 0, 3);
  MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  ASSERT_EQ(LC_Ibcast_with(first.data.data(), first.count(), MPI_BYTE, 0, comm,
                           "pipeline-chain:64K", &requests[0]),
            MPI_SUCCESS);
  ASSERT_EQ(LC_Ibcast_with(second.data.data(), second.count(), MPI_BYTE, 0, comm, "shm:64K",
                           &requests[1]),
            MPI_SUCCESS);
  bool out_of_order = false;
  if (world_rank() != 0) {
    // The pipeline's buffer read after the shm one's: once the shm broadcast has its bytes,
    // a rank that keeps the order already has the pipeline's (no MPI call here, so with the
    // helper only the shm copies could move).
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (std::chrono::steady_clock::now() < until) {
      if (second.complete()) {
        out_of_order = !first.complete();
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  } else {
    std::this_thread::sleep_for(std::chrono::seconds(1));  // the root computes
  }
  EXPECT_FALSE(out_of_order) << "rank " << world_rank()
                             << " copied the shm broadcast before the pipeline started first";
  ASSERT_EQ(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE), MPI_SUCCESS);
  EXPECT_TRUE(first.complete());
  EXPECT_TRUE(second.complete());
  MPI_Comm_free(&comm);
}

}  // namespace
}  // namespace leancast::test
