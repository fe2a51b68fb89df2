/* A rank that blocks in a collective while its nonblocking broadcast is outstanding and the
 * other ranks wait for that broadcast before they enter the collective (correct MPI: a
 * nonblocking broadcast progresses while its rank is inside any MPI call). After a blocking
 * broadcast of the same size made the communicator's shared window, auto runs MPI_Ibcast
 * through it; under MPICH below MPI_THREAD_MULTIPLE only leancast's helper thread, which
 * calls no MPI, can do the root's copies while it is inside MPI_Barrier
 * (docs/nonblocking.md#progress). One and two broadcasts outstanding, every root, 64 KiB
 * and 1 MiB; first one MPI_Ibcast before any window (MPICH's there). --mixed-types: odd
 * ranks describe the bytes by a vector type (every other byte of a buffer twice as long),
 * even ranks as MPI_BYTE: the same signature, different layouts, so no rank's choice may
 * depend on its own datatype.
 *   blocked_copies [--mixed-types] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kMost = 2, kLargest = 1 << 20 };

static int mixed = 0, rank = 0;

static int strided(void) { return mixed && rank % 2 == 1; }

static unsigned char value(int seed, int i) { return (unsigned char)(seed * 31 + i * 7); }

/* Byte i of the broadcast in `buf` (every other byte where the layout is strided). */
static unsigned char* at(unsigned char* buf, int i) { return buf + (strided() ? 2 * i : i); }

static void fill(unsigned char* buf, int n, int seed, int root) {
  memset(buf, 0, 2 * (size_t)kLargest);
  for (int i = 0; i < n; ++i) *at(buf, i) = rank == root ? value(seed, i) : 0;
}

static int wrong(unsigned char* buf, int n, int seed) {
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += *at(buf, i) != value(seed, i);
  if (strided()) { /* the gaps stay as they were */
    for (int i = 0; i < n; ++i) bad += buf[2 * i + 1] != 0;
  }
  return bad;
}

/* Broadcasts n bytes of buf from root, blocking (request null) or not. */
static void bcast(unsigned char* buf, int n, int root, MPI_Comm comm, MPI_Request* request) {
  MPI_Datatype type = MPI_BYTE;
  int count = n;
  if (strided()) {
    MPI_Type_vector(n, 1, 2, MPI_BYTE, &type);
    MPI_Type_commit(&type);
    count = 1;
  }
  if (request == NULL) {
    MPI_Bcast(buf, count, type, root, comm);
  } else {
    MPI_Ibcast(buf, count, type, root, comm, request);
  }
  if (type != MPI_BYTE) MPI_Type_free(&type); /* MPI keeps it while the broadcast needs it */
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  mixed = argc > 1 && strcmp(argv[1], "--mixed-types") == 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  static const int sizes[] = {65536, kLargest};
  unsigned char* bufs[kMost + 1];
  for (int b = 0; b <= kMost; ++b) bufs[b] = malloc(2 * (size_t)kLargest);
  int made = 1, bad = 0, seed = 1;
  MPI_Request first;
  fill(bufs[0], sizes[0], seed, 0);
  bcast(bufs[0], sizes[0], 0, comm, &first);
  MPI_Wait(&first, MPI_STATUS_IGNORE);
  bad += wrong(bufs[0], sizes[0], seed);
  for (int s = 0; s < 2; ++s) {
    const int n = sizes[s];
    for (int root = 0; root < size; ++root) {
      for (int outstanding = 1; outstanding <= kMost; ++outstanding) {
        fill(bufs[0], n, ++seed, root); /* the blocking one makes or finds the window */
        bcast(bufs[0], n, root, comm, NULL);
        bad += wrong(bufs[0], n, seed);
        MPI_Request requests[kMost];
        MPI_Status statuses[kMost];
        for (int k = 0; k < outstanding; ++k) {
          fill(bufs[k + 1], n, seed + 1 + k, root);
          bcast(bufs[k + 1], n, root, comm, &requests[k]);
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
