// LEANCAST_CHECK=1 (set by the ctest runs of this program): ranks that disagree on the
// root, the byte count, the algorithm or its parameter all return an error whose message
// names the ranks and their values, instead of hanging or getting wrong data; a
// communicator carries correct broadcasts afterwards; ranks that agree (the same bytes
// through other types) broadcast as before. The ctest timeout is the "does not hang".
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <leancast/leancast.hpp>

#include "stderr_capture.hpp"
#include "test_support.hpp"

namespace leancast {
namespace {

int procs() { return test::world_size(); }
int rank() { return test::world_rank(); }
bool odd_one() { return rank() == procs() - 1; }  // the rank that disagrees

// "ranks 0-2" / "rank 0": how the message names the ranks that agree.
std::string the_others() {
  return procs() == 2 ? "rank 0" : "ranks 0-" + std::to_string(procs() - 2);
}
std::string the_odd_one() { return "rank " + std::to_string(procs() - 1); }

struct Result {
  int code = MPI_SUCCESS;
  int error_class = MPI_SUCCESS;
  std::string message;  // MPI_Error_string, or stderr where MPICH cannot carry the text
};

Result run(const std::function<int()>& bcast_call) {
  Result result;
  const std::string printed = test::capture_stderr([&] { result.code = bcast_call(); });
  MPI_Error_class(result.code, &result.error_class);
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(result.code, text, &length);
  result.message = std::string(text, length) + "\n" + printed;
  return result;
}

// A correct broadcast on `comm` afterwards: success and the root's bytes everywhere.
void still_works(MPI_Comm comm, std::uint64_t seed) {
  std::vector<unsigned char> data(10000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = rank() == 0 ? test::pattern(seed, i) : 0;
  ASSERT_EQ(bcast(data.data(), static_cast<int>(data.size()), MPI_BYTE, 0, comm), MPI_SUCCESS);
  for (std::size_t i = 0; i < data.size(); ++i) ASSERT_EQ(data[i], test::pattern(seed, i));
}

void expect_error(const Result& r, int error_class, const std::vector<std::string>& parts) {
  EXPECT_NE(r.code, MPI_SUCCESS);
  EXPECT_EQ(r.error_class, error_class) << r.message;
  EXPECT_NE(r.message.find("LEANCAST_CHECK"), std::string::npos) << r.message;
  for (const std::string& part : parts) {
    EXPECT_NE(r.message.find(part), std::string::npos) << "'" << part << "' in " << r.message;
  }
}

TEST(BcastCheck, IsOn) { ASSERT_STREQ(std::getenv("LEANCAST_CHECK"), "1"); }

TEST(BcastCheck, Root) {
  for (const char* algorithm : {"binomial", "scatter-ring-tuned", "mpi", "auto"}) {
    SCOPED_TRACE(algorithm);
    MPI_Comm comm = test::dup_world_returning_errors();
    const AlgorithmSpec spec = *parse_algorithm_spec(algorithm);
    std::vector<char> data(1000, 'x');
    const int root = odd_one() ? 1 : 0;
    const Result r = run([&] { return bcast(data.data(), 1000, MPI_CHAR, root, comm, spec); });
    expect_error(r, MPI_ERR_ROOT, {the_others() + " root 0", the_odd_one() + " root 1"});
    still_works(comm, 1);
    MPI_Comm_free(&comm);
  }
}

TEST(BcastCheck, Count) {
  for (const char* algorithm : {"pipeline-chain:256", "binomial", "mpi", "auto"}) {
    SCOPED_TRACE(algorithm);
    MPI_Comm comm = test::dup_world_returning_errors();
    const AlgorithmSpec spec = *parse_algorithm_spec(algorithm);
    std::vector<int> data(600, 7);
    const int count = odd_one() ? 500 : 250;  // 2000 bytes against 1000
    const Result r = run([&] { return bcast(data.data(), count, MPI_INT, 0, comm, spec); });
    expect_error(r, MPI_ERR_COUNT, {the_others() + " 1000 bytes", the_odd_one() + " 2000 bytes"});
    // A count of 0 on one rank (it would send and receive nothing) is caught alike.
    const int zero = odd_one() ? 0 : 250;
    const Result z = run([&] { return bcast(data.data(), zero, MPI_INT, 0, comm, spec); });
    expect_error(z, MPI_ERR_COUNT, {the_others() + " 1000 bytes", the_odd_one() + " 0 bytes"});
    still_works(comm, 2);
    MPI_Comm_free(&comm);
  }
}

// Ranks that disagree on several things get the class of the first the message names (the
// root before the count before the algorithm), and the message names every disagreement.
TEST(BcastCheck, SeveralDisagreementsGiveTheFirstOnesClass) {
  MPI_Comm comm = test::dup_world_returning_errors();
  std::vector<int> data(600, 7);
  const int root = odd_one() ? 1 : 0;
  const int count = odd_one() ? 500 : 250;
  const AlgorithmSpec spec = *parse_algorithm_spec(odd_one() ? "binomial" : "pipeline-chain:256");
  const Result r = run([&] { return bcast(data.data(), count, MPI_INT, root, comm, spec); });
  expect_error(r, MPI_ERR_ROOT,
               {the_odd_one() + " root 1", the_odd_one() + " 2000 bytes", "the algorithm"});
  still_works(comm, 9);
  MPI_Comm_free(&comm);
}

TEST(BcastCheck, Algorithm) {
  MPI_Comm comm = test::dup_world_returning_errors();
  std::vector<char> data(3000, 'y');
  const Algorithm algorithm = odd_one() ? Algorithm::linear : Algorithm::binomial;
  Result r = run([&] { return bcast(data.data(), 3000, MPI_CHAR, 0, comm, algorithm); });
  expect_error(r, MPI_ERR_ARG,
               {"algorithm", the_others() + " binomial", the_odd_one() + " linear"});
  // The library's own broadcast against a schedule.
  const Algorithm mpi_or_not = odd_one() ? Algorithm::mpi : Algorithm::two_tree;
  r = run([&] { return bcast(data.data(), 3000, MPI_CHAR, 0, comm, mpi_or_not); });
  expect_error(r, MPI_ERR_ARG, {the_others() + " two-tree", the_odd_one() + " mpi"});
  still_works(comm, 3);
  MPI_Comm_free(&comm);
}

TEST(BcastCheck, Parameter) {
  MPI_Comm comm = test::dup_world_returning_errors();
  std::vector<char> data(3000, 'z');
  const AlgorithmSpec spec{Algorithm::knomial, odd_one() ? 4u : 2u};
  Result r = run([&] { return bcast(data.data(), 3000, MPI_CHAR, 0, comm, spec); });
  expect_error(r, MPI_ERR_ARG,
               {"parameter", the_others() + " knomial:2", the_odd_one() + " knomial:4"});
  const AlgorithmSpec segments{Algorithm::pipeline_chain, odd_one() ? 512u : 256u};
  r = run([&] { return bcast(data.data(), 3000, MPI_CHAR, 0, comm, segments); });
  expect_error(r, MPI_ERR_ARG, {"parameter", the_odd_one() + " pipeline-chain:512"});
  still_works(comm, 4);
  MPI_Comm_free(&comm);
}

TEST(BcastCheck, ARankWhoseOwnCheckFailsDoesNotLeaveTheOthersWaiting) {
  MPI_Comm comm = test::dup_world_returning_errors();
  std::vector<char> data(100, 'w');
  const int root = odd_one() ? procs() : 0;  // not a rank: refused locally on that rank
  const Result r = run([&] { return bcast(data.data(), 100, MPI_CHAR, root, comm); });
  EXPECT_EQ(r.error_class, MPI_ERR_ROOT) << r.message;
  if (!odd_one()) {
    EXPECT_NE(r.message.find(the_odd_one() + " root " + std::to_string(procs())), std::string::npos)
        << r.message;
  }
  still_works(comm, 5);
  MPI_Comm_free(&comm);
}

TEST(BcastCheck, RanksThatAgreeBroadcastAsBefore) {
  MPI_Comm comm = test::dup_world_returning_errors();
  // The same bytes through different types: MPI allows it, and so does the check.
  std::vector<int> data(1000);
  for (int i = 0; i < 1000; ++i) data[i] = rank() == 0 ? i * 3 + 1 : 0;
  int rc = odd_one() && procs() > 1
               ? bcast(data.data(), 4000, MPI_BYTE, 0, comm, Algorithm::scatter_ring_tuned)
               : bcast(data.data(), 1000, MPI_INT, 0, comm, Algorithm::scatter_ring_tuned);
  ASSERT_EQ(rc, MPI_SUCCESS);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(data[i], i * 3 + 1);
  for (int k = 0; k < 20; ++k) still_works(comm, 10 + k);
  rc = bcast(data.data(), 0, MPI_INT, 0, comm);
  EXPECT_EQ(rc, MPI_SUCCESS);
  MPI_Comm_free(&comm);
}

}  // namespace
}  // namespace leancast
