/* MPICH 4.0.2: each rank puts a value into its right neighbour's window (MPI_Win_allocate)
 * under an exclusive lock, then reads its own cell back under a shared lock, 200 times;
 * prints how many values were wrong on each rank (docs/testing.md: many are). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, size = 1, wrong = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int right = (me + 1) % size, left = (me + size - 1) % size;
  for (int round = 0; round < 200; ++round) {
    int* cell = NULL;
    MPI_Win win;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &cell, &win);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
    *cell = -1;
    MPI_Win_unlock(me, win);
    MPI_Barrier(MPI_COMM_WORLD);
    const int mine = round * 1000 + me;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    MPI_Put(&mine, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    MPI_Win_unlock(right, win);
    MPI_Barrier(MPI_COMM_WORLD);
    int got = -2;
    MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win);
    MPI_Get(&got, 1, MPI_INT, me, 0, 1, MPI_INT, win);
    MPI_Win_unlock(me, win);
    if (got != round * 1000 + left) ++wrong;
    MPI_Win_free(&win);
  }
  printf("rank %d: %d of 200 values wrong\n", me, wrong);
  MPI_Finalize();
  return 0;
}
