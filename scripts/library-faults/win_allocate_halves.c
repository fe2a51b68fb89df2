/* Open MPI 4.1.4: the two halves of a split make windows (MPI_Win_allocate) at the same time,
 * 200 times; prints how many failed on each rank (docs/testing.md: some do). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, failed = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
  MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN);
  for (int i = 0; i < 200; ++i) {
    int* cell = NULL;
    MPI_Win win;
    if (MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, half, &cell, &win) !=
        MPI_SUCCESS) {
      ++failed;
      continue;
    }
    MPI_Win_free(&win);
  }
  printf("rank %d: %d of 200 MPI_Win_allocate calls failed\n", me, failed);
  MPI_Finalize();
  return 0;
}
