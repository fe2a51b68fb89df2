/* bcast_big_count: broadcasts whose byte size is beyond 2^31, from a program that knows
 * nothing of leancast; every byte is checked on every rank.
 *   1. 3 GiB as 805306368 MPI_INTs (an int count, a byte size past INT_MAX);
 *   2. 2 GiB + 1 MiB as 2049 elements of a 1 MiB contiguous derived type (packed);
 *   3. where the library has MPI 4's big-count functions: MPI_Bcast_c of 3 GiB + 5 MPI_BYTEs
 *      (a count past INT_MAX).
 * Peak memory: about 4.1 GiB per rank (case 2: the buffer and its packed copy).
 * Usage: mpiexec -n 2 bcast_big_count */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, failures, made;

static unsigned char pattern(uint64_t i) { return (unsigned char)(i * 7 + (i >> 20) * 13 + 1); }

static void check(const char* what, int rc, const unsigned char* buf, uint64_t bytes) {
  uint64_t wrong = rc == MPI_SUCCESS ? 0 : 1;
  for (uint64_t i = 0; i < bytes; ++i) wrong += buf[i] != pattern(i);
  ++made;
  if (wrong) {
    fprintf(stderr, "rank %d: FAILED %s: rc %d, %llu wrong bytes\n", rank, what, rc,
            (unsigned long long)wrong);
    ++failures;
  } else if (rank == 0) {
    printf("%s: %llu bytes correct on rank 0\n", what, (unsigned long long)bytes);
    fflush(stdout);
  }
}

static unsigned char* prepared(uint64_t bytes) {
  unsigned char* buf = malloc(bytes);
  if (buf == NULL) {
    fprintf(stderr, "rank %d: cannot allocate %llu bytes\n", rank, (unsigned long long)bytes);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  for (uint64_t i = 0; i < bytes; ++i) buf[i] = rank == 0 ? pattern(i) : 0;
  return buf;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const uint64_t gib = (uint64_t)1 << 30;

  unsigned char* buf = prepared(3 * gib);
  check("3 GiB as MPI_INT", MPI_Bcast(buf, (int)(3 * gib / 4), MPI_INT, 0, MPI_COMM_WORLD), buf,
        3 * gib);
  free(buf);

  MPI_Datatype mib;
  MPI_Type_contiguous(1 << 20, MPI_BYTE, &mib);
  MPI_Type_commit(&mib);
  buf = prepared(2 * gib + (1 << 20));
  check("2 GiB + 1 MiB as a derived type", MPI_Bcast(buf, 2049, mib, 0, MPI_COMM_WORLD), buf,
        2 * gib + (1 << 20));
  free(buf);
  MPI_Type_free(&mib);

#if MPI_VERSION >= 4
  buf = prepared(3 * gib + 5);
  check("3 GiB + 5 with MPI_Bcast_c",
        MPI_Bcast_c(buf, (MPI_Count)(3 * gib + 5), MPI_BYTE, 0, MPI_COMM_WORLD), buf, 3 * gib + 5);
  free(buf);
#endif

  int any = 0;
  MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("bcast_big_count: rank 0 made %d valid broadcasts, 0 on intercommunicators; %s\n", made,
           any ? "FAILED" : "all data correct");
  }
  MPI_Finalize();
  return any ? 1 : 0;
}
