// The short ways of a repeated call (src/mpi/pass_at_once.hpp): only a blocking repeat of a
// call decided for the library's broadcast goes straight to it, and only a repeat of one that
// ran copies at once runs those copies again; their repeats deliver, into any buffer, across
// a window that grows and a program cache that forgets; another count, root, buffer or named
// algorithm, a leancast broadcast outstanding, or online tuning trying the call take the
// whole path. A nonblocking repeat of a nonblocking deferral goes straight to MPI_Ibcast.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <leancast/leancast.hpp>

#include "mpi/pass_at_once.hpp"
#include "test_support.hpp"

namespace leancast::test {
namespace {

using detail::BcastCall;
using detail::ibcast_passes_at_once;
using detail::short_way;

// Whether a repeat of `call` would go straight to the library's broadcast.
bool passes_at_once(const BcastCall& call, const AlgorithmSpec* named) {
  const detail::PrivateComm::LastCall* last = short_way(call, named);
  return last != nullptr && detail::passes(*last);
}

// Whether a repeat of `call` would run the last call's copies at once again.
bool copies_again(const BcastCall& call, const AlgorithmSpec& named) {
  const detail::PrivateComm::LastCall* last = short_way(call, &named);
  return last != nullptr && detail::copies_again_apply(*last);
}

class ShortWay : public ::testing::Test {
 protected:
  void SetUp() override {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    std::shared_ptr<const NodeMap> nodes;  // makes the private state, where a repeat is kept
    ASSERT_EQ(node_map(comm_, nodes), MPI_SUCCESS);
    data_.resize(16);
  }
  void TearDown() override { MPI_Comm_free(&comm_); }

  // Broadcasts 16 ints from `root` (seed + i) and counts the ranks that did not get them all;
  // into `into` (of 16 ints or more) where given.
  int broadcast(int root, int seed, const std::optional<AlgorithmSpec>& algorithm,
                std::vector<int>* into = nullptr) {
    std::vector<int>& data = into != nullptr ? *into : data_;
    const int rank = world_rank();
    for (int i = 0; i < 16; ++i) data[i] = rank == root ? seed + i : -1;
    const int rc = algorithm ? bcast(data.data(), 16, MPI_INT, root, comm_, *algorithm)
                             : bcast(data.data(), 16, MPI_INT, root, comm_);
    int wrong = rc != MPI_SUCCESS;
    for (int i = 0; i < 16; ++i) wrong |= data[i] != seed + i;
    int ranks_wrong = 0;
    MPI_Allreduce(&wrong, &ranks_wrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return ranks_wrong;
  }
  // The same as a nonblocking broadcast, or a persistent one started twice, each completed
  // at once.
  int nonblocking(int root, int seed, const std::optional<AlgorithmSpec>& algorithm,
                  bool persistent = false) {
    int* data = data_.data();
    auto fill = [&](int value) {
      for (int i = 0; i < 16; ++i) data[i] = world_rank() == root ? value + i : -1;
    };
    auto wrong_after = [&](int value) {
      int wrong = 0;
      for (int i = 0; i < 16; ++i) wrong |= data[i] != value + i;
      return wrong;
    };
    MPI_Request request = MPI_REQUEST_NULL;
    int wrong = 0;
    if (!persistent) {
      fill(seed);
      int rc = algorithm ? ibcast(data, 16, MPI_INT, root, comm_, *algorithm, &request)
                         : ibcast(data, 16, MPI_INT, root, comm_, &request);
      if (rc == MPI_SUCCESS) rc = MPI_Wait(&request, MPI_STATUS_IGNORE);
      wrong = rc != MPI_SUCCESS || wrong_after(seed);
    } else {
      LC_Persistent planned = LC_PERSISTENT_NULL;
      int rc = algorithm ? bcast_init(data, 16, MPI_INT, root, comm_, *algorithm, &planned)
                         : bcast_init(data, 16, MPI_INT, root, comm_, &planned);
      for (int start = 0; start < 2; ++start) {
        fill(seed + start);
        if (rc == MPI_SUCCESS) rc = LC_Start(planned, &request);
        if (rc == MPI_SUCCESS) rc = MPI_Wait(&request, MPI_STATUS_IGNORE);
        wrong |= rc != MPI_SUCCESS || wrong_after(seed + start);
      }
      if (planned != LC_PERSISTENT_NULL) LC_Persistent_free(&planned);
    }
    int ranks_wrong = 0;
    MPI_Allreduce(&wrong, &ranks_wrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return ranks_wrong;
  }
  BcastCall call(int root, int count = 16) { return {data_.data(), count, MPI_INT, root, comm_}; }

  MPI_Comm comm_ = MPI_COMM_NULL;
  std::vector<int> data_;
};

TEST_F(ShortWay, OnlyARepeatedDeferralTakesIt) {
  const AlgorithmSpec mpi(Algorithm::mpi);
  EXPECT_FALSE(passes_at_once(call(0), &mpi)) << "nothing was broadcast on the communicator yet";
  ASSERT_EQ(broadcast(0, 7, mpi), 0);
  EXPECT_TRUE(passes_at_once(call(0), &mpi));
  EXPECT_FALSE(passes_at_once(call(0), nullptr)) << "another named algorithm (none)";
  EXPECT_FALSE(passes_at_once(call(0, 15), &mpi)) << "another count";
  EXPECT_FALSE(passes_at_once({MPI_IN_PLACE, 16, MPI_INT, 0, comm_}, &mpi)) << "MPI_IN_PLACE";
  if (world_size() > 1) {
    EXPECT_FALSE(passes_at_once(call(1), &mpi)) << "another root";
  }
  for (int seed = 100; seed < 150; ++seed) {
    ASSERT_EQ(broadcast(0, seed, mpi), 0) << "a repeat on the short way, seed " << seed;
  }
  EXPECT_TRUE(passes_at_once(call(0), &mpi));
  ASSERT_EQ(broadcast(0, 8, AlgorithmSpec(Algorithm::binomial)), 0);
  EXPECT_FALSE(passes_at_once(call(0), &mpi)) << "the last call named binomial";
}

// A nonblocking deferral (named mpi, or auto below 16 KiB) repeats straight to the library's
// MPI_Ibcast; its own memo, so a blocking repeat keeps its short way across nonblocking calls;
// a nonblocking call that runs leancast, or a persistent one, does not take it.
TEST_F(ShortWay, RepeatedNonblockingDeferralGoesToMpiIbcast) {
  const AlgorithmSpec mpi(Algorithm::mpi);
  ASSERT_EQ(broadcast(0, 7, mpi), 0);
  EXPECT_FALSE(ibcast_passes_at_once(call(0), &mpi)) << "no nonblocking call yet";
  ASSERT_EQ(nonblocking(0, 10, mpi), 0);
  EXPECT_TRUE(ibcast_passes_at_once(call(0), &mpi));
  EXPECT_TRUE(passes_at_once(call(0), &mpi)) << "the blocking repeat's memo stays";
  EXPECT_FALSE(ibcast_passes_at_once(call(0, 15), &mpi)) << "another count";
  EXPECT_FALSE(ibcast_passes_at_once(call(0), nullptr)) << "another named algorithm (none)";
  EXPECT_FALSE(ibcast_passes_at_once({MPI_IN_PLACE, 16, MPI_INT, 0, comm_}, &mpi))
      << "MPI_IN_PLACE";
  for (int seed = 100; seed < 150; ++seed) {
    ASSERT_EQ(nonblocking(0, seed, mpi), 0) << "a repeat on the short way, seed " << seed;
  }
  ASSERT_EQ(nonblocking(0, 11, std::nullopt), 0);  // auto: 64 B
  if (world_size() > 1) {                          // (one rank runs linear, which sends nothing)
    EXPECT_TRUE(ibcast_passes_at_once(call(0), nullptr)) << "auto deferred below 16 KiB";
    const AlgorithmSpec binomial(Algorithm::binomial);
    ASSERT_EQ(nonblocking(0, 12, binomial), 0);
    EXPECT_FALSE(ibcast_passes_at_once(call(0), &binomial)) << "it ran leancast's binomial";
  }
  ASSERT_EQ(nonblocking(0, 13, mpi, true), 0);
  EXPECT_FALSE(ibcast_passes_at_once(call(0), &mpi)) << "the persistent call was not kept";
  ASSERT_EQ(nonblocking(0, 14, mpi), 0);
  EXPECT_TRUE(ibcast_passes_at_once(call(0), &mpi));
}

TEST_F(ShortWay, NotWhileALeancastBroadcastIsOutstanding) {
  if (world_size() < 2) GTEST_SKIP() << "needs 2 ranks (one moves nothing: no task)";
  const AlgorithmSpec mpi(Algorithm::mpi);
  ASSERT_EQ(broadcast(0, 7, mpi), 0);
  ASSERT_TRUE(passes_at_once(call(0), &mpi));
  std::vector<unsigned char> big(1 << 20, world_rank() == 0 ? 5 : 0);
  MPI_Request request = MPI_REQUEST_NULL;
  ASSERT_EQ(ibcast(big.data(), static_cast<int>(big.size()), MPI_BYTE, 0, comm_,
                   AlgorithmSpec(Algorithm::binomial), &request),
            MPI_SUCCESS);
  EXPECT_FALSE(passes_at_once(call(0), &mpi)) << "a blocking call must step the task";
  EXPECT_EQ(broadcast(0, 9, mpi), 0);  // the whole path, stepping the task meanwhile
  ASSERT_EQ(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
  EXPECT_EQ(std::count(big.begin(), big.end(), 5), static_cast<long>(big.size()));
  EXPECT_TRUE(passes_at_once(call(0), &mpi));
}

TEST_F(ShortWay, NotWhileOnlineTuningMayTryTheCall) {
  if (world_size() < 2) GTEST_SKIP() << "online tuning tries broadcasts that move data";
  // auto at 16 ints is tunable; where it is the library's broadcast, it repeats on the short
  // way with tuning off, and not with tuning on (a trial may run another algorithm).
  std::string by;
  const auto chosen = chosen_algorithm(comm_, 16 * sizeof(int), &by);
  ASSERT_TRUE(chosen.has_value());
  if (chosen->algorithm != Algorithm::mpi) GTEST_SKIP() << "auto runs " << to_string(*chosen);
  ASSERT_TRUE(set_tuning("off"));
  ASSERT_EQ(broadcast(0, 7, std::nullopt), 0);
  EXPECT_TRUE(passes_at_once(call(0), nullptr));
  ASSERT_TRUE(set_tuning("online"));
  EXPECT_FALSE(passes_at_once(call(0), nullptr));
  ASSERT_TRUE(set_tuning(""));
}

// shm, and cma where cross-memory attach is permitted (else it runs as shm through the whole
// run, every time): the second broadcast of a shape aims the copies at it, and its repeats
// run them again, with the buffer each call's (two buffers in turn) and the data right.
TEST_F(ShortWay, RepeatedCopiesRunAgainIntoAnyBuffer) {
  if (world_size() < 2) GTEST_SKIP() << "one rank copies nothing";
  std::vector<int> other(32, 0);
  for (const char* name : {"shm:8K", "cma"}) {
    const AlgorithmSpec named = *parse_algorithm_spec(name);
    ASSERT_EQ(broadcast(0, 7, named), 0) << name;
    const std::uint64_t as_shm = detail::cma_runs_as_shm();
    ASSERT_EQ(broadcast(0, 8, named), 0) << name;
    if (detail::cma_runs_as_shm() != as_shm) {
      EXPECT_FALSE(copies_again(call(0), named)) << name << " runs as shm";
      continue;
    }
    EXPECT_TRUE(copies_again(call(0), named)) << name;
    EXPECT_FALSE(passes_at_once(call(0), &named)) << name;
    EXPECT_FALSE(copies_again(call(0, 15), named)) << name << ": another count";
    for (int seed = 100; seed < 160; ++seed) {
      ASSERT_EQ(broadcast(0, seed, named, seed % 2 != 0 ? &other : nullptr), 0)
          << name << ", seed " << seed;
    }
    EXPECT_FALSE(copies_again(call(1), named)) << name << ": another root";
    ASSERT_EQ(broadcast(1, 9, named), 0) << name;
    EXPECT_TRUE(copies_again(call(1), named)) << name << ": root 1's shape now";
    EXPECT_FALSE(copies_again(call(0), named)) << name << ": no longer root 0's";
    for (int seed = 200; seed < 220; ++seed) {
      ASSERT_EQ(broadcast(1, seed, named, seed % 2 != 0 ? &other : nullptr), 0)
          << name << ", seed " << seed;
    }
  }
}

// A nonblocking broadcast with larger slots grows the window under the kept copies (the
// last blocking call stays the same); the repeats after it run through the new window.
// Nonblocking broadcasts of more shapes than the program cache holds drop the kept copies'
// program: the next repeat takes the whole path, aims again, and both deliver.
TEST_F(ShortWay, KeptCopiesFollowTheWindowAndTheProgramCache) {
  if (world_size() < 2) GTEST_SKIP() << "one rank copies nothing";
  const AlgorithmSpec shm = *parse_algorithm_spec("shm:8K");
  ASSERT_EQ(broadcast(0, 7, shm), 0);
  ASSERT_EQ(broadcast(0, 8, shm), 0);
  ASSERT_TRUE(copies_again(call(0), shm));
  std::vector<unsigned char> big(1 << 20, 0);
  auto nonblocking = [&](int bytes, const char* name, unsigned char value) {
    for (int i = 0; i < bytes; ++i) big[i] = world_rank() == 0 ? value : 0;
    MPI_Request request = MPI_REQUEST_NULL;
    if (ibcast(big.data(), bytes, MPI_BYTE, 0, comm_, *parse_algorithm_spec(name), &request) !=
            MPI_SUCCESS ||
        MPI_Wait(&request, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
      return false;
    }
    return std::count(big.begin(), big.begin() + bytes, value) == bytes;
  };
  ASSERT_TRUE(nonblocking(1 << 20, "shm:1M", 3)) << "grows the window to 1 MiB slots";
  EXPECT_TRUE(copies_again(call(0), shm));
  for (int seed = 100; seed < 120; ++seed) ASSERT_EQ(broadcast(0, seed, shm), 0) << seed;
  for (int shape = 1; shape <= 17; ++shape) {
    ASSERT_TRUE(nonblocking(shape * 1000, "shm:8K", static_cast<unsigned char>(shape))) << shape;
  }
  EXPECT_FALSE(copies_again(call(0), shm)) << "its program left the cache";
  ASSERT_EQ(broadcast(0, 9, shm), 0);
  EXPECT_TRUE(copies_again(call(0), shm)) << "aimed again";
  for (int seed = 300; seed < 320; ++seed) ASSERT_EQ(broadcast(0, seed, shm), 0) << seed;
}

}  // namespace
}  // namespace leancast::test
