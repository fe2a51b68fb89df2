/* bcast_semantics: a plain MPI program that knows nothing of leancast. It broadcasts the
 * ways applications rely on and checks every result: first broadcasts on a fresh
 * communicator, sizes and roots, zero-size datatypes, MPI_BOTTOM with absolute addresses,
 * communicators from MPI_Comm_split/create/dup/split_type (freed in a loop, then world
 * again), an intercommunicator, and errors under MPI_ERRORS_RETURN. Rank 0 prints how many
 * valid broadcasts it made, so a test can compare that with what the interposer counted.
 * Usage: mpiexec -n P bcast_semantics          exit 1 if any check fails on any rank
 *        mpiexec -n P bcast_semantics fatal    a bad root under MPI_ERRORS_ARE_FATAL */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int world_rank, failures, valid_bcasts, inter_bcasts;

#define CHECK(cond, ...)                                                  \
  do {                                                                    \
    if (!(cond)) {                                                        \
      fprintf(stderr, "rank %d: FAILED line %d: ", world_rank, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                                       \
      fputc('\n', stderr);                                                \
      ++failures;                                                         \
    }                                                                     \
  } while (0)

static unsigned char pattern(long seed, long i) {
  return (unsigned char)(seed * 31 + i * 7 + (i >> 8) + 1);
}

/* Broadcasts `bytes` bytes as MPI_BYTE from `root` and returns the number of wrong bytes. */
static long bcast_bytes(MPI_Comm comm, long bytes, int root, long seed) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  unsigned char* buf = malloc(bytes > 0 ? (size_t)bytes : 1);
  for (long i = 0; i < bytes; ++i) buf[i] = rank == root ? pattern(seed, i) : 0;
  int rc = MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, comm);
  ++valid_bcasts;
  long wrong = rc == MPI_SUCCESS ? 0 : bytes + 1;
  for (long i = 0; i < bytes; ++i) wrong += buf[i] != pattern(seed, i);
  free(buf);
  return wrong;
}

static void sizes_and_roots(void) {
  int procs;
  MPI_Comm_size(MPI_COMM_WORLD, &procs);
  const long sizes[] = {1, 7, 4096, 12288, 100000, (1 << 20) + 3};
  for (int root = 0; root < procs; ++root) {
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; ++s) {
      long wrong = bcast_bytes(MPI_COMM_WORLD, sizes[s], root, root + (long)s);
      CHECK(wrong == 0, "%ld bytes from root %d: %ld wrong", sizes[s], root, wrong);
    }
  }
  double values[3000];
  for (int i = 0; i < 3000; ++i) values[i] = world_rank == 0 ? i * 0.5 : -1;
  MPI_Bcast(values, 3000, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  ++valid_bcasts;
  for (int i = 0; i < 3000; ++i) CHECK(values[i] == i * 0.5, "double %d is %g", i, values[i]);
}

static void zero_sizes(void) {
  int untouched[4] = {-7, -7, -7, -7};
  MPI_Datatype empty;
  MPI_Type_contiguous(0, MPI_INT, &empty);
  MPI_Type_commit(&empty);
  CHECK(MPI_Bcast(untouched, 4, empty, 0, MPI_COMM_WORLD) == MPI_SUCCESS, "zero-size type");
  CHECK(MPI_Bcast(NULL, 0, MPI_INT, 0, MPI_COMM_WORLD) == MPI_SUCCESS, "count 0");
  valid_bcasts += 2;
  for (int i = 0; i < 4; ++i)
    CHECK(untouched[i] == -7, "zero-size broadcast wrote %d", untouched[i]);
  MPI_Type_free(&empty);
}

/* A struct type of absolute addresses over two separate arrays, broadcast from MPI_BOTTOM. */
static void bottom_with_absolute_addresses(void) {
  static int ints[500];
  static double doubles[70];
  for (int i = 0; i < 500; ++i) ints[i] = world_rank == 0 ? 3 * i + 1 : 0;
  for (int i = 0; i < 70; ++i) doubles[i] = world_rank == 0 ? i / 4.0 : 0;
  int lengths[2] = {500, 70};
  MPI_Aint addresses[2];
  MPI_Get_address(ints, &addresses[0]);
  MPI_Get_address(doubles, &addresses[1]);
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, absolute;
  MPI_Type_create_struct(2, lengths, addresses, types, &absolute);
  MPI_Type_commit(&absolute);
  CHECK(MPI_Bcast(MPI_BOTTOM, 1, absolute, 0, MPI_COMM_WORLD) == MPI_SUCCESS, "MPI_BOTTOM");
  ++valid_bcasts;
  for (int i = 0; i < 500; ++i) CHECK(ints[i] == 3 * i + 1, "MPI_BOTTOM int %d is %d", i, ints[i]);
  for (int i = 0; i < 70; ++i) CHECK(doubles[i] == i / 4.0, "MPI_BOTTOM double %d", i);
  MPI_Type_free(&absolute);
}

static void check_on(MPI_Comm comm, const char* what, long bytes, long seed) {
  if (comm == MPI_COMM_NULL) return;
  int size;
  MPI_Comm_size(comm, &size);
  long wrong = bcast_bytes(comm, bytes, size - 1, seed);
  CHECK(wrong == 0, "%s: %ld wrong bytes", what, wrong);
}

/* Communicators made and freed in a loop: each gets a private communicator on its first
 * broadcast, which must go away with it. */
static void derived_communicators(void) {
  int procs;
  MPI_Comm_size(MPI_COMM_WORLD, &procs);
  MPI_Group world_group, evens;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  int range[1][3] = {{0, procs - 1, 2}};
  MPI_Group_range_incl(world_group, 1, range, &evens);
  for (int i = 0; i < 12; ++i) {
    MPI_Comm split, created, dup, node;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, procs - world_rank, &split);
    MPI_Comm_create(MPI_COMM_WORLD, evens, &created);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    const long bytes = i % 2 ? 70000 : 3000;
    check_on(split, "MPI_Comm_split", bytes, i);
    check_on(created, "MPI_Comm_create", bytes, i + 1);
    check_on(dup, "MPI_Comm_dup", bytes, i + 2);
    check_on(node, "MPI_Comm_split_type", bytes, i + 3);
    MPI_Comm_free(&split);
    if (created != MPI_COMM_NULL) MPI_Comm_free(&created);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&node);
  }
  MPI_Group_free(&evens);
  MPI_Group_free(&world_group);
  check_on(MPI_COMM_WORLD, "world after freeing communicators", 5000, 99);
}

/* Two halves joined by an intercommunicator: the root passes MPI_ROOT, its group
 * MPI_PROC_NULL, the other group the root's rank in the remote group. */
static void intercommunicator(void) {
  int procs;
  MPI_Comm_size(MPI_COMM_WORLD, &procs);
  if (procs < 2) return;
  const int low = world_rank < procs / 2;
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, low, world_rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? procs / 2 : 0, 17, &inter);
  int half_rank, data[100];
  MPI_Comm_rank(half, &half_rank);
  for (int i = 0; i < 100; ++i) data[i] = low && half_rank == 0 ? i * i : -1;
  const int root = low ? (half_rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  CHECK(MPI_Bcast(data, 100, MPI_INT, root, inter) == MPI_SUCCESS, "intercommunicator");
  ++valid_bcasts;
  ++inter_bcasts;
  if (!low)
    for (int i = 0; i < 100; ++i) CHECK(data[i] == i * i, "intercommunicator %d", i);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
}

static int error_class_of(int rc) {
  int error_class = MPI_SUCCESS;
  MPI_Error_class(rc, &error_class);
  return error_class;
}

/* Errors are found locally on every rank before any communication, so none of them hangs. */
static void errors_return(void) {
  int procs, value = 5;
  MPI_Comm_size(MPI_COMM_WORLD, &procs);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  CHECK(error_class_of(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, comm)) == MPI_ERR_BUFFER,
        "MPI_IN_PLACE");
  CHECK(error_class_of(MPI_Bcast(&value, 1, MPI_INT, procs, comm)) == MPI_ERR_ROOT, "bad root");
  CHECK(error_class_of(MPI_Bcast(&value, -1, MPI_INT, 0, comm)) == MPI_ERR_COUNT, "negative count");
  CHECK(error_class_of(MPI_Bcast(&value, 1, MPI_DATATYPE_NULL, 0, comm)) == MPI_ERR_TYPE,
        "null type");
  check_on(comm, "after errors", 20000, 5);
  MPI_Comm_free(&comm);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
    int procs, value = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    MPI_Bcast(&value, 1, MPI_INT, procs, MPI_COMM_WORLD);
    printf("not reached: the bad root did not abort\n");
    MPI_Finalize();
    return 0;
  }
  sizes_and_roots();
  zero_sizes();
  bottom_with_absolute_addresses();
  derived_communicators();
  intercommunicator();
  errors_return();
  int any = 0;
  MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (world_rank == 0) {
    printf("bcast_semantics: rank 0 made %d valid broadcasts, %d on intercommunicators; %s\n",
           valid_bcasts, inter_bcasts, any ? "FAILED" : "all data correct");
  }
  MPI_Finalize();
  return any ? 1 : 0;
}
