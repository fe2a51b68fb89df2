// A deferral's short way (src/mpi/pass_at_once.hpp): only a blocking repeat of a call decided
// for the library's broadcast goes straight to it, and those repeats deliver; another count,
// root, buffer or named algorithm, a leancast broadcast outstanding, or online tuning trying
// the call take the whole path.
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
using detail::passes_at_once;

class ShortWay : public ::testing::Test {
 protected:
  void SetUp() override {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    std::shared_ptr<const NodeMap> nodes;  // makes the private state, where a repeat is kept
    ASSERT_EQ(node_map(comm_, nodes), MPI_SUCCESS);
    data_.resize(16);
  }
  void TearDown() override { MPI_Comm_free(&comm_); }

  // Broadcasts 16 ints from `root` (seed + i) and counts the ranks that did not get them all.
  int broadcast(int root, int seed, const std::optional<AlgorithmSpec>& algorithm) {
    const int rank = world_rank();
    for (int i = 0; i < 16; ++i) data_[i] = rank == root ? seed + i : -1;
    const int rc = algorithm ? bcast(data_.data(), 16, MPI_INT, root, comm_, *algorithm)
                             : bcast(data_.data(), 16, MPI_INT, root, comm_);
    int wrong = rc != MPI_SUCCESS;
    for (int i = 0; i < 16; ++i) wrong |= data_[i] != seed + i;
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

}  // namespace
}  // namespace leancast::test
