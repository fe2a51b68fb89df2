/* Under the default MPI_ERRORS_ARE_FATAL, a bad root aborts with leancast's message.
 * Also checks that <leancast/leancast.h> is plain C. */
#include <leancast/leancast.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int size, data = 1;
  MPI_Init(&argc, &argv);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  LC_Bcast(&data, 1, MPI_INT, size, MPI_COMM_WORLD);
  printf("not reached: the bad root did not abort\n");
  MPI_Finalize();
  return 0;
}
