// GoogleTest under mpirun: every rank runs every test (tests are collective), rank 0 prints
// the usual report, other ranks print only their failures, and the program fails on every
// rank if any rank failed.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

class FailuresOnly : public ::testing::EmptyTestEventListener {
 public:
  explicit FailuresOnly(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (result.failed()) {
      std::fprintf(stderr, "rank %d: %s:%d: %s\n", rank_, result.file_name(), result.line_number(),
                   result.summary());
    }
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  // leancast's progress thread (LEANCAST_PROGRESS_THREAD=1) calls MPI beside the test;
  // LEANCAST_TEST_THREAD_MULTIPLE=1 asks for the level without that setting,
  // LEANCAST_TEST_THREAD_SERIALIZED=1 for the level below it with the setting.
  const auto set = [](const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr && std::strcmp(value, "1") == 0;
  };
  const bool multiple = (set("LEANCAST_PROGRESS_THREAD") || set("LEANCAST_TEST_THREAD_MULTIPLE")) &&
                        !set("LEANCAST_TEST_THREAD_SERIALIZED");
  MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SERIALIZED, &provided);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailuresOnly(rank));
  }
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && any_failed && !failed) std::fprintf(stderr, "another rank failed\n");
  MPI_Finalize();
  return any_failed;
}
