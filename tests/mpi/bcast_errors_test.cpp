// Bad arguments come back like MPI's own: the right error class, through the
// communicator's error handler, with no communication (so no rank waits).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <leancast/leancast.h>
#include <leancast/leancast.hpp>

#include "test_support.hpp"

namespace leancast::test {
namespace {

int handler_calls = 0;
int handler_last_code = MPI_SUCCESS;

void recording_handler(MPI_Comm*, int* code, ...) {
  ++handler_calls;
  handler_last_code = *code;
}

int error_class(int code) {
  int cls = MPI_SUCCESS;
  MPI_Error_class(code, &cls);
  return cls;
}

class BcastErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    MPI_Comm_create_errhandler(recording_handler, &handler_);
    MPI_Comm_set_errhandler(comm_, handler_);
    handler_calls = 0;
  }
  void TearDown() override {
    MPI_Comm_free(&comm_);
    MPI_Errhandler_free(&handler_);
  }

  // Runs a bad call on every rank and checks the class of the code it returns and that
  // the handler saw the same code.
  void expect_class(int rc, int expected, const char* what) {
    EXPECT_EQ(error_class(rc), expected) << what;
    EXPECT_EQ(handler_calls, 1) << what;
    EXPECT_EQ(handler_last_code, rc) << what;
    handler_calls = 0;
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_Errhandler handler_ = MPI_ERRHANDLER_NULL;
};

TEST_F(BcastErrors, EachBadArgumentHasItsClass) {
  const int procs = world_size();
  int data[8] = {0};
  expect_class(LC_Bcast(data, 8, MPI_INT, procs, comm_), MPI_ERR_ROOT, "root = size");
  expect_class(LC_Bcast(data, 8, MPI_INT, -1, comm_), MPI_ERR_ROOT, "root = -1");
  expect_class(LC_Bcast(data, 0, MPI_INT, procs, comm_), MPI_ERR_ROOT, "root = size, count 0");
  expect_class(LC_Bcast(data, -1, MPI_INT, 0, comm_), MPI_ERR_COUNT, "count = -1");
  expect_class(LC_Bcast(data, 8, MPI_DATATYPE_NULL, 0, comm_), MPI_ERR_TYPE, "MPI_DATATYPE_NULL");
  MPI_Datatype uncommitted = MPI_DATATYPE_NULL;
  MPI_Type_vector(2, 1, 2, MPI_INT, &uncommitted);
  expect_class(LC_Bcast(data, 2, uncommitted, 0, comm_), MPI_ERR_TYPE, "uncommitted type");
  MPI_Type_free(&uncommitted);
  expect_class(LC_Bcast(nullptr, 8, MPI_INT, 0, comm_), MPI_ERR_BUFFER, "NULL buffer");
  expect_class(LC_Bcast(MPI_IN_PLACE, 8, MPI_INT, 0, comm_), MPI_ERR_BUFFER, "MPI_IN_PLACE");
  expect_class(LC_Bcast_with(data, 8, MPI_INT, 0, comm_, "ring"), MPI_ERR_ARG, "unknown name");
  expect_class(LC_Bcast_with(data, 8, MPI_INT, 0, comm_, "knomial:1"), MPI_ERR_ARG, "radix 1");
  expect_class(LC_Bcast_with(data, 8, MPI_INT, 0, comm_, "pipeline-chain:0"), MPI_ERR_ARG,
               "segment 0");
  expect_class(LC_Bcast_with(data, 8, MPI_INT, 0, comm_, "pipeline-chain:x"), MPI_ERR_ARG,
               "segment not a number");
  expect_class(LC_Bcast_with(data, 8, MPI_INT, 0, comm_, "binomial:2"), MPI_ERR_ARG,
               "parameter of binomial");
  expect_class(bcast(data, 8, MPI_INT, 0, comm_, AlgorithmSpec{Algorithm::knomial, 1}), MPI_ERR_ARG,
               "C++ radix 1");
  // Every parameter is range-checked alike (the registry row's range).
  expect_class(LC_Bcast_with(data, 8, MPI_INT, 0, comm_, "circulant:4294967296"), MPI_ERR_ARG,
               "2^32 circulant blocks");
  expect_class(LC_Bcast_with(data, 8, MPI_INT, 0, comm_, "two-tree:2G"), MPI_ERR_ARG,
               "segment above 1G");
  expect_class(bcast(data, 8, MPI_INT, 0, comm_, AlgorithmSpec{Algorithm::circulant, 1 << 21}),
               MPI_ERR_ARG, "C++ 2^21 circulant blocks");
  // A nonblocking or persistent broadcast without a place for its request.
  expect_class(LC_Ibcast(data, 8, MPI_INT, 0, comm_, nullptr), MPI_ERR_ARG, "NULL request");
  expect_class(LC_Ibcast_with(data, 8, MPI_INT, 0, comm_, "binomial", nullptr), MPI_ERR_ARG,
               "NULL request, named");
  expect_class(LC_Bcast_init(data, 8, MPI_INT, 0, comm_, MPI_INFO_NULL, nullptr), MPI_ERR_ARG,
               "NULL persistent request");
  expect_class(ibcast(data, 8, MPI_INT, 0, comm_, nullptr), MPI_ERR_ARG, "C++ NULL request");
  // Valid corner cases.
  EXPECT_EQ(LC_Bcast(nullptr, 0, MPI_INT, 0, comm_), MPI_SUCCESS);
  EXPECT_EQ(LC_Bcast_with(data, 8, MPI_INT, 0, comm_, nullptr), MPI_SUCCESS);
  EXPECT_EQ(LC_Bcast_with(data, 8, MPI_INT, 0, comm_, "circulant:1048576"), MPI_SUCCESS);
  EXPECT_EQ(LC_Bcast_with(data, 8, MPI_INT, 0, comm_, "two-tree:1G"), MPI_SUCCESS);
  EXPECT_EQ(handler_calls, 0);
}

// A repeat of a call (same count, datatype, root and algorithm) skips the checks its first
// call passed (bcast.cpp), but not those of the buffer, which a repeat may change; and a
// derived datatype is checked again, even where a freed one's handle comes back.
TEST_F(BcastErrors, ARepeatedCallIsCheckedAgainWhereItCanDiffer) {
  int data[8] = {0};
  for (const char* algorithm : {static_cast<const char*>(nullptr), "mpi", "shm", "binomial"}) {
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(LC_Bcast_with(data, 8, MPI_INT, 0, comm_, algorithm), MPI_SUCCESS);
    }
    const std::string what = algorithm != nullptr ? algorithm : "auto";
    expect_class(LC_Bcast_with(nullptr, 8, MPI_INT, 0, comm_, algorithm), MPI_ERR_BUFFER,
                 ("NULL buffer after valid calls, " + what).c_str());
    expect_class(LC_Bcast_with(MPI_IN_PLACE, 8, MPI_INT, 0, comm_, algorithm), MPI_ERR_BUFFER,
                 ("MPI_IN_PLACE after valid calls, " + what).c_str());
    EXPECT_EQ(LC_Bcast_with(data, 8, MPI_INT, 0, comm_, algorithm), MPI_SUCCESS) << what;
  }
  for (int round = 0; round < 3; ++round) {
    MPI_Datatype pair = MPI_DATATYPE_NULL;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    EXPECT_EQ(LC_Bcast(data, 2, pair, 0, comm_), MPI_SUCCESS);
    EXPECT_EQ(LC_Bcast(data, 2, pair, 0, comm_), MPI_SUCCESS);
    MPI_Type_free(&pair);
    MPI_Datatype uncommitted = MPI_DATATYPE_NULL;
    MPI_Type_contiguous(2, MPI_INT, &uncommitted);  // often the freed type's handle
    expect_class(LC_Bcast(data, 2, uncommitted, 0, comm_), MPI_ERR_TYPE,
                 "uncommitted type after a committed one");
    MPI_Type_free(&uncommitted);
  }
  EXPECT_EQ(handler_calls, 0);
}

// A communicator freed and made again (its handle may come back) gets its own private
// state, however many broadcasts went over the one before.
TEST_F(BcastErrors, ACommunicatorMadeAgainBroadcastsOnItsOwn) {
  const int rank = world_rank();
  for (int round = 0; round < 4; ++round) {
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, round % 2 == 0 ? 0 : rank % 2, rank, &comm);
    int size = 0;
    MPI_Comm_size(comm, &size);
    for (int i = 0; i < 3; ++i) {
      int value = rank * 100 + round * 10 + i;
      ASSERT_EQ(LC_Bcast_with(&value, 1, MPI_INT, size - 1, comm, "shm"), MPI_SUCCESS);
      int root_world = 0;
      MPI_Group group = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
      MPI_Comm_group(comm, &group);
      MPI_Comm_group(MPI_COMM_WORLD, &world);
      const int last = size - 1;
      MPI_Group_translate_ranks(group, 1, &last, world, &root_world);
      MPI_Group_free(&group);
      MPI_Group_free(&world);
      EXPECT_EQ(value, root_world * 100 + round * 10 + i) << "round " << round;
    }
    MPI_Comm_free(&comm);
  }
}

// The codes carry leancast's own text, which MPI_Error_string (and a fatal handler)
// shows; where the MPI library cannot hold such text (MPICH 4.0), the plain class code.
TEST_F(BcastErrors, ErrorStringsNameTheProblem) {
  int data[1] = {0};
  const int rc = LC_Bcast(data, 1, MPI_INT, -1, comm_);
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  ASSERT_EQ(MPI_Error_string(rc, text, &length), MPI_SUCCESS);
  const bool own_text =
      std::string(text, length) == "leancast: root is not a rank of the communicator";
  EXPECT_TRUE(own_text || rc == MPI_ERR_ROOT) << "code " << rc << ": " << text;
  // The unknown-name text lists the names, clipped to fit MPI_MAX_ERROR_STRING.
  const int arg_rc = LC_Bcast_with(data, 1, MPI_INT, 0, comm_, "ring");
  ASSERT_EQ(MPI_Error_string(arg_rc, text, &length), MPI_SUCCESS);
  const std::string arg_text(text, length);
  EXPECT_TRUE(arg_text.rfind("leancast: unknown algorithm name or bad parameter (auto, ", 0) == 0 ||
              arg_rc == MPI_ERR_ARG)
      << "code " << arg_rc << ": " << arg_text;
  // A known name with a value outside its range: the text names the value and the range.
  const int range_rc = LC_Bcast_with(data, 1, MPI_INT, 0, comm_, "circulant:4294967296");
  ASSERT_EQ(MPI_Error_string(range_rc, text, &length), MPI_SUCCESS);
  const std::string range_text(text, length);
  EXPECT_TRUE(range_text ==
                  "leancast: circulant: the block count must be an integer from 1 to "
                  "1048576 (got 4294967296)" ||
              range_rc == MPI_ERR_ARG)
      << "code " << range_rc << ": " << range_text;
  int range_class = MPI_SUCCESS;
  MPI_Error_class(range_rc, &range_class);
  EXPECT_EQ(range_class, MPI_ERR_ARG);
  handler_calls = 0;
}

TEST_F(BcastErrors, NullCommunicatorUsesTheWorldHandler) {
  int data[1] = {0};
  MPI_Errhandler previous = MPI_ERRHANDLER_NULL;
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &previous);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, handler_);
  expect_class(LC_Bcast(data, 1, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM, "MPI_COMM_NULL");
  expect_class(LC_Bcast_with(data, 1, MPI_INT, 0, MPI_COMM_NULL, "opt"), MPI_ERR_COMM,
               "MPI_COMM_NULL with a name");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, previous);
  MPI_Errhandler_free(&previous);
}

// MPI 3 libraries pack with int sizes only: a datatype element of 3 GiB is refused before
// any communication (nothing is allocated or touched). MPI 4 libraries pack it.
TEST_F(BcastErrors, ElementBeyondIntMaxWithoutMpi4) {
  if (MPI_VERSION >= 4) GTEST_SKIP() << "MPI 4 packs such elements (MPI_Pack_c)";
  MPI_Datatype gib = MPI_DATATYPE_NULL, three_gib = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(1 << 30, MPI_BYTE, &gib);
  MPI_Type_contiguous(3, gib, &three_gib);
  MPI_Type_commit(&three_gib);
  char junk = 0;
  expect_class(LC_Bcast(&junk, 1, three_gib, 0, comm_), MPI_ERR_TYPE, "3 GiB element");
  MPI_Type_free(&three_gib);
  MPI_Type_free(&gib);
}

TEST_F(BcastErrors, ErrorsLeaveTheCommunicatorUsable) {
  const int procs = world_size(), rank = world_rank();
  int junk[4] = {0};
  EXPECT_NE(LC_Bcast(junk, 4, MPI_INT, procs + 3, comm_), MPI_SUCCESS);
  std::vector<int> data(50000, rank == procs - 1 ? 3 : 0);
  ASSERT_EQ(LC_Bcast_with(data.data(), 50000, MPI_INT, procs - 1, comm_, "opt"), MPI_SUCCESS);
  EXPECT_EQ(std::count(data.begin(), data.end(), 3), 50000);
}

// Every executor checks a received message alike: under each, a rank that expects fewer
// bytes than the root sends gets MPI_ERR_TRUNCATE from its receive, the others finish.
TEST_F(BcastErrors, EveryExecutorReportsACountDisagreement) {
  const int procs = world_size(), rank = world_rank();
  if (procs < 2) GTEST_SKIP() << "needs two ranks";
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  for (const char* algorithm : {"linear@rounds", "linear@dataflow", "linear@dataflow:0"}) {
    std::vector<char> data(1000, 1);
    const int count = rank == procs - 1 ? 900 : 1000;  // the last rank disagrees
    const int rc = LC_Bcast_with(data.data(), count, MPI_BYTE, 0, comm_, algorithm);
    if (rank == procs - 1) {
      EXPECT_EQ(error_class(rc), MPI_ERR_TRUNCATE) << algorithm;
    } else if (rank != 0) {
      EXPECT_EQ(rc, MPI_SUCCESS) << algorithm;
    }
    MPI_Barrier(comm_);
  }
}

}  // namespace
}  // namespace leancast::test
