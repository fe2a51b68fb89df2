// The within-node levels, each test for each: shm, the broadcast through a shared-memory
// window (src/mpi/run/executor_shared.cpp), cma, the single copy from the source's buffer,
// and cma-split, cma with the root writing a share into its readers
// (src/mpi/run/executor_cross.cpp). Every byte at every rank for sizes around cache lines,
// segments and the window, any root, many communicators made and freed (their windows with
// them), user point-to-point traffic and other algorithms' broadcasts interleaved,
// node-aware:X/LEVEL (run with LEANCAST_RANKS_PER_NODE), a derived datatype, a rank that
// disagrees on the count; for cma and cma-split, a rank denied cross-memory attach making
// every rank fall back to shm together; a stale object under the name the next window would
// take (ShmNames).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <numeric>

#include <leancast/leancast.h>
#include <leancast/leancast.hpp>

#include "mpi/run/broadcast_run.hpp"
#include "mpi/run/shared_window.hpp"
#include "stderr_capture.hpp"
#include "test_support.hpp"

namespace leancast::test {
namespace {

constexpr std::uint64_t kGuard = 64;
constexpr unsigned char kUnset = 0xEE;

// Broadcasts `bytes` from `root` with `algorithm` on `comm` and counts the wrong bytes
// (guard bytes past the count included) on this rank.
std::uint64_t wrong_bytes(MPI_Comm comm, const std::string& algorithm, std::uint64_t bytes,
                          int root, std::uint64_t seed, int* rc = nullptr) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::vector<unsigned char> buf(bytes + kGuard, kUnset);
  if (rank == root) {
    for (std::uint64_t i = 0; i < bytes; ++i) buf[i] = pattern(seed, i);
  }
  const int code =
      LC_Bcast_with(buf.data(), static_cast<int>(bytes), MPI_BYTE, root, comm, algorithm.c_str());
  if (rc != nullptr) *rc = code;
  std::uint64_t wrong = code == MPI_SUCCESS ? 0 : 1;
  for (std::uint64_t i = 0; i < bytes; ++i) wrong += buf[i] != pattern(seed, i);
  for (std::uint64_t i = bytes; i < bytes + kGuard; ++i) wrong += buf[i] != kUnset;
  return wrong;
}

// The level under test: "shm", "cma" or "cma-split".
class WithinNode : public ::testing::TestWithParam<std::string> {
 protected:
  std::string level(const std::string& parameter = "") const {
    return parameter.empty() ? GetParam() : GetParam() + ":" + parameter;
  }
};

// shm's slots are the segment size rounded up to a power of two from 4 KiB, as many as
// SharedWindow::slots_for says; cma reads a segment per system call: sizes around a cache
// line, one below, at and above a segment, a window, and many windows.
std::uint64_t window_of(std::uint64_t segment) {
  return detail::SharedWindow::slots_for(detail::SharedWindow::rounded_slot(segment)) * segment;
}

TEST_P(WithinNode, SizesAroundLineSegmentAndWindowBoundaries) {
  const int procs = world_size();
  std::uint64_t seed = 1000;
  for (std::uint64_t segment : {std::uint64_t{4096}, std::uint64_t{16384}, std::uint64_t{5000}}) {
    const std::string name = level(std::to_string(segment));
    const std::uint64_t window = window_of(segment);
    for (std::uint64_t bytes :
         {std::uint64_t{1}, std::uint64_t{63}, std::uint64_t{64}, std::uint64_t{65}, segment - 1,
          segment, segment + 1, window - 1, window, window + 1, window + 37 * segment + 5}) {
      for (int root : roots_under_test(procs)) {
        EXPECT_EQ(wrong_bytes(MPI_COMM_WORLD, name, bytes, root, ++seed), 0u)
            << name << " bytes=" << bytes << " root=" << root << " rank=" << world_rank();
      }
    }
  }
}

// 6 MiB through a window of 4 KiB slots (16 of them: 1536 segments, each slot reused 96
// times), then the same with 1 MiB slots (the largest, 8 of them).
TEST_P(WithinNode, FarBeyondTheWindow) {
  const int procs = world_size();
  ASSERT_LT(window_of(4096), std::uint64_t{6} << 20);
  for (const std::string& name : {level("4K"), level("1M")}) {
    EXPECT_EQ(wrong_bytes(MPI_COMM_WORLD, name, (6u << 20) + 3, procs - 1, 7), 0u) << name;
    EXPECT_EQ(wrong_bytes(MPI_COMM_WORLD, name, 3u << 20, 0, 8), 0u) << name;
  }
}

// Small broadcasts back to back, the root moving among all ranks but the last, which lags
// now and then while the others run ahead of it by more than the window's slots (16 of
// 32 KiB, 8 of 1 MiB): a writer that reused a slot before the lagging reader had copied
// it out (shm's writer remembers how far the readers were when it last looked,
// SharedWindow::free_below) shows here as a wrong byte or a segment of another broadcast.
TEST_P(WithinNode, SmallBroadcastsBackToBackPastALaggingReader) {
  const int procs = world_size(), rank = world_rank();
  for (std::uint64_t slot : {std::uint64_t{32768}, std::uint64_t{1} << 20}) {
    const int slots = static_cast<int>(window_of(slot) / slot);
    const std::string name = level(std::to_string(slot));
    for (int i = 0; i < 6 * slots + 16; ++i) {
      const int root = procs > 1 ? i % (procs - 1) : 0;
      if (procs > 1 && rank == procs - 1 && i % (2 * slots) == 3) usleep(10000);
      EXPECT_EQ(wrong_bytes(MPI_COMM_WORLD, name, 64 + (i % 5) * 1000, root, 9000 + i), 0u)
          << name << " broadcast " << i << " root=" << root << " rank=" << rank;
    }
  }
}

// Windows live with their communicators: 40 made and freed leave none behind, and each
// delivers (its own window, counting its own segments from 0).
TEST_P(WithinNode, ManyCommunicatorsLeaveNoWindowBehind) {
  const std::size_t before = detail::shared_windows_alive();
  for (int i = 0; i < 40; ++i) {
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    EXPECT_EQ(wrong_bytes(comm, level(), 20000 + i, i % world_size(), 100 + i), 0u) << i;
    if (world_size() > 1) {
      EXPECT_EQ(detail::shared_windows_alive(), before + 1);
    }
    MPI_Comm_free(&comm);
    EXPECT_EQ(detail::shared_windows_alive(), before) << i;
  }
  // A split communicator's halves each get a window of their own.
  MPI_Comm half = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank() % 2, 0, &half);
  int half_size = 0;
  MPI_Comm_size(half, &half_size);
  EXPECT_EQ(wrong_bytes(half, level(), 70001, half_size - 1, 9), 0u);
  MPI_Comm_free(&half);
  EXPECT_EQ(detail::shared_windows_alive(), before);
}

// A user receive with MPI_ANY_SOURCE and MPI_ANY_TAG, posted on the user's communicator
// before the broadcasts, takes the user's message, never broadcast data; the level's
// broadcasts between other algorithms' (the other level's too) on the same communicator all
// deliver.
TEST_P(WithinNode, InterleavedWithUserTrafficAndOtherBroadcasts) {
  const int procs = world_size(), rank = world_rank();
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  int received = -1;
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Irecv(&received, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &request);
  const std::string algorithms[] = {level(),
                                    "binomial",
                                    level("4K"),
                                    "pipeline-chain:8K",
                                    "shm",
                                    "cma",
                                    "node-aware:binomial/" + level(),
                                    "scatter-ring-tuned",
                                    level("1K")};
  std::uint64_t seed = 500;
  for (int round = 0; round < 3; ++round) {
    for (const std::string& name : algorithms) {
      const std::uint64_t bytes = 1 + (seed * 7919) % 200000;
      EXPECT_EQ(wrong_bytes(comm, name, bytes, static_cast<int>(seed % procs), seed), 0u) << name;
      ++seed;
    }
  }
  const int mine = 4242 + rank;
  MPI_Send(&mine, 1, MPI_INT, (rank + 1) % procs, 77, comm);
  MPI_Status status;
  MPI_Wait(&request, &status);
  EXPECT_EQ(received, 4242 + (rank + procs - 1) % procs);
  EXPECT_EQ(status.MPI_TAG, 77);
  MPI_Comm_free(&comm);
}

// Derived datatypes: packed once at the root, piece by piece as segments need them, and
// unpacked into a strided layout at the receivers.
TEST_P(WithinNode, StridedDatatype) {
  const int rank = world_rank();
  MPI_Datatype every_other = MPI_DATATYPE_NULL;
  MPI_Type_vector(30000, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  std::vector<int> data(60000, -1);
  for (int i = 0; i < 30000; ++i) {
    if (rank == 1 % world_size()) data[2 * i] = i * 3 + 1;
  }
  ASSERT_EQ(LC_Bcast_with(data.data(), 1, every_other, 1 % world_size(), MPI_COMM_WORLD,
                          level("4K").c_str()),
            MPI_SUCCESS);
  int wrong = 0;
  for (int i = 0; i < 30000; ++i) wrong += data[2 * i] != i * 3 + 1 || data[2 * i + 1] != -1;
  EXPECT_EQ(wrong, 0);
  MPI_Type_free(&every_other);
}

// The same broadcast described by different types on different ranks (MPI allows it where
// the type signatures match): the root's ints run their copies at once (CopiesAtOnce,
// mpi/run/broadcast_run.hpp), the others' contiguous derived type takes the whole run.
// Both count the broadcast, so the message broadcasts after it still match their tags
// (broadcast_tag.hpp): a rank whose count fell behind would wait for another tag.
TEST_P(WithinNode, TypesThatDifferAmongRanksKeepTheBroadcastsInStep) {
  const int rank = world_rank();
  MPI_Datatype block = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(100, MPI_INT, &block);
  MPI_Type_commit(&block);
  std::uint64_t seed = 900;
  for (int round = 0; round < 5; ++round) {
    std::vector<int> data(100, -1);
    if (rank == 0) std::iota(data.begin(), data.end(), round * 1000);
    const int rc =
        rank == 0 ? LC_Bcast_with(data.data(), 100, MPI_INT, 0, MPI_COMM_WORLD, level().c_str())
                  : LC_Bcast_with(data.data(), 1, block, 0, MPI_COMM_WORLD, level().c_str());
    ASSERT_EQ(rc, MPI_SUCCESS);
    for (int i = 0; i < 100; ++i) ASSERT_EQ(data[i], round * 1000 + i) << "round " << round;
    EXPECT_EQ(wrong_bytes(MPI_COMM_WORLD, "binomial", 5000, round % world_size(), seed), 0u);
    EXPECT_EQ(wrong_bytes(MPI_COMM_WORLD, "pipeline-chain:1K", 7000, 0, seed + 1), 0u);
    seed += 2;
  }
  MPI_Type_free(&block);
}

// An erroneous program: the last rank expects 100 bytes more than the root sends, in one
// segment. It reads a segment of another broadcast's signature and length, returns an
// error that says so, and takes no byte; the others deliver; a correct broadcast follows.
// Under cma-split the root, which was to write into the last rank's buffer, sees the
// other signature too: it writes nothing there and returns the same error.
TEST_P(WithinNode, ARankThatDisagreesOnTheCountGetsAnError) {
  const int procs = world_size(), rank = world_rank();
  if (procs < 2) GTEST_SKIP() << "needs two ranks";
  MPI_Comm comm = dup_world_returning_errors();
  const std::uint64_t bytes = rank == procs - 1 ? 1100 : 1000;
  int rc = MPI_SUCCESS;
  std::uint64_t wrong = 0;
  // The message is the error code's string, or on stderr where the library cannot carry it
  // (MPICH 4.0 for this class).
  const std::string printed =
      capture_stderr([&] { wrong = wrong_bytes(comm, level(), bytes, 0, 31, &rc); });
  const bool root_writes_to_it = GetParam() == "cma-split" && procs <= 9;
  if (rank == procs - 1 || (rank == 0 && root_writes_to_it)) {
    int error_class = MPI_SUCCESS;
    MPI_Error_class(rc, &error_class);
    EXPECT_EQ(error_class, MPI_ERR_TRUNCATE);
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(rc, text, &length);
    const std::string message = std::string(text, length) + printed;
    EXPECT_NE(message.find("another broadcast"), std::string::npos) << message;
  } else {
    EXPECT_EQ(rc, MPI_SUCCESS);
    EXPECT_EQ(wrong, 0u);
  }
  EXPECT_EQ(wrong_bytes(comm, level(), 5000, procs - 1, 32), 0u);
  MPI_Comm_free(&comm);
}

INSTANTIATE_TEST_SUITE_P(Levels, WithinNode, ::testing::Values("shm", "cma", "cma-split"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// A rank that may not read or write the others' memory (LEANCAST_TEST_DENY_CMA=1 fails its
// test as a ptrace policy would) while the communicator's window is made: every rank runs
// cma and cma-split as shm from then on, and every broadcast delivers. A window made
// without the denial runs them.
TEST(Cma, ADeniedRankMakesEveryRankFallBackTogether) {
  const int procs = world_size(), rank = world_rank();
  if (procs < 2) GTEST_SKIP() << "needs two ranks";
  const std::uint64_t before = detail::cma_runs_as_shm();
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  if (rank == procs / 2) setenv("LEANCAST_TEST_DENY_CMA", "1", 1);
  for (int i = 0; i < 6; ++i) {
    const char* name = i % 2 == 0 ? "cma" : "cma-split";
    EXPECT_EQ(wrong_bytes(comm, name, 1000 + 70000 * i, i % procs, 900 + i), 0u) << name << i;
  }
  unsetenv("LEANCAST_TEST_DENY_CMA");
  EXPECT_EQ(detail::cma_runs_as_shm(), before + 6) << "rank " << rank;
  MPI_Comm_free(&comm);
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  EXPECT_EQ(wrong_bytes(comm, "cma", 300000, procs - 1, 950), 0u);
  EXPECT_EQ(wrong_bytes(comm, "cma-split", 300001, 0, 951), 0u);
  EXPECT_EQ(detail::cma_runs_as_shm(), before + 6) << "rank " << rank;
  MPI_Comm_free(&comm);
}

// The objects in /dev/shm whose names begin with `prefix` (their names without the '/').
std::vector<std::string> shm_objects(const std::string& prefix) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator("/dev/shm")) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0) names.push_back(name);
  }
  return names;
}

// Another process's object under the name the next window would take (a job killed before
// it unlinked its objects, of a process with rank 0's PID; LEANCAST_TEST_SHM_NAME makes
// that name the first tried): the window is made under another name and every broadcast
// delivers; the object is left as it was, and the window's own is unlinked once made.
TEST(ShmNames, AStaleObjectUnderTheNextNameIsLeftAlone) {
  const int procs = world_size(), rank = world_rank();
  const std::string stale = "/leancast-stale-" + std::to_string(getpid());
  const char marker[] = "someone else's";
  int fd = -1;
  if (rank == 0) {
    fd = shm_open(stale.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    ASSERT_GE(fd, 0) << stale << ": " << std::strerror(errno);
    ASSERT_EQ(write(fd, marker, sizeof marker), static_cast<ssize_t>(sizeof marker));
    setenv("LEANCAST_TEST_SHM_NAME", stale.c_str(), 1);
  }
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(wrong_bytes(comm, "shm", 1000 + 90000 * i, i % procs, 700 + i), 0u) << i;
  }
  if (rank == 0) {
    unsetenv("LEANCAST_TEST_SHM_NAME");
    struct stat status {};
    char seen[sizeof marker] = {};
    EXPECT_EQ(fstat(fd, &status), 0);
    EXPECT_EQ(status.st_size, static_cast<off_t>(sizeof marker));
    EXPECT_EQ(pread(fd, seen, sizeof seen, 0), static_cast<ssize_t>(sizeof seen));
    EXPECT_STREQ(seen, marker);
    close(fd);
    EXPECT_EQ(shm_objects(stale.substr(1)).size(), 1u);
    EXPECT_EQ(shm_unlink(stale.c_str()), 0);
    const std::vector<std::string> left = shm_objects("leancast-" + std::to_string(getpid()) + "-");
    EXPECT_TRUE(left.empty()) << left.front();
  }
  MPI_Comm_free(&comm);
}

}  // namespace
}  // namespace leancast::test
