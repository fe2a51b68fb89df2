/* A plain MPI program with nonblocking and persistent broadcasts (built against MPI only;
 * built with -DUSE_LEANCAST_API and linked with libleancast, every other MPI_Ibcast is
 * LC_Ibcast instead, for a program that both calls leancast and has the interposer
 * preloaded: its MPI_Wait family must complete both copies' requests):
 * MPI_Ibcast at several sizes and roots, four outstanding at once on two communicators
 * with a blocking MPI_Bcast and an MPI_Barrier among them, completed by MPI_Waitall, MPI_Waitany
 * and MPI_Test loops, after a blocking broadcast on each communicator (which makes leancast's
 * private communicator, without which a nonblocking broadcast is the library's); linked
 * with libleancast, LC_Bcast_init started 100 times with new data each time (the
 * interposer leaves MPI_Bcast_init to the library). Every rank checks every byte. --thread-multiple
 * initializes MPI with MPI_THREAD_MULTIPLE (under MPICH auto runs leancast for nonblocking
 * broadcasts only there). bcast_nonblocking [--thread-multiple] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef USE_LEANCAST_API
#include <leancast/leancast.h>
#endif

enum { kOutstanding = 4 };

static int rank, size, failures, made;

/* Starts broadcast k; counts it in `made` if it is an MPI_Ibcast (the interposer's). */
static void start_ibcast(int k, void* buf, int bytes, int root, MPI_Comm comm,
                         MPI_Request* request) {
#ifdef USE_LEANCAST_API
  if (k % 2) {
    LC_Ibcast(buf, bytes, MPI_BYTE, root, comm, request);
    return;
  }
#else
  (void)k;
#endif
  MPI_Ibcast(buf, bytes, MPI_BYTE, root, comm, request);
  ++made;
}

static unsigned char value(int seed, long i) { return (unsigned char)(seed * 31 + i * 7 + 1); }

static void fill(unsigned char* buf, long bytes, int seed, int root) {
  for (long i = 0; i < bytes; ++i) buf[i] = rank == root ? value(seed, i) : 0;
}

static void check(const unsigned char* buf, long bytes, int seed, const char* what) {
  long wrong = 0;
  for (long i = 0; i < bytes; ++i) wrong += buf[i] != value(seed, i);
  if (wrong) {
    fprintf(stderr, "rank %d: FAILED %s (seed %d): %ld wrong bytes\n", rank, what, seed, wrong);
    ++failures;
  }
}

int main(int argc, char** argv) {
  const int threads = argc > 1 && strcmp(argv[1], "--thread-multiple") == 0;
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, threads ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm other;
  MPI_Comm_dup(MPI_COMM_WORLD, &other);
  const long sizes[] = {1, 3000, 12000, 70000, 300000, 1 << 20};
  unsigned char* bufs[kOutstanding];
  for (int k = 0; k < kOutstanding; ++k) bufs[k] = malloc(1 << 20);
  unsigned char* blocking = malloc(100000);
  int seed = 0;
  for (int c = 0; c < 2; ++c, ++made) {
    fill(blocking, 64, ++seed, 0);
    MPI_Bcast(blocking, 64, MPI_BYTE, 0, c ? other : MPI_COMM_WORLD);
    check(blocking, 64, seed, "the first MPI_Bcast");
  }

  for (int s = 0; s < (int)(sizeof sizes / sizeof sizes[0]); ++s) {
    const long bytes = sizes[s];
    MPI_Request requests[kOutstanding];
    int seeds[kOutstanding];
    for (int k = 0; k < kOutstanding; ++k) {
      const int root = (k + s) % size;
      seeds[k] = ++seed;
      fill(bufs[k], bytes, seeds[k], root);
      start_ibcast(k + s, bufs[k], (int)bytes, root, k % 2 ? other : MPI_COMM_WORLD, &requests[k]);
      if (k == 1) { /* a blocking broadcast while two are outstanding */
        fill(blocking, 100000, ++seed, 0);
        MPI_Bcast(blocking, 100000, MPI_BYTE, 0, MPI_COMM_WORLD);
        ++made;
        check(blocking, 100000, seed, "MPI_Bcast among MPI_Ibcasts");
      }
    }
    /* A blocking collective while four are outstanding, which no rank waits for meanwhile
     * (under MPICH below MPI_THREAD_MULTIPLE leancast says once what a wait would do). */
    if (s == 5) MPI_Barrier(MPI_COMM_WORLD);
    if (s % 2 == 0) {
      MPI_Status statuses[kOutstanding];
      MPI_Waitall(kOutstanding, requests, statuses);
    } else {
      int index = 0, flag = 0;
      MPI_Waitany(kOutstanding, requests, &index, MPI_STATUS_IGNORE);
      for (int k = 0; k < kOutstanding; ++k) {
        do MPI_Test(&requests[k], &flag, MPI_STATUS_IGNORE);
        while (!flag);
      }
    }
    for (int k = 0; k < kOutstanding; ++k) {
      if (requests[k] != MPI_REQUEST_NULL) {
        fprintf(stderr, "rank %d: FAILED a completed request is not MPI_REQUEST_NULL\n", rank);
        ++failures;
      }
      check(bufs[k], bytes, seeds[k], "MPI_Ibcast");
    }
  }

#ifdef USE_LEANCAST_API
  {
    LC_Persistent persistent;
    const long bytes = 50000;
    LC_Bcast_init(bufs[0], (int)bytes, MPI_BYTE, size - 1, MPI_COMM_WORLD, MPI_INFO_NULL,
                  &persistent);
    for (int start = 0; start < 100; ++start) {
      fill(bufs[0], bytes, ++seed, size - 1);
      MPI_Request request;
      LC_Start(persistent, &request);
      MPI_Wait(&request, MPI_STATUS_IGNORE);
      check(bufs[0], bytes, seed, "LC_Bcast_init");
    }
    LC_Persistent_free(&persistent);
  }
#endif

  int any = 0;
  MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("bcast_nonblocking: rank 0 made %d valid broadcasts, 0 on intercommunicators; %s\n",
           made, any ? "FAILED" : "all data correct");
  }
  for (int k = 0; k < kOutstanding; ++k) free(bufs[k]);
  free(blocking);
  MPI_Comm_free(&other);
  MPI_Finalize();
  return any ? 1 : 0;
}
