/* A correct program that hung with the interposer (issue 25): every rank starts an
 * MPI_Iallreduce on one communicator; rank 0 waits for it and then broadcasts on a second
 * communicator; the other ranks broadcast first and wait for the allreduce afterwards. They
 * are inside an MPI call while rank 0 waits, so the library must progress the allreduce.
 *
 * Run once per algorithm named on the command line (each on a communicator made with the
 * info key leancast_bcast_algorithm; "default": none, the settings decide), and per form of
 * the broadcast: MPI_Bcast, MPI_Ibcast + MPI_Wait, MPI_Ibcast + MPI_Waitall (the other ranks
 * complete the broadcast and the allreduce in one MPI_Waitall). --thread-multiple
 * initializes MPI with MPI_THREAD_MULTIPLE (for LEANCAST_PROGRESS_THREAD=1).
 *   progress_mixed [--thread-multiple] ALGORITHM... */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kBytes = 65536, kInts = 1024 };

static int check_bytes(const unsigned char* buf, int seed) {
  int wrong = 0;
  for (int i = 0; i < kBytes; ++i) wrong += buf[i] != (unsigned char)(seed + i * 7);
  return wrong;
}

/* One run of the program on `bcast_comm`; returns how many values were wrong. */
static int run_once(MPI_Comm reduce_comm, MPI_Comm bcast_comm, int form, int seed) {
  int rank = 0, size = 0;
  MPI_Comm_rank(reduce_comm, &rank);
  MPI_Comm_size(reduce_comm, &size);
  int in[kInts], out[kInts];
  for (int i = 0; i < kInts; ++i) in[i] = rank + i;
  unsigned char* buf = malloc(kBytes);
  for (int i = 0; i < kBytes; ++i) buf[i] = rank == 0 ? (unsigned char)(seed + i * 7) : 0;
  MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL}; /* broadcast, allreduce */
  MPI_Iallreduce(in, out, kInts, MPI_INT, MPI_SUM, reduce_comm, &requests[1]);
  if (rank == 0) MPI_Wait(&requests[1], MPI_STATUS_IGNORE);
  if (form == 0) {
    MPI_Bcast(buf, kBytes, MPI_BYTE, 0, bcast_comm);
  } else {
    MPI_Ibcast(buf, kBytes, MPI_BYTE, 0, bcast_comm, &requests[0]);
    if (form == 1) MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
  }
  /* MPICH's MPI_STATUSES_IGNORE is (MPI_Status *)1, which GCC 12 takes for an array of no
     statuses (-Wstringop-overflow): a false alarm, silenced here only. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
  MPI_Waitall(2, requests, MPI_STATUSES_IGNORE); /* form 2: both at once on ranks > 0 */
#pragma GCC diagnostic pop
  int wrong = check_bytes(buf, seed);
  for (int i = 0; i < kInts; ++i) wrong += out[i] != size * i + size * (size - 1) / 2;
  free(buf);
  return wrong;
}

int main(int argc, char** argv) {
  int first = 1, provided = 0;
  const int threads = argc > 1 && strcmp(argv[1], "--thread-multiple") == 0;
  first += threads;
  MPI_Init_thread(&argc, &argv, threads ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm reduce_comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &reduce_comm);
  static const char* const forms[] = {"MPI_Bcast", "MPI_Ibcast + MPI_Wait",
                                      "MPI_Ibcast + MPI_Waitall"};
  int wrong = 0, broadcasts = 0, seed = 1;
  for (int a = first; a < argc; ++a) {
    MPI_Info info = MPI_INFO_NULL;
    MPI_Info_create(&info);
    if (strcmp(argv[a], "default") != 0) MPI_Info_set(info, "leancast_bcast_algorithm", argv[a]);
    MPI_Comm bcast_comm;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &bcast_comm);
    MPI_Info_free(&info);
    for (int form = 0; form < 3; ++form) {
      /* A first broadcast makes leancast's private communicator and shared window, whose
       * collective calls would progress the allreduce by themselves. */
      unsigned char* warm = calloc(kBytes, 1);
      MPI_Bcast(warm, kBytes, MPI_BYTE, 0, bcast_comm);
      free(warm);
      const int bad = run_once(reduce_comm, bcast_comm, form, ++seed);
      if (bad) printf("rank %d: %s, %s: %d wrong values\n", rank, argv[a], forms[form], bad);
      wrong += bad;
      broadcasts += 2;
    }
    MPI_Comm_free(&bcast_comm);
  }
  int total = 0;
  MPI_Allreduce(&wrong, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    if (total == 0) {
      printf("progress_mixed: %d algorithms x 3 forms: made %d broadcasts; all data correct\n",
             argc - first, broadcasts);
    } else {
      printf("progress_mixed: %d wrong values\n", total);
    }
  }
  MPI_Comm_free(&reduce_comm);
  MPI_Finalize();
  return total != 0;
}
