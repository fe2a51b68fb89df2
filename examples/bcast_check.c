/* bcast_check: broadcasts with each named algorithm ("mpi": the MPI library's own
 * broadcast; "-": LC_Bcast, whose algorithm the LEANCAST_* settings choose) twice, checks
 * every byte on every rank both times, and prints one line per algorithm with the second
 * (warm) call's time: the first may make leancast's shared memory, which later calls reuse.
 * Knows leancast only through <leancast/leancast.h>; build it with
 *   mpicc bcast_check.c $(pkg-config --cflags --libs leancast)
 * Usage: mpiexec -n P ./bcast_check BYTES [ALGORITHM ...]   (exit 1 if any check fails) */
#include <leancast/leancast.h>
#include <stdio.h>
#include <stdlib.h>

static const char* default_algorithms[] = {
    "linear",       "binomial",           "hypercube", "scatter-doubling",
    "scatter-ring", "scatter-ring-tuned", "auto",      "mpi"};

static unsigned char pattern(long i, int salt) { return (unsigned char)(i * 7 + salt * 13 + 1); }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long bytes = argc > 1 ? atol(argv[1]) : 1 << 20;
  const int count =
      argc > 2 ? argc - 2 : (int)(sizeof default_algorithms / sizeof *default_algorithms);
  const char** names = argc > 2 ? (const char**)argv + 2 : default_algorithms;
  unsigned char* buf = malloc(bytes > 0 ? (size_t)bytes : 1);
  int all_ok = 1;
  if (rank == 0) printf("%-20s %10s %6s %12s\n", "algorithm", "bytes", "data", "warm call s");
  for (int a = 0; a < count; ++a) {
    const int root = size - 1;
    double seconds = 0;
    int ok = 1;
    for (int call = 0; call < 2; ++call) {
      const int salt = 2 * a + call;
      for (long i = 0; i < bytes; ++i) buf[i] = rank == root ? pattern(i, salt) : 0;
      MPI_Barrier(MPI_COMM_WORLD);
      const double start = MPI_Wtime();
      const int rc = names[a][0] == '-' && names[a][1] == '\0'
                         ? LC_Bcast(buf, (int)bytes, MPI_BYTE, root, MPI_COMM_WORLD)
                         : LC_Bcast_with(buf, (int)bytes, MPI_BYTE, root, MPI_COMM_WORLD, names[a]);
      seconds = MPI_Wtime() - start;
      ok = ok && rc == MPI_SUCCESS;
      for (long i = 0; ok && i < bytes; ++i) ok = buf[i] == pattern(i, salt);
    }
    int every_ok = 0;
    double slowest = 0;
    MPI_Allreduce(&ok, &every_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
      printf("%-20s %10ld %6s %12.6f\n", names[a], bytes, every_ok ? "ok" : "WRONG", slowest);
    all_ok = all_ok && every_ok;
  }
  free(buf);
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
