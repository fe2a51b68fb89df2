/* A plain MPI program (built against MPI only): MPI_Ibcast of 16383 and of 16384 bytes,
 * either side of the size from which auto runs its own choice for a nonblocking broadcast
 * (below it the library's MPI_Ibcast: docs/nonblocking.md), each from every root and
 * completed by MPI_Wait, every byte checked on every rank. The interposer's log says what
 * each size ran; run_preloaded.py checks those lines.
 * --thread-multiple initializes MPI with MPI_THREAD_MULTIPLE (under MPICH auto runs
 * leancast for nonblocking broadcasts only there). A blocking broadcast first, as a program's
 * first broadcast often is: it makes leancast's private communicator, without which a
 * nonblocking broadcast is the library's.
 *   ibcast_boundary [--thread-multiple] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char value(int seed, long i) { return (unsigned char)(seed * 29 + i * 5 + 3); }

int main(int argc, char** argv) {
  const int threads = argc > 1 && strcmp(argv[1], "--thread-multiple") == 0;
  int provided = MPI_THREAD_SINGLE, rank = 0, size = 0, failures = 0, made = 0;
  MPI_Init_thread(&argc, &argv, threads ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long sizes[] = {16383, 16384};
  unsigned char* buf = malloc(16384);
  int word = rank;
  MPI_Bcast(&word, 1, MPI_INT, 0, MPI_COMM_WORLD);
  ++made;
  if (word != 0) ++failures;
  for (int s = 0; s < 2; ++s) {
    for (int root = 0; root < size; ++root) {
      const long bytes = sizes[s];
      const int seed = 10 * s + root;
      for (long i = 0; i < bytes; ++i) buf[i] = rank == root ? value(seed, i) : 0;
      MPI_Request request;
      MPI_Ibcast(buf, (int)bytes, MPI_BYTE, root, MPI_COMM_WORLD, &request);
      MPI_Wait(&request, MPI_STATUS_IGNORE);
      ++made;
      long wrong = 0;
      for (long i = 0; i < bytes; ++i) wrong += buf[i] != value(seed, i);
      if (wrong) {
        fprintf(stderr, "rank %d: FAILED %ld bytes from root %d: %ld wrong bytes\n", rank, bytes,
                root, wrong);
        ++failures;
      }
    }
  }
  int any = 0;
  MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("ibcast_boundary: rank 0 made %d valid broadcasts, 0 on intercommunicators; %s\n", made,
           any ? "FAILED" : "all data correct");
  }
  free(buf);
  MPI_Finalize();
  return any ? 1 : 0;
}
