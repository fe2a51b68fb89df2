/* A program linked with libleancast (it calls LC_Bcast) whose MPI calls still reach the MPI
 * library: for every MPI function leancast once defined in that library, the definition the
 * dynamic linker finds first (dlsym(RTLD_DEFAULT)) lies in a file whose name is not
 * leancast's (dladdr). Exit status 1 naming each one that does not. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <leancast/leancast.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, value = 0, failures = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) value = 42;
  LC_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (value != 42) ++failures;
  static const char* const names[] = {"MPI_Send",
                                      "MPI_Recv",
                                      "MPI_Wait",
                                      "MPI_Test",
                                      "MPI_Waitall",
                                      "MPI_Testsome",
                                      "MPI_Request_get_status",
                                      "MPI_Start",
                                      "MPI_Request_free",
                                      "MPI_Init",
                                      "MPI_Finalize",
                                      "MPI_Comm_dup",
                                      "MPI_Comm_split",
                                      "MPI_Barrier",
                                      "MPI_Allreduce",
                                      "MPI_Comm_set_info",
                                      "MPI_Bcast",
                                      "MPI_Ibcast",
                                      "MPI_Bcast_init",
                                      "MPI_File_open"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    void* found = dlsym(RTLD_DEFAULT, names[i]);
    Dl_info where;
    if (found == NULL || dladdr(found, &where) == 0 || where.dli_fname == NULL) continue;
    if (strstr(where.dli_fname, "leancast") != NULL) {
      fprintf(stderr, "rank %d: FAILED %s comes from %s\n", rank, names[i], where.dli_fname);
      ++failures;
    }
  }
  if (rank == 0)
    printf("guest_symbols: %s\n", failures ? "FAILED" : "every MPI name is the library's");
  MPI_Finalize();
  return failures ? 1 : 0;
}
