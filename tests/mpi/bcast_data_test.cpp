// Every algorithm delivers the root's bytes to every rank, for the sizes where the chunk
// arithmetic changes, every root for small P, and predefined types.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <set>

#include <leancast/leancast.h>
#include <leancast/leancast.hpp>

#include "test_support.hpp"

namespace leancast::test {
namespace {

constexpr std::uint64_t kGuard = 64;  // bytes after the buffer that must stay untouched
constexpr unsigned char kUnset = 0xEE;

std::vector<std::uint64_t> sizes_under_test(int procs) {
  const auto p = static_cast<std::uint64_t>(procs);
  std::set<std::uint64_t> sizes{0, 1, p - 1, p, 12287, 12288, 524287, 524289, (3u << 20) + 7};
  return {sizes.begin(), sizes.end()};
}

TEST(BcastData, EveryAlgorithmSizeAndRoot) {
  const int procs = world_size(), rank = world_rank();
  std::uint64_t seed = 0;
  int checked = 0;
  for (const std::string& name : algorithm_names_under_test()) {
    for (std::uint64_t bytes : sizes_under_test(procs)) {
      for (int root : roots_under_test(procs)) {
        ++seed;
        std::vector<unsigned char> buf(bytes + kGuard, kUnset);
        if (rank == root) {
          for (std::uint64_t i = 0; i < bytes; ++i) buf[i] = pattern(seed, i);
        }
        const int rc = LC_Bcast_with(buf.data(), static_cast<int>(bytes), MPI_BYTE, root,
                                     MPI_COMM_WORLD, name.c_str());
        ASSERT_EQ(rc, MPI_SUCCESS) << name;
        std::uint64_t wrong = 0;
        for (std::uint64_t i = 0; i < bytes; ++i) wrong += buf[i] != pattern(seed, i);
        for (std::uint64_t i = bytes; i < bytes + kGuard; ++i) wrong += buf[i] != kUnset;
        EXPECT_EQ(wrong, 0u) << name << " bytes=" << bytes << " root=" << root << " rank=" << rank;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 0);
}

// One-byte segments: more rounds than the 32768 tags the executor cycles through
// (tag = round % 32768). Matching stays right because each rank finishes a round before
// the next and MPI keeps the order of messages with one (source, tag, communicator).
TEST(BcastData, PipelineRoundsBeyondTheTagRange) {
  const int procs = world_size(), rank = world_rank();
  const std::uint64_t bytes = 32768 + 1001;
  const int root = procs - 1;
  for (const char* name : {"pipeline-chain:1", "pipeline-binary-tree:1"}) {
    std::vector<unsigned char> buf(bytes, kUnset);
    if (rank == root) {
      for (std::uint64_t i = 0; i < bytes; ++i) buf[i] = pattern(99, i);
    }
    ASSERT_EQ(
        LC_Bcast_with(buf.data(), static_cast<int>(bytes), MPI_BYTE, root, MPI_COMM_WORLD, name),
        MPI_SUCCESS);
    std::uint64_t wrong = 0;
    for (std::uint64_t i = 0; i < bytes; ++i) wrong += buf[i] != pattern(99, i);
    EXPECT_EQ(wrong, 0u) << name << " rank=" << rank;
  }
}

template <class T>
void check_typed(MPI_Datatype type, const std::vector<int>& counts) {
  const int procs = world_size(), rank = world_rank();
  for (Algorithm algorithm : concrete_algorithms()) {
    for (int count : counts) {
      const int root = procs - 1;
      std::vector<T> data(count);
      for (int i = 0; i < count; ++i) data[i] = rank == root ? static_cast<T>(i * 3 + 0.5) : T(-1);
      ASSERT_EQ(bcast(data.data(), count, type, root, MPI_COMM_WORLD, algorithm), MPI_SUCCESS);
      int wrong = 0;
      for (int i = 0; i < count; ++i) wrong += data[i] != static_cast<T>(i * 3 + 0.5);
      EXPECT_EQ(wrong, 0) << to_string(algorithm) << " count=" << count;
    }
  }
}

TEST(BcastData, IntAndDouble) {
  const int p = world_size();
  check_typed<int>(MPI_INT, {1, p + 1, 3073, 131073, 786434});
  check_typed<double>(MPI_DOUBLE, {1, p, 1537, 65537, 393217});
}

// Per-call names, the paper's aliases, '_' for '-', and "mpi": the MPI library's own
// broadcast through PMPI_Bcast. (The LEANCAST_* environment is read once per process, so
// separate runs test it: select.*, *.library_settings and *.pmpi.*.)
TEST(BcastData, PerCallNamesAliasesAndMpi) {
  const int procs = world_size(), rank = world_rank();
  const int count = 70001;
  for (const char* name : {"native", "opt", "scatter_ring_tuned", "mpi"}) {
    std::vector<int> data(count, rank == procs - 1 ? 9 : 0);
    ASSERT_EQ(LC_Bcast_with(data.data(), count, MPI_INT, procs - 1, MPI_COMM_WORLD, name),
              MPI_SUCCESS)
        << name;
    EXPECT_EQ(std::count(data.begin(), data.end(), 9), count) << name;
  }
  std::vector<double> values(3001, rank == 0 ? 2.5 : 0);
  ASSERT_EQ(bcast(values.data(), 3001, MPI_DOUBLE, 0, MPI_COMM_WORLD, Algorithm::mpi), MPI_SUCCESS);
  EXPECT_EQ(std::count(values.begin(), values.end(), 2.5), 3001);
}

}  // namespace
}  // namespace leancast::test
