/* A rank that blocks in a collective while its nonblocking broadcast is outstanding and the
 * other ranks wait for that broadcast before they enter the collective (correct MPI: a
 * nonblocking broadcast progresses while its rank is inside any MPI call). After a blocking
 * broadcast of the same size made the communicator's shared window, auto runs MPI_Ibcast
 * through it; under MPICH below MPI_THREAD_MULTIPLE only leancast's helper thread, which
 * calls no MPI, can do the root's copies while it is inside MPI_Barrier
 * (docs/nonblocking.md#progress). One and two broadcasts outstanding, every root, 64 KiB
 * and 1 MiB; first one MPI_Ibcast before any window (MPICH's there).
 *   blocked_copies */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned char value(int seed, int i) { return (unsigned char)(seed * 31 + i * 7); }

static void fill(unsigned char* buf, int n, int seed, int root, int rank) {
  for (int i = 0; i < n; ++i) buf[i] = rank == root ? value(seed, i) : 0;
}

static int wrong(const unsigned char* buf, int n, int seed) {
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += buf[i] != value(seed, i);
  return bad;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  static const int sizes[] = {65536, 1 << 20};
  enum { kMost = 2 };
  unsigned char* bufs[kMost + 1];
  for (int b = 0; b <= kMost; ++b) bufs[b] = malloc(1 << 20);
  int made = 1, bad = 0, seed = 1;
  MPI_Request first;
  fill(bufs[0], sizes[0], seed, 0, rank);
  MPI_Ibcast(bufs[0], sizes[0], MPI_BYTE, 0, comm, &first);
  MPI_Wait(&first, MPI_STATUS_IGNORE);
  bad += wrong(bufs[0], sizes[0], seed);
  for (int s = 0; s < 2; ++s) {
    const int n = sizes[s];
    for (int root = 0; root < size; ++root) {
      for (int outstanding = 1; outstanding <= kMost; ++outstanding) {
        fill(bufs[0], n, ++seed, root, rank); /* the blocking one makes or finds the window */
        MPI_Bcast(bufs[0], n, MPI_BYTE, root, comm);
        bad += wrong(bufs[0], n, seed);
        MPI_Request requests[kMost];
        MPI_Status statuses[kMost];
        for (int k = 0; k < outstanding; ++k) {
          fill(bufs[k + 1], n, seed + 1 + k, root, rank);
          MPI_Ibcast(bufs[k + 1], n, MPI_BYTE, root, comm, &requests[k]);
        }
        if (rank == root) MPI_Barrier(MPI_COMM_WORLD);
        MPI_Waitall(outstanding, requests, statuses);
        if (rank != root) MPI_Barrier(MPI_COMM_WORLD);
        for (int k = 0; k < outstanding; ++k) bad += wrong(bufs[k + 1], n, seed + 1 + k);
        seed += outstanding;
        made += 1 + outstanding;
      }
    }
  }
  int total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    if (total == 0) {
      printf("blocked_copies: made %d broadcasts; all data correct\n", made);
    } else {
      printf("blocked_copies: %d wrong values\n", total);
    }
  }
  for (int b = 0; b <= kMost; ++b) free(bufs[b]);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return total != 0;
}
