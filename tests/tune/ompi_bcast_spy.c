/* LD_PRELOAD shim for Open MPI 4.1: coll_tuned (mca_coll_tuned.so) calls the broadcast
 * algorithms of libmpi's coll base through the PLT, so these definitions come first; each
 * prints "spy: FUNCTION count=N segsize=S" on stderr and calls libmpi's own. Signatures:
 * ompi/mca/coll/base/coll_base_functions.h (v4.1.4). tests/tune/library_test.py reads the
 * lines to see which algorithm a coll_tuned dynamic rules file made Open MPI run. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

#define ARGS void *buffer, int count, void *datatype, int root, void *comm, void *module
#define PASS buffer, count, datatype, root, comm, module
#define REAL(name, type) \
  static type real;      \
  if (!real) real = (type)dlsym(RTLD_NEXT, #name)

typedef int (*plain_fn)(ARGS);
typedef int (*segmented_fn)(ARGS, uint32_t);
typedef int (*segmented_extra_fn)(ARGS, uint32_t, int32_t);

#define SEGMENTED(name)                                                      \
  int name(ARGS, uint32_t segsize) {                                         \
    REAL(name, segmented_fn);                                                \
    fprintf(stderr, "spy: " #name " count=%d segsize=%u\n", count, segsize); \
    return real(PASS, segsize);                                              \
  }
#define SEGMENTED_EXTRA(name)                                                \
  int name(ARGS, uint32_t segsize, int32_t extra) {                          \
    REAL(name, segmented_extra_fn);                                          \
    fprintf(stderr, "spy: " #name " count=%d segsize=%u\n", count, segsize); \
    return real(PASS, segsize, extra);                                       \
  }

int ompi_coll_base_bcast_intra_basic_linear(ARGS) {
  REAL(ompi_coll_base_bcast_intra_basic_linear, plain_fn);
  fprintf(stderr, "spy: ompi_coll_base_bcast_intra_basic_linear count=%d segsize=0\n", count);
  return real(PASS);
}
SEGMENTED_EXTRA(ompi_coll_base_bcast_intra_chain)
SEGMENTED(ompi_coll_base_bcast_intra_pipeline)
SEGMENTED(ompi_coll_base_bcast_intra_split_bintree)
SEGMENTED(ompi_coll_base_bcast_intra_bintree)
SEGMENTED(ompi_coll_base_bcast_intra_binomial)
SEGMENTED_EXTRA(ompi_coll_base_bcast_intra_knomial)
SEGMENTED(ompi_coll_base_bcast_intra_scatter_allgather)
SEGMENTED(ompi_coll_base_bcast_intra_scatter_allgather_ring)
