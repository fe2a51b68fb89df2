/* One MPI_Bcast of N bytes from rank 0 on MPI_COMM_WORLD, after an MPI_Allreduce and an
 * MPI_Barrier (a tuning file that lost the other collectives' selection fails there).
 * "truncate": the other ranks expect N / 2 bytes, and errors return: the error's string is
 * printed, in MPICH an error stack naming the broadcast algorithm (tests/tune/library_test.py). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, one = 1, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc < 2) {
    if (rank == 0) fprintf(stderr, "usage: library_bcast BYTES [truncate]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int bytes = atoi(argv[1]);
  int truncate = argc > 2 && strcmp(argv[2], "truncate") == 0;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  char* buffer = calloc(bytes > 0 ? bytes : 1, 1);
  if (rank == 0)
    for (int i = 0; i < bytes; ++i) buffer[i] = (char)(i * 7 + 1);
  if (truncate) MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int code =
      MPI_Bcast(buffer, rank != 0 && truncate ? bytes / 2 : bytes, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (code != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    printf("rank %d: MPI_Bcast failed: %s\n", rank, text);
    fflush(stdout);
    free(buffer);
    MPI_Finalize();
    return 3;
  }
  int ok = 1;
  for (int i = 0; i < bytes; ++i) ok &= buffer[i] == (char)(i * 7 + 1);
  printf("rank %d of %d: bcast %d bytes %s\n", rank, sum, bytes, ok ? "ok" : "WRONG DATA");
  free(buffer);
  MPI_Finalize();
  return ok ? 0 : 1;
}
