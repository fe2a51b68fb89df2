// shm_killed DIR MODE: a job whose last rank kills itself (SIGKILL) while the others are in
// a shm broadcast, for tests/support/shm_killed.sh, which then looks in /dev/shm for objects
// of the job's processes. Every rank writes its PID to DIR/pid.RANK first; the first window
// is made (slots of 4 KiB) and used; then MODE says where the last rank dies:
//   growing  before the broadcast whose larger slots grow the window, which the others have
//            entered (the object would be made for a rank that never comes)
//   during   inside a broadcast through the existing window (LC_Ibcast_with, tested once)
// The last rank writes DIR/dying just before it dies. Rank 0 must stay alive: it makes the
// objects, and it is the one whose leftovers the test is about.
#include <mpi.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <leancast/leancast.h>

namespace {

void write_file(const std::string& path, long value) {
  if (FILE* file = std::fopen(path.c_str(), "w")) {
    std::fprintf(file, "%ld\n", value);
    std::fclose(file);
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 3 || size < 2) {
    if (rank == 0) std::fprintf(stderr, "usage: shm_killed DIR growing|during (2 ranks or more)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const std::string dir = argv[1], mode = argv[2];
  write_file(dir + "/pid." + std::to_string(rank), static_cast<long>(getpid()));
  MPI_Barrier(MPI_COMM_WORLD);
  std::vector<unsigned char> buf(1 << 20, 0);
  for (int i = 0; i < 10; ++i) {
    if (LC_Bcast_with(buf.data(), 4000, MPI_BYTE, i % size, MPI_COMM_WORLD, "shm") != MPI_SUCCESS) {
      std::fprintf(stderr, "rank %d: shm broadcast %d failed\n", rank, i);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
  }
  const bool victim = rank == size - 1;
  if (victim && mode == "growing") {
    write_file(dir + "/dying", static_cast<long>(getpid()));
    raise(SIGKILL);
  }
  if (victim && mode == "during") {
    MPI_Request request = MPI_REQUEST_NULL;
    LC_Ibcast_with(buf.data(), 1 << 20, MPI_BYTE, 0, MPI_COMM_WORLD, "shm:4K", &request);
    int done = 0;
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    write_file(dir + "/dying", static_cast<long>(getpid()));
    raise(SIGKILL);
  }
  // growing: 64 KiB slots, a new window; during: the 4 KiB slots of the one there.
  const char* name = mode == "growing" ? "shm:64K" : "shm:4K";
  LC_Bcast_with(buf.data(), 1 << 20, MPI_BYTE, 0, MPI_COMM_WORLD, name);
  std::fprintf(stderr, "rank %d: the broadcast returned though the last rank was killed\n", rank);
  MPI_Finalize();
  return 1;
}
