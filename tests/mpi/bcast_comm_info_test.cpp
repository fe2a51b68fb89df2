// Per-communicator choice: the info key leancast_bcast_algorithm (MPI_Comm_set_info,
// MPI_Comm_dup_with_info) chooses for the communicator and its duplicates, also after its
// first broadcast; a bad value warns once (rank 0 of the communicator) and is ignored.
// Checked with leancast::chosen_algorithm and the data of real broadcasts; the ctest run
// with LEANCAST_VERBOSE=1 also matches the log line of a broadcast the hint chose.
#include <gtest/gtest.h>
#include <mpi.h>

#include <string>
#include <vector>

#include <leancast/leancast.hpp>

#include "stderr_capture.hpp"
#include "test_support.hpp"

namespace leancast {
namespace {

constexpr const char* kKey = "leancast_bcast_algorithm";
constexpr const char* kByInfo = "the communicator's leancast_bcast_algorithm info";

MPI_Info info_with(const char* value) {
  MPI_Info info = MPI_INFO_NULL;
  MPI_Info_create(&info);
  MPI_Info_set(info, kKey, value);
  return info;
}

void set_hint(MPI_Comm comm, const char* value) {
  MPI_Info info = info_with(value);
  ASSERT_EQ(MPI_Comm_set_info(comm, info), MPI_SUCCESS);
  MPI_Info_free(&info);
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

TEST(CommInfo, SetInfoChoosesForTheCommunicator) {
  MPI_Comm comm = test::dup_world_returning_errors();
  set_hint(comm, "binomial");
  std::string by;
  EXPECT_EQ(chosen(comm, 4000, &by), "binomial");
  EXPECT_EQ(by, kByInfo);
  broadcast_and_check(comm, 4000, 1);  // the verbose run logs "bytes=4000: binomial (by ...)"
  broadcast_and_check(comm, 4000, 2);
  // Another communicator is not affected.
  MPI_Comm other = test::dup_world_returning_errors();
  EXPECT_NE(chosen(other, 4000, &by), "none");
  EXPECT_NE(by, kByInfo);
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

TEST(CommInfo, SetInfoAfterBroadcastsTakesEffect) {
  MPI_Comm comm = test::dup_world_returning_errors();
  std::string by;
  broadcast_and_check(comm, 5000, 3);  // auto (or the environment), remembered by size
  set_hint(comm, "knomial:3");
  EXPECT_EQ(chosen(comm, 5000, &by), "knomial:3");
  EXPECT_EQ(by, kByInfo);
  broadcast_and_check(comm, 5000, 4);
  set_hint(comm, "pipeline-chain:1K");
  EXPECT_EQ(chosen(comm, 5000), "pipeline-chain:1K");
  broadcast_and_check(comm, 5000, 5);
  // An info without the key leaves the hint as it is.
  MPI_Info empty = MPI_INFO_NULL;
  MPI_Info_create(&empty);
  MPI_Info_set(empty, "some_other_key", "1");
  ASSERT_EQ(MPI_Comm_set_info(comm, empty), MPI_SUCCESS);
  MPI_Info_free(&empty);
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
  EXPECT_EQ(by, kByInfo);
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
  EXPECT_NE(by, kByInfo);
  MPI_Comm_free(&split);
  MPI_Comm_free(&comm);
}

TEST(CommInfo, DupWithInfoTakesTheGivenHints) {
  MPI_Comm comm = test::dup_world_returning_errors();
  set_hint(comm, "linear");
  MPI_Info info = info_with("scatter-ring-tuned");
  MPI_Comm with = MPI_COMM_NULL, without = MPI_COMM_NULL, from_world = MPI_COMM_NULL;
  ASSERT_EQ(MPI_Comm_dup_with_info(comm, info, &with), MPI_SUCCESS);
  ASSERT_EQ(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &from_world), MPI_SUCCESS);
  // MPI: the new communicator's hints are the info's, not the old communicator's.
  ASSERT_EQ(MPI_Comm_dup_with_info(comm, MPI_INFO_NULL, &without), MPI_SUCCESS);
  MPI_Info_free(&info);
  std::string by;
  EXPECT_EQ(chosen(with, 100000, &by), "scatter-ring-tuned");
  EXPECT_EQ(by, kByInfo);
  EXPECT_EQ(chosen(from_world, 100000), "scatter-ring-tuned");
  chosen(without, 100000, &by);
  EXPECT_NE(by, kByInfo);
  MPI_Comm_set_errhandler(with, MPI_ERRORS_RETURN);
  broadcast_and_check(with, 100000, 8);
  for (MPI_Comm* c : {&with, &without, &from_world, &comm}) MPI_Comm_free(c);
}

TEST(CommInfo, MpiAndAutoAreValues) {
  MPI_Comm comm = test::dup_world_returning_errors();
  std::string by;
  set_hint(comm, "mpi");
  EXPECT_EQ(chosen(comm, 2000, &by), "mpi");
  EXPECT_EQ(by, kByInfo);
  broadcast_and_check(comm, 2000, 9);
  set_hint(comm, "auto");
  EXPECT_NE(chosen(comm, 2000, &by), "auto");  // resolved
  EXPECT_EQ(by, kByInfo);
  broadcast_and_check(comm, 2000, 10);
  MPI_Comm_free(&comm);
}

TEST(CommInfo, ABadValueWarnsOnceAndIsIgnored) {
  MPI_Comm comm = test::dup_world_returning_errors();
  set_hint(comm, "binomial");
  const std::string first = test::capture_stderr([&] { set_hint(comm, "ring"); });
  const std::string again = test::capture_stderr([&] { set_hint(comm, "ring"); });
  const std::string parameter = test::capture_stderr([&] { set_hint(comm, "knomial:1"); });
  if (test::world_rank() == 0) {
    EXPECT_NE(first.find("leancast_bcast_algorithm=ring"), std::string::npos) << first;
    EXPECT_NE(first.find("the hint is ignored"), std::string::npos) << first;
    EXPECT_EQ(again, "");
    EXPECT_NE(parameter.find("leancast_bcast_algorithm=knomial:1"), std::string::npos) << parameter;
  } else {
    EXPECT_EQ(first, "");  // rank 0 of the communicator only
    EXPECT_EQ(parameter, "");
  }
  // Ignored: the environment (or auto) decides, as without a hint; broadcasts work.
  std::string by;
  chosen(comm, 6000, &by);
  EXPECT_NE(by, kByInfo);
  broadcast_and_check(comm, 6000, 11);
  // Its duplicates inherit nothing and do not warn again.
  MPI_Comm dup = MPI_COMM_NULL;
  const std::string duplicated = test::capture_stderr([&] {
    MPI_Comm_dup(comm, &dup);
    chosen(dup, 6000, &by);
  });
  EXPECT_EQ(duplicated, "");
  EXPECT_NE(by, kByInfo);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&comm);
}

}  // namespace
}  // namespace leancast
