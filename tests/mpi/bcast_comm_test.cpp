// Communicators: broadcasts never match user wildcard receives, work on derived and
// freed communicators, and intercommunicators go to the MPI library's own MPI_Bcast.
#include <gtest/gtest.h>

#include <numeric>

#include <leancast/leancast.hpp>

#include "test_support.hpp"

namespace leancast::test {
namespace {

int fill_and_bcast(MPI_Comm comm, int count, int root, int seed, Algorithm algorithm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::vector<int> data(count, rank == root ? seed : -1);
  if (bcast(data.data(), count, MPI_INT, root, comm, algorithm) != MPI_SUCCESS) return -1;
  return static_cast<int>(std::count(data.begin(), data.end(), seed));
}

TEST(BcastComm, WildcardReceiveNeverMatchesBroadcastTraffic) {
  const int procs = world_size(), rank = world_rank();
  if (procs < 2) GTEST_SKIP() << "needs 2 ranks";
  int received = -1;
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Irecv(&received, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &request);
  for (Algorithm algorithm : concrete_algorithms()) {
    for (int count : {1, 4096, 200000}) {
      EXPECT_EQ(fill_and_bcast(MPI_COMM_WORLD, count, procs - 1, count, algorithm), count);
    }
  }
  int done = 0;
  MPI_Test(&request, &done, MPI_STATUS_IGNORE);
  EXPECT_FALSE(done) << "a broadcast message matched the user's wildcard receive: got " << received;
  MPI_Barrier(MPI_COMM_WORLD);  // every rank has checked before any user message is sent
  const int left = (rank + procs - 1) % procs, right = (rank + 1) % procs;
  MPI_Status status;
  MPI_Send(&rank, 1, MPI_INT, right, 77, MPI_COMM_WORLD);
  MPI_Wait(&request, &status);
  EXPECT_EQ(received, left);
  EXPECT_EQ(status.MPI_TAG, 77);
}

TEST(BcastComm, SplitDupCreateAndFreeInALoop) {
  const int procs = world_size(), rank = world_rank();
  for (int iteration = 0; iteration < 20; ++iteration) {
    MPI_Comm split = MPI_COMM_NULL, dup = MPI_COMM_NULL, created = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, procs - rank, &split);  // reversed order
    MPI_Comm_dup(split, &dup);
    MPI_Group world_group = MPI_GROUP_NULL, evens = MPI_GROUP_NULL;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    const int range[1][3] = {{0, procs - 1, 2}};
    MPI_Group_range_incl(world_group, 1, const_cast<int(*)[3]>(range), &evens);
    MPI_Comm_create(MPI_COMM_WORLD, evens, &created);
    int size = 0;
    MPI_Comm_size(split, &size);
    const int count = 1000 + 9000 * (iteration % 3);
    EXPECT_EQ(fill_and_bcast(split, count, size - 1, iteration, Algorithm::scatter_ring_tuned),
              count);
    EXPECT_EQ(fill_and_bcast(dup, count, 0, iteration + 100, Algorithm::scatter_doubling), count);
    if (created != MPI_COMM_NULL) {
      EXPECT_EQ(fill_and_bcast(created, count, 0, iteration + 200, Algorithm::binomial), count);
      MPI_Comm_free(&created);
    }
    MPI_Group_free(&evens);
    MPI_Group_free(&world_group);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&split);
  }
}

TEST(BcastComm, SharedMemorySplit) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  EXPECT_EQ(fill_and_bcast(node, 100000, 0, 42, Algorithm::scatter_ring), 100000);
  MPI_Comm_free(&node);
}

TEST(BcastComm, IntercommunicatorUsesMpiSemantics) {
  const int procs = world_size(), rank = world_rank();
  if (procs < 2) GTEST_SKIP() << "needs 2 ranks";
  const int color = rank % 2;
  MPI_Comm local = MPI_COMM_NULL, inter = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color == 0 ? 1 : 0, 5, &inter);
  int local_rank = 0;
  MPI_Comm_rank(local, &local_rank);
  std::vector<int> data(1000, color == 0 && local_rank == 0 ? 31 : -1);
  // Group 0's rank 0 broadcasts to group 1.
  const int root = color == 0 ? (local_rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  ASSERT_EQ(bcast(data.data(), 1000, MPI_INT, root, inter), MPI_SUCCESS);
  const int expected = (color == 1 || local_rank == 0) ? 31 : -1;
  EXPECT_EQ(std::count(data.begin(), data.end(), expected), 1000);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
}

}  // namespace
}  // namespace leancast::test
