// bcast_threads: a plain C++ MPI program that knows nothing of leancast. Under
// MPI_THREAD_MULTIPLE, several threads broadcast at the same time, each on its own
// duplicate of MPI_COMM_WORLD (their first broadcasts run concurrently too), with sizes
// and roots that change every iteration; every result is checked. Rank 0 prints how many
// broadcasts it made. Exits 77 (skipped) if the MPI library does not provide
// MPI_THREAD_MULTIPLE.
#include <mpi.h>

#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>

namespace {

constexpr int kThreads = 3;
constexpr int kIterations = 24;
constexpr long kSizes[] = {100, 20000, 300000};

unsigned char pattern(long seed, long i) {
  return static_cast<unsigned char>(seed * 17 + i * 5 + 3);
}

// Returns the number of wrong broadcasts.
int broadcast_loop(MPI_Comm comm, int thread) {
  int rank = 0, procs = 0, wrong = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &procs);
  for (int i = 0; i < kIterations; ++i) {
    const long bytes = kSizes[(i + thread) % 3];
    const int root = (i + thread) % procs;
    const long seed = thread * 1000 + i;
    std::vector<unsigned char> buf(bytes);
    for (long j = 0; j < bytes; ++j) buf[j] = rank == root ? pattern(seed, j) : 0;
    bool ok = MPI_Bcast(buf.data(), static_cast<int>(bytes), MPI_BYTE, root, comm) == MPI_SUCCESS;
    for (long j = 0; ok && j < bytes; ++j) ok = buf[j] == pattern(seed, j);
    if (!ok) {
      std::fprintf(stderr, "rank %d thread %d: FAILED iteration %d (%ld bytes)\n", rank, thread, i,
                   bytes);
      ++wrong;
    }
  }
  return wrong;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (provided < MPI_THREAD_MULTIPLE) {
    if (rank == 0) std::printf("SKIP: the MPI library provides thread level %d only\n", provided);
    MPI_Finalize();
    return 77;
  }
  std::vector<MPI_Comm> comms(kThreads);
  for (MPI_Comm& comm : comms) MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] { failures += broadcast_loop(comms[t], t); });
  }
  for (std::thread& thread : threads) thread.join();
  for (MPI_Comm& comm : comms) MPI_Comm_free(&comm);
  int mine = failures.load(), any = 0;
  MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("bcast_threads: rank 0 made %d valid broadcasts, 0 on intercommunicators; %s\n",
                kThreads * kIterations, any ? "FAILED" : "all data correct");
  }
  MPI_Finalize();
  return any ? 1 : 0;
}
