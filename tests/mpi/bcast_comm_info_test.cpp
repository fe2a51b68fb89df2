// Per-communicator choice: LC_Comm_set_algorithm names the algorithm for the communicator
// and its later duplicates, also after its first broadcast; a bad name is an MPI_ERR_ARG
// error that leaves the hint as it was. Checked with leancast::chosen_algorithm and the data
// of real broadcasts; the ctest run with LEANCAST_VERBOSE=1 also matches the log line of a
// broadcast the hint chose.
#include <gtest/gtest.h>
#include <leancast/leancast.h>
#include <mpi.h>

#include <string>
#include <vector>

#include <leancast/leancast.hpp>

#include "test_support.hpp"

namespace leancast {
namespace {

constexpr const char* kByHint = "the communicator's hint";

void set_hint(MPI_Comm comm, const char* value) {
  ASSERT_EQ(LC_Comm_set_algorithm(comm, value), MPI_SUCCESS) << value;
}

int error_class(int code) {
  int cls = MPI_SUCCESS;
  MPI_Error_class(code, &cls);
  return cls;
}

std::string chosen(MPI_Comm comm, std::uint64_t bytes, std::string* by = nullptr) {
  const auto spec = chosen_algorithm(comm, bytes, by);
  return spec ? to_string(*spec) : "none";
}

// A broadcast of `bytes` bytes from the last rank (LC's auto path: no per-call name),
// whose data every rank checks.
void broadcast_and_check(MPI_Comm comm, int bytes, std::uint64_t seed) {
  const int root = test::world_size() - 1;
  std::vector<unsigned char> data(bytes);
  for (int i = 0; i < bytes; ++i) {
    data[i] = test::world_rank() == root ? test::pattern(seed, i) : 0;
  }
  ASSERT_EQ(bcast(data.data(), bytes, MPI_BYTE, root, comm), MPI_SUCCESS);
  for (int i = 0; i < bytes; ++i) ASSERT_EQ(data[i], test::pattern(seed, i)) << "byte " << i;
}

TEST(CommInfo, TheHintChoosesForTheCommunicator) {
  MPI_Comm comm = test::dup_world_returning_errors();
  set_hint(comm, "binomial");
  std::string by;
  EXPECT_EQ(chosen(comm, 4000, &by), "binomial");
  EXPECT_EQ(by, kByHint);
  broadcast_and_check(comm, 4000, 1);  // the verbose run logs "bytes=4000: binomial (by ...)"
  broadcast_and_check(comm, 4000, 2);
  // Another communicator is not affected.
  MPI_Comm other = test::dup_world_returning_errors();
  EXPECT_NE(chosen(other, 4000, &by), "none");
  EXPECT_NE(by, kByHint);
  MPI_Comm_free(&other);
  MPI_Comm_free(&comm);
}

// A call's name comes before the hint: chosen_algorithm with `named` says what such a call runs.
TEST(CommInfo, ANamedAlgorithmComesBeforeTheHint) {
  MPI_Comm comm = test::dup_world_returning_errors();
  set_hint(comm, "binomial");
  std::string by;
  const AlgorithmSpec named(Algorithm::linear);
  const auto spec = chosen_algorithm(comm, 4000, &by, &named);
  ASSERT_TRUE(spec.has_value());
  EXPECT_EQ(to_string(*spec), "linear");
  EXPECT_EQ(by, "the call");
  EXPECT_EQ(chosen(comm, 4000, &by), "binomial");  // without it, the hint
  MPI_Comm_free(&comm);
}

TEST(CommInfo, AHintAfterBroadcastsTakesEffect) {
  MPI_Comm comm = test::dup_world_returning_errors();
  std::string by;
  broadcast_and_check(comm, 5000, 3);  // auto (or the environment), remembered by size
  set_hint(comm, "knomial:3");
  EXPECT_EQ(chosen(comm, 5000, &by), "knomial:3");
  EXPECT_EQ(by, kByHint);
  broadcast_and_check(comm, 5000, 4);
  set_hint(comm, "pipeline-chain:1K");
  EXPECT_EQ(chosen(comm, 5000), "pipeline-chain:1K");
  broadcast_and_check(comm, 5000, 5);
  // No name: no hint.
  set_hint(comm, "");
  chosen(comm, 5000, &by);
  EXPECT_NE(by, kByHint);
  set_hint(comm, "pipeline-chain:1K");
  EXPECT_EQ(chosen(comm, 5000), "pipeline-chain:1K");
  MPI_Comm_free(&comm);
}

TEST(CommInfo, DuplicatesInheritTheHint) {
  MPI_Comm comm = test::dup_world_returning_errors();
  set_hint(comm, "linear");
  broadcast_and_check(comm, 3000, 6);
  std::string by;
  MPI_Comm dup = MPI_COMM_NULL, dup2 = MPI_COMM_NULL;
  ASSERT_EQ(MPI_Comm_dup(comm, &dup), MPI_SUCCESS);
  EXPECT_EQ(chosen(dup, 3000, &by), "linear");
  EXPECT_EQ(by, kByHint);
  broadcast_and_check(dup, 3000, 7);
  ASSERT_EQ(MPI_Comm_dup(dup, &dup2), MPI_SUCCESS);  // and theirs
  EXPECT_EQ(chosen(dup2, 3000), "linear");
  // A hint set on the duplicate is its own.
  set_hint(dup, "hypercube");
  EXPECT_EQ(chosen(dup, 3000), "hypercube");
  EXPECT_EQ(chosen(comm, 3000), "linear");
  EXPECT_EQ(chosen(dup2, 3000), "linear");
  MPI_Comm_free(&dup2);
  MPI_Comm_free(&dup);
  // Split and create make new communicators, not duplicates: no hint.
  MPI_Comm split = MPI_COMM_NULL;
  ASSERT_EQ(MPI_Comm_split(comm, 0, test::world_rank(), &split), MPI_SUCCESS);
  chosen(split, 3000, &by);
  EXPECT_NE(by, kByHint);
  MPI_Comm_free(&split);
  MPI_Comm_free(&comm);
}

TEST(CommInfo, MpiAndAutoAreValues) {
  MPI_Comm comm = test::dup_world_returning_errors();
  std::string by;
  set_hint(comm, "mpi");
  EXPECT_EQ(chosen(comm, 2000, &by), "mpi");
  EXPECT_EQ(by, kByHint);
  broadcast_and_check(comm, 2000, 9);
  set_hint(comm, "auto");
  EXPECT_NE(chosen(comm, 2000, &by), "auto");  // resolved
  EXPECT_EQ(by, kByHint);
  broadcast_and_check(comm, 2000, 10);
  MPI_Comm_free(&comm);
}

TEST(CommInfo, ABadNameIsAnErrorAndLeavesTheHint) {
  MPI_Comm comm = test::dup_world_returning_errors();
  set_hint(comm, "binomial");
  EXPECT_EQ(error_class(LC_Comm_set_algorithm(comm, "ring")), MPI_ERR_ARG);
  EXPECT_EQ(error_class(LC_Comm_set_algorithm(comm, "knomial:1")), MPI_ERR_ARG);
  EXPECT_EQ(chosen(comm, 6000), "binomial");
  broadcast_and_check(comm, 6000, 11);
  MPI_Comm_free(&comm);
}

}  // namespace
}  // namespace leancast
