// online_file_job: a job for online_file_test.py. Broadcasts each of the given sizes CALLS
// times on MPI_COMM_WORLD with leancast's default choice (auto: LEANCAST_TUNE and
// LEANCAST_TUNE_FILE decide), the sizes round by round and the root the last rank, and checks
// every byte on every rank. Then rank 0 prints, per size, what every rank's
// leancast::tuned_algorithm says ("tuned BYTES: NAME", "untuned" while not tuned by this job)
// after checking that all ranks say the same, and "made N broadcasts; all data correct".
// Usage: online_file_job CALLS BYTES... (exit 1 on wrong data or ranks that disagree)
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <leancast/leancast.hpp>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, procs = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &procs);
  const int calls = argc > 1 ? std::atoi(argv[1]) : 0;
  std::vector<long> sizes;
  for (int i = 2; i < argc; ++i) sizes.push_back(std::atol(argv[i]));
  const int root = procs - 1;
  long wrong = 0;
  int made = 0;
  for (int call = 0; call < calls; ++call) {
    for (long bytes : sizes) {
      std::vector<unsigned char> buf(static_cast<std::size_t>(bytes));
      for (long i = 0; i < bytes; ++i) {
        const auto value = static_cast<unsigned char>(i * 7 + call * 13 + bytes);
        buf[i] = rank == root ? value : static_cast<unsigned char>(~value);
      }
      if (leancast::bcast(buf.data(), static_cast<int>(bytes), MPI_BYTE, root, MPI_COMM_WORLD) !=
          MPI_SUCCESS) {
        ++wrong;
      }
      for (long i = 0; i < bytes; ++i) {
        wrong += buf[i] != static_cast<unsigned char>(i * 7 + call * 13 + bytes);
      }
      ++made;
    }
  }
  int disagree = 0;
  for (long bytes : sizes) {
    const auto tuned = leancast::tuned_algorithm(MPI_COMM_WORLD, static_cast<std::uint64_t>(bytes));
    char mine[128] = {};
    std::snprintf(mine, sizeof mine, "%s", tuned ? leancast::to_string(*tuned).c_str() : "untuned");
    std::vector<char> every(sizeof mine * static_cast<std::size_t>(procs));
    MPI_Gather(mine, sizeof mine, MPI_CHAR, every.data(), sizeof mine, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank != 0) continue;
    for (int r = 1; r < procs; ++r) {
      if (std::strcmp(&every[r * sizeof mine], mine) != 0) {
        std::printf("WRONG: rank %d tuned %ld bytes to %s, rank 0 to %s\n", r, bytes,
                    &every[r * sizeof mine], mine);
        disagree = 1;
      }
    }
    std::printf("tuned %ld: %s\n", bytes, mine);
  }
  long all_wrong = 0;
  MPI_Allreduce(&wrong, &all_wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("made %d broadcasts; %s\n", made,
                all_wrong == 0 ? "all data correct" : "WRONG data");
    std::fflush(stdout);
  }
  MPI_Finalize();
  return all_wrong == 0 && disagree == 0 ? 0 : 1;
}
