// Nonblocking and persistent broadcasts (src/mpi/nonblocking.hpp): every algorithm through
// LC_Ibcast; several outstanding on one communicator and on two, mixed with blocking ones
// and with user point-to-point requests in the same completion calls (Waitall, Waitany,
// Testsome, Test loops); persistent broadcasts started 1000 times with new data each
// time, alone and with MPI_Startall; misuse (free, cancel or start an active request) as
// MPI_ERR_REQUEST; bad arguments; a root that makes a blocking call on files or windows
// with its broadcast outstanding; and, with LEANCAST_PROGRESS_THREAD=1, a root that computes
// without calling MPI while the others finish.
#include <gtest/gtest.h>
#include <leancast/leancast.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "test_support.hpp"

namespace leancast::test {
namespace {

// One broadcast's buffer: the root fills it with the pattern of `seed`, the others with
// another value; wrong() counts the bytes that differ from the pattern after completion.
struct Buffer {
  Buffer(MPI_Comm comm, std::uint64_t bytes, int root, std::uint64_t seed)
      : bytes(bytes), seed(seed), data(bytes + 1, 0xEE) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank == root) fill();
  }
  void fill() {
    for (std::uint64_t i = 0; i < bytes; ++i) data[i] = pattern(seed, i);
  }
  std::uint64_t wrong() const {
    std::uint64_t n = data[bytes] != 0xEE ? 1 : 0;
    for (std::uint64_t i = 0; i < bytes; ++i) n += data[i] != pattern(seed, i);
    return n;
  }
  int count() const { return static_cast<int>(bytes); }
  std::uint64_t bytes;
  std::uint64_t seed;
  std::vector<unsigned char> data;
};

TEST(Nonblocking, EveryAlgorithmDeliversEveryByte) {
  const int procs = world_size();
  std::uint64_t seed = 1;
  for (const std::string& name : algorithm_names_under_test()) {
    for (std::uint64_t bytes :
         {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{4099}, std::uint64_t{300000}}) {
      for (int root : roots_under_test(procs)) {
        Buffer buf(MPI_COMM_WORLD, bytes, root, ++seed);
        MPI_Request request = MPI_REQUEST_NULL;
        ASSERT_EQ(LC_Ibcast_with(buf.data.data(), buf.count(), MPI_BYTE, root, MPI_COMM_WORLD,
                                 name.c_str(), &request),
                  MPI_SUCCESS)
            << name;
        ASSERT_EQ(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS) << name;
        EXPECT_EQ(request, MPI_REQUEST_NULL);
        EXPECT_EQ(buf.wrong(), 0u)
            << name << " bytes=" << bytes << " root=" << root << " rank=" << world_rank();
      }
    }
  }
}

// Six nonblocking broadcasts on one communicator and two on another, started in one order
// on every rank, two blocking ones in between, a user message (MPI_ANY_SOURCE, MPI_ANY_TAG)
// in the same Waitall, completed in another order than they were started.
TEST(Nonblocking, SeveralOutstandingMixedWithBlocking) {
  const int procs = world_size();
  const int rank = world_rank();
  MPI_Comm other = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &other);
  const std::vector<std::string> names{
      "scatter-ring-tuned", "pipeline-chain:8K", "cma-split:16K", "shm:4K", "auto", "two-tree"};
  for (int round = 0; round < 3; ++round) {
    std::vector<std::unique_ptr<Buffer>> buffers;
    std::vector<MPI_Request> requests;
    const auto start = [&](MPI_Comm comm, const std::string& name, std::uint64_t bytes, int root) {
      buffers.push_back(std::make_unique<Buffer>(comm, bytes, root, 100 * round + buffers.size()));
      requests.push_back(MPI_REQUEST_NULL);
      ASSERT_EQ(LC_Ibcast_with(buffers.back()->data.data(), buffers.back()->count(), MPI_BYTE, root,
                               comm, name.c_str(), &requests.back()),
                MPI_SUCCESS)
          << name;
    };
    for (std::size_t i = 0; i < names.size(); ++i) {
      start(MPI_COMM_WORLD, names[i], 1000 + 37000 * i, static_cast<int>(i) % procs);
      if (i == 1) start(other, "scatter-ring", 200000, procs - 1);
      if (i == 3) {
        // A blocking broadcast on the same communicator: after the four before it.
        Buffer blocking(MPI_COMM_WORLD, 50000, 0, 999 + round);
        ASSERT_EQ(LC_Bcast_with(blocking.data.data(), blocking.count(), MPI_BYTE, 0, MPI_COMM_WORLD,
                                "scatter-ring-tuned"),
                  MPI_SUCCESS);
        EXPECT_EQ(blocking.wrong(), 0u) << "blocking, rank " << rank;
        start(other, "knomial:3", 70000, 0);
      }
    }
    // A user message around the ring, in the same completion calls.
    int sent = rank, got = -1;
    MPI_Request user[2];
    MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &user[0]);
    MPI_Isend(&sent, 1, MPI_INT, (rank + 1) % procs, 7, MPI_COMM_WORLD, &user[1]);
    // The last two by Waitany, then a Testsome loop over four, then Waitall with the user's.
    ASSERT_EQ(requests.size(), 8u);
    for (int k = 0; k < 2; ++k) {
      int index = MPI_UNDEFINED;
      ASSERT_EQ(MPI_Waitany(2, &requests[requests.size() - 2], &index, MPI_STATUS_IGNORE),
                MPI_SUCCESS);
      ASSERT_NE(index, MPI_UNDEFINED);
    }
    for (int left = 4; left > 0;) {
      int outcount = 0;
      int indices[4];
      MPI_Status statuses[4];
      ASSERT_EQ(MPI_Testsome(4, &requests[2], &outcount, indices, statuses), MPI_SUCCESS);
      if (outcount != MPI_UNDEFINED) left -= outcount;
    }
    std::vector<MPI_Request> rest{requests[0], requests[1], user[0], user[1]};
    std::vector<MPI_Status> statuses(rest.size());
    ASSERT_EQ(MPI_Waitall(static_cast<int>(rest.size()), rest.data(), statuses.data()),
              MPI_SUCCESS);
    for (MPI_Request r : rest) EXPECT_EQ(r, MPI_REQUEST_NULL);
    EXPECT_EQ(got, (rank + procs - 1) % procs);
    for (std::size_t i = 0; i < buffers.size(); ++i) {
      EXPECT_EQ(buffers[i]->wrong(), 0u) << "broadcast " << i << " rank " << rank;
    }
  }
  MPI_Comm_free(&other);
}

// The root polls with MPI_Test while computing; the others wait.
TEST(Nonblocking, TestLoopCompletes) {
  const int procs = world_size();
  for (int root : roots_under_test(procs)) {
    Buffer buf(MPI_COMM_WORLD, 1 << 20, root, 77 + root);
    MPI_Request request = MPI_REQUEST_NULL;
    ASSERT_EQ(LC_Ibcast_with(buf.data.data(), buf.count(), MPI_BYTE, root, MPI_COMM_WORLD,
                             "pipeline-chain:16K", &request),
              MPI_SUCCESS);
    int flag = 0;
    while (!flag) ASSERT_EQ(MPI_Test(&request, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
    EXPECT_EQ(request, MPI_REQUEST_NULL);
    EXPECT_EQ(buf.wrong(), 0u);
  }
}

TEST(Persistent, ThousandStartsDeliverEachStartsData) {
  const int procs = world_size();
  const int rank = world_rank();
  for (const char* name : {"", "scatter-ring-tuned", "pipeline-chain:1K", "shm:1K", "mpi"}) {
    const int root = procs - 1;
    Buffer buf(MPI_COMM_WORLD, 3000, root, 0);
    MPI_Info info = MPI_INFO_NULL;
    if (*name != '\0') {
      MPI_Info_create(&info);
      MPI_Info_set(info, "leancast_bcast_algorithm", name);
    }
    LC_Persistent persistent = LC_PERSISTENT_NULL;
    ASSERT_EQ(LC_Bcast_init(buf.data.data(), buf.count(), MPI_BYTE, root, MPI_COMM_WORLD, info,
                            &persistent),
              MPI_SUCCESS)
        << name;
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
    ASSERT_NE(persistent, LC_PERSISTENT_NULL);
    std::uint64_t wrong = 0;
    for (int start = 1; start <= 1000; ++start) {
      buf.seed = start;
      if (rank == root) buf.fill();
      MPI_Request request = MPI_REQUEST_NULL;
      ASSERT_EQ(LC_Start(persistent, &request), MPI_SUCCESS) << name;
      ASSERT_EQ(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS) << name;
      ASSERT_EQ(request, MPI_REQUEST_NULL);
      wrong += buf.wrong();
    }
    EXPECT_EQ(wrong, 0u) << name << " rank " << rank;
    ASSERT_EQ(LC_Persistent_free(&persistent), MPI_SUCCESS);
    EXPECT_EQ(persistent, LC_PERSISTENT_NULL);
  }
}

// Two persistent broadcasts with different roots, started together and completed with
// MPI_Waitall (and once MPI_Testall), 50 times.
TEST(Persistent, StartallTwo) {
  const int procs = world_size();
  const int rank = world_rank();
  Buffer a(MPI_COMM_WORLD, 100000, 0, 0), b(MPI_COMM_WORLD, 7000, procs / 2, 0);
  LC_Persistent persistents[2];
  MPI_Request requests[2];
  ASSERT_EQ(LC_Bcast_init(a.data.data(), a.count(), MPI_BYTE, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                          &persistents[0]),
            MPI_SUCCESS);
  ASSERT_EQ(LC_Bcast_init(b.data.data(), b.count(), MPI_BYTE, procs / 2, MPI_COMM_WORLD,
                          MPI_INFO_NULL, &persistents[1]),
            MPI_SUCCESS);
  for (int start = 1; start <= 50; ++start) {
    a.seed = start;
    b.seed = 1000 + start;
    if (rank == 0) a.fill();
    if (rank == procs / 2) b.fill();
    ASSERT_EQ(LC_Startall(2, persistents, requests), MPI_SUCCESS);
    if (start % 2 == 0) {
      ASSERT_EQ(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    } else {
      for (int flag = 0; !flag;) {
        ASSERT_EQ(MPI_Testall(2, requests, &flag, MPI_STATUSES_IGNORE), MPI_SUCCESS);
      }
    }
    EXPECT_EQ(a.wrong() + b.wrong(), 0u) << "start " << start << " rank " << rank;
  }
  for (LC_Persistent& p : persistents) ASSERT_EQ(LC_Persistent_free(&p), MPI_SUCCESS);
}

// MPI lets a derived datatype be freed while a nonblocking or persistent broadcast uses it:
// the type of every other int, freed right after LC_Ibcast, and after LC_Bcast_init before
// the starts (leancast packed with the user's handle, freed by then, before hold_type).
TEST(Persistent, DatatypeFreedBeforeTheStarts) {
  const int rank = world_rank();
  const int root = world_size() - 1;
  constexpr int kInts = 5000;
  const auto strided = [] {
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_Type_vector(kInts, 1, 2, MPI_INT, &type);
    MPI_Type_commit(&type);
    return type;
  };
  for (const char* name : {"", "shm:4K", "binomial"}) {
    MPI_Info info = MPI_INFO_NULL;
    if (*name != '\0') {
      MPI_Info_create(&info);
      MPI_Info_set(info, "leancast_bcast_algorithm", name);
    }
    std::vector<int> data(2 * kInts);
    const auto fill = [&](int seed) {
      for (int i = 0; i < 2 * kInts; ++i) data[i] = rank == root || i % 2 ? seed * 7 + i : -1;
    };
    const auto wrong = [&](int seed) {
      int bad = 0;
      for (int i = 0; i < 2 * kInts; ++i) bad += data[i] != seed * 7 + i;
      return bad;
    };
    fill(1);
    MPI_Datatype type = strided();
    MPI_Request request = MPI_REQUEST_NULL;
    ASSERT_EQ(*name != '\0'
                  ? LC_Ibcast_with(data.data(), 1, type, root, MPI_COMM_WORLD, name, &request)
                  : LC_Ibcast(data.data(), 1, type, root, MPI_COMM_WORLD, &request),
              MPI_SUCCESS);
    MPI_Type_free(&type);
    ASSERT_EQ(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS) << name;
    EXPECT_EQ(wrong(1), 0) << name;
    type = strided();
    LC_Persistent persistent = LC_PERSISTENT_NULL;
    ASSERT_EQ(LC_Bcast_init(data.data(), 1, type, root, MPI_COMM_WORLD, info, &persistent),
              MPI_SUCCESS);
    MPI_Type_free(&type);
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
    for (int start = 2; start <= 4; ++start) {
      fill(start);
      ASSERT_EQ(LC_Start(persistent, &request), MPI_SUCCESS) << name;
      ASSERT_EQ(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS) << name;
      EXPECT_EQ(wrong(start), 0) << name << " start " << start;
    }
    ASSERT_EQ(LC_Persistent_free(&persistent), MPI_SUCCESS);
  }
}

int error_class(int code) {
  int cls = MPI_SUCCESS;
  MPI_Error_class(code, &cls);
  return cls;
}

// A persistent broadcast of leancast's cannot be started again or freed while its last
// start's request is not complete.
TEST(Misuse, ActivePersistentCannotBeFreedOrRestarted) {
  if (world_size() == 1) GTEST_SKIP() << "one rank: the library's own request";
  MPI_Comm comm = dup_world_returning_errors();
  Buffer buf(comm, 100000, 0, 5);
  LC_Persistent persistent = LC_PERSISTENT_NULL;
  MPI_Info info = MPI_INFO_NULL;
  MPI_Info_create(&info);
  MPI_Info_set(info, "leancast_bcast_algorithm", "binomial");
  ASSERT_EQ(LC_Bcast_init(buf.data.data(), buf.count(), MPI_BYTE, 0, comm, info, &persistent),
            MPI_SUCCESS);
  MPI_Info_free(&info);
  MPI_Request request = MPI_REQUEST_NULL, again = MPI_REQUEST_NULL;
  ASSERT_EQ(LC_Start(persistent, &request), MPI_SUCCESS);
  EXPECT_EQ(error_class(LC_Start(persistent, &again)), MPI_ERR_REQUEST);
  EXPECT_EQ(again, MPI_REQUEST_NULL);
  EXPECT_EQ(error_class(LC_Persistent_free(&persistent)), MPI_ERR_REQUEST);
  EXPECT_NE(persistent, LC_PERSISTENT_NULL);
  ASSERT_EQ(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
  EXPECT_EQ(buf.wrong(), 0u);
  EXPECT_EQ(LC_Persistent_free(&persistent), MPI_SUCCESS);
  EXPECT_EQ(persistent, LC_PERSISTENT_NULL);
  // The communicator still works.
  Buffer after(comm, 5000, 0, 6);
  EXPECT_EQ(LC_Bcast(after.data.data(), after.count(), MPI_BYTE, 0, comm), MPI_SUCCESS);
  EXPECT_EQ(after.wrong(), 0u);
  MPI_Comm_free(&comm);
}

TEST(Misuse, BadArgumentsLeaveNoRequest) {
  MPI_Comm comm = dup_world_returning_errors();
  char byte = 0;
  MPI_Request request = MPI_REQUEST_NULL;
  EXPECT_EQ(error_class(LC_Ibcast(&byte, -1, MPI_BYTE, 0, comm, &request)), MPI_ERR_COUNT);
  EXPECT_EQ(request, MPI_REQUEST_NULL);
  EXPECT_EQ(error_class(LC_Ibcast(&byte, 1, MPI_BYTE, world_size(), comm, &request)), MPI_ERR_ROOT);
  EXPECT_EQ(request, MPI_REQUEST_NULL);
  EXPECT_EQ(error_class(LC_Ibcast_with(&byte, 1, MPI_BYTE, 0, comm, "no-such", &request)),
            MPI_ERR_ARG);
  MPI_Info info = MPI_INFO_NULL;
  MPI_Info_create(&info);
  MPI_Info_set(info, "leancast_bcast_algorithm", "knomial:1");
  LC_Persistent persistent = LC_PERSISTENT_NULL;
  EXPECT_EQ(error_class(LC_Bcast_init(&byte, 1, MPI_BYTE, 0, comm, info, &persistent)),
            MPI_ERR_ARG);
  EXPECT_EQ(persistent, LC_PERSISTENT_NULL);
  MPI_Info_free(&info);
  MPI_Comm_free(&comm);
}

// A rank that expects more bytes than the root sends (a leaf of binomial: the last rank)
// gets MPI_ERR_TRUNCATE when its request completes, raised on the communicator; the others
// succeed, and the communicator's next broadcast is right. (MPI_Wait returns the error where
// MPI_COMM_WORLD's errors return too: the library raises a generalized request's there.)
TEST(Misuse, DisagreeingCountIsAnErrorAtCompletion) {
  const int procs = world_size();
  if (procs < 2) GTEST_SKIP();
  const int rank = world_rank();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm comm = dup_world_returning_errors();
  const int bytes = rank == procs - 1 ? 5000 : 4000;
  Buffer buf(comm, bytes, 0, 9);
  MPI_Request request = MPI_REQUEST_NULL;
  ASSERT_EQ(LC_Ibcast_with(buf.data.data(), bytes, MPI_BYTE, 0, comm, "binomial", &request),
            MPI_SUCCESS);
  const int rc = MPI_Wait(&request, MPI_STATUS_IGNORE);
  EXPECT_EQ(request, MPI_REQUEST_NULL);
  if (rank == procs - 1) {
    EXPECT_EQ(error_class(rc), MPI_ERR_TRUNCATE);
  } else {
    EXPECT_EQ(rc, MPI_SUCCESS);
    EXPECT_EQ(buf.wrong(), 0u);
  }
  Buffer after(comm, 3000, 0, 10);
  ASSERT_EQ(
      LC_Ibcast_with(after.data.data(), after.count(), MPI_BYTE, 0, comm, "binomial", &request),
      MPI_SUCCESS);
  EXPECT_EQ(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
  EXPECT_EQ(after.wrong(), 0u);
  MPI_Comm_free(&comm);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

// With LEANCAST_PROGRESS_THREAD=1: the root starts an 8 MiB broadcast and then computes
// without calling MPI until the last rank says (through a file) that it has the data.
// Without a thread the root's later segments would never be sent. Under
// MPI_THREAD_MULTIPLE a pipeline; below it shm through a window a blocking broadcast made
// (the thread there only copies).
TEST(ProgressThread, RootComputesWhileOthersComplete) {
  const char* setting = std::getenv("LEANCAST_PROGRESS_THREAD");
  if (setting == nullptr || std::string(setting) != "1") GTEST_SKIP() << "needs the thread";
  const int procs = world_size();
  if (procs < 2) GTEST_SKIP();
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  const char* algorithm = provided == MPI_THREAD_MULTIPLE ? "pipeline-chain:64K" : "shm:64K";
  const int rank = world_rank();
  long id = rank == 0 ? static_cast<long>(getpid()) : 0;
  MPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  const std::string marker = "/tmp/leancast-progress-" + std::to_string(id);
  Buffer buf(MPI_COMM_WORLD, 8 << 20, 0, 31);
  ASSERT_EQ(LC_Bcast_with(buf.data.data(), buf.count(), MPI_BYTE, 0, MPI_COMM_WORLD, algorithm),
            MPI_SUCCESS);
  MPI_Request request = MPI_REQUEST_NULL;
  ASSERT_EQ(LC_Ibcast_with(buf.data.data(), buf.count(), MPI_BYTE, 0, MPI_COMM_WORLD, algorithm,
                           &request),
            MPI_SUCCESS);
  bool seen = true;
  if (rank == 0) {
    seen = false;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!seen && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));  // "computing"
      seen = std::ifstream(marker).good();
    }
  }
  ASSERT_EQ(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
  if (rank == procs - 1) std::ofstream(marker) << "done\n";
  EXPECT_TRUE(seen) << "the last rank did not finish while the root computed";
  EXPECT_EQ(buf.wrong(), 0u);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) std::remove(marker.c_str());
}

// The root starts an shm broadcast (its copies happen only in later steps) and then makes a
// blocking collective call on files, windows or intercommunicators, or a PMPI_Barrier (as
// Open MPI's Fortran bindings call it, past leancast), which waits for the others, who
// first wait for the broadcast: the root's copies must happen inside that call (Open MPI's
// progress engine at every thread level; under MPICH the progress thread at
// MPI_THREAD_MULTIPLE). Under MPICH below MPI_THREAD_MULTIPLE nothing steps there
// (docs/nonblocking.md#progress).
TEST(BlockedInLibrary, CallsThatBlockStepTheBroadcasts) {
  const int procs = world_size();
  if (procs < 2) GTEST_SKIP() << "one rank waits for no other";
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(version, &length);
  const bool mpich = std::string(version).find("MPICH") != std::string::npos;
  if (provided != MPI_THREAD_MULTIPLE && mpich) {
    GTEST_SKIP() << "MPICH below MPI_THREAD_MULTIPLE steps nothing inside its calls";
  }
  const int rank = world_rank();
  long id = rank == 0 ? static_cast<long>(getpid()) : 0;
  MPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  const std::string path = "/tmp/leancast-blocked-" + std::to_string(id);
  std::vector<std::pair<const char*, std::function<void()>>> calls = {
      {"MPI_File_open",
       [&] {
         MPI_File file;
         ASSERT_EQ(MPI_File_open(MPI_COMM_WORLD, path.c_str(),
                                 MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_DELETE_ON_CLOSE,
                                 MPI_INFO_NULL, &file),
                   MPI_SUCCESS);
         ASSERT_EQ(MPI_File_close(&file), MPI_SUCCESS);
       }},
      // (MPI_Win_allocate: Open MPI 4.1 makes no MPI_Win_create window with vader's single
      // copy off, as the tests run it.)
      {"MPI_Win_allocate",
       [&] {
         int* cell = nullptr;
         MPI_Win win;
         ASSERT_EQ(MPI_Win_allocate(sizeof *cell, sizeof *cell, MPI_INFO_NULL, MPI_COMM_WORLD,
                                    &cell, &win),
                   MPI_SUCCESS);
         ASSERT_EQ(MPI_Win_free(&win), MPI_SUCCESS);
       }},
  };
  // Two halves of the ranks (even, odd), for an intercommunicator between them.
  MPI_Comm half = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  const char* thread = std::getenv("LEANCAST_PROGRESS_THREAD");
  if (!mpich || (thread != nullptr && std::string(thread) == "1")) {
    calls.emplace_back("PMPI_Barrier",
                       [] { ASSERT_EQ(PMPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS); });
  }
  calls.emplace_back("MPI_Intercomm_create", [&] {
    MPI_Comm inter = MPI_COMM_NULL;
    ASSERT_EQ(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 7, &inter),
              MPI_SUCCESS);
    ASSERT_EQ(MPI_Comm_free(&inter), MPI_SUCCESS);
  });
  std::uint64_t seed = 40;
  for (const auto& [name, call] : calls) {
    Buffer buf(MPI_COMM_WORLD, 1 << 20, 0, ++seed);
    MPI_Request request = MPI_REQUEST_NULL;
    ASSERT_EQ(LC_Ibcast_with(buf.data.data(), buf.count(), MPI_BYTE, 0, MPI_COMM_WORLD, "shm:64K",
                             &request),
              MPI_SUCCESS);
    if (rank == 0) call();
    ASSERT_EQ(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS) << name;
    if (rank != 0) call();
    EXPECT_EQ(buf.wrong(), 0u) << name;
  }
  MPI_Comm_free(&half);
}

}  // namespace
}  // namespace leancast::test
