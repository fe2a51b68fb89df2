/* leancast: bandwidth-saving MPI broadcast, C API.
 *
 * Every function here has the semantics of its MPI counterpart: LC_Bcast and
 * LC_Bcast_with those of MPI_Bcast, LC_Ibcast and LC_Ibcast_with those of MPI_Ibcast,
 * LC_Bcast_init and LC_Start those of MPI_Bcast_init and MPI_Start. Collective over `comm`, any
 * count >= 0, any root, any committed datatype (root and receivers may use different datatypes with
 * the same type signature). Errors are raised through the communicator's error handler and returned
 * as MPI error codes; a bad argument's class (MPI_Error_class) is MPI_ERR_ROOT, MPI_ERR_COUNT,
 * MPI_ERR_TYPE, MPI_ERR_COMM, MPI_ERR_BUFFER or MPI_ERR_ARG.
 */
#ifndef LEANCAST_LEANCAST_H
#define LEANCAST_LEANCAST_H

#include <mpi.h>

/* What this header declares is leancast's exported API (the rest is hidden). */
#pragma GCC visibility push(default)

#ifdef __cplusplus
extern "C" {
#endif

/* Broadcast with the algorithm the settings choose (the communicator's algorithm, set by
 * LC_Comm_set_algorithm or its leancast_bcast_algorithm info hint, then LEANCAST_BCAST_ALGORITHM,
 * then LEANCAST_BCAST_RULES, then the LEANCAST_CONFIG file; docs/settings.md), or "auto" if none
 * does. */
int LC_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm);

/* Broadcast with the named algorithm: "auto" (leancast's table, else the MPI library's
 * broadcast), "linear", "binomial", "hypercube", "scatter-doubling", "scatter-ring" (also
 * "native"), "scatter-ring-tuned" (also "opt"), "pipeline-chain", "pipeline-binary-tree",
 * "split-binary-tree", "two-tree", "knomial", "circulant", "shm" (within one node, through
 * shared memory), "cma" (within one node, each reader copying once from its source's
 * buffer), "cma-split" (cma with the root copying a share), "node-aware" (between nodes,
 * then within each), or "mpi" (the MPI library's own broadcast, PMPI_Bcast). A parameter
 * follows a colon: a segment size for the pipelines, split-binary-tree, two-tree, shm, cma
 * and cma-split ("pipeline-chain:128K"), a radix for
 * knomial ("knomial:8"), a block count for circulant ("circulant:32"), the two levels for
 * node-aware ("node-aware:two-tree/shm"); an executor follows an at sign
 * ("two-tree@rounds"). docs/algorithms.md describes every one. NULL or "" behaves like
 * LC_Bcast; an unknown name or a bad parameter is an MPI_ERR_ARG error. */
int LC_Bcast_with(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                  const char* algorithm);

/* Nonblocking broadcast (MPI_Ibcast's semantics): starts the broadcast and sets *request,
 * a generalized request that the MPI library's own MPI_Wait, MPI_Test and their -all,
 * -any, -some forms complete. Broadcasts on one communicator complete in the order they
 * were started. What progresses it with each MPI library: docs/nonblocking.md#progress. */
int LC_Ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
              MPI_Request* request);

/* The same with a named algorithm, as LC_Bcast_with. */
int LC_Ibcast_with(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                   const char* algorithm, MPI_Request* request);

/* A persistent broadcast (MPI_Bcast_init's semantics, with leancast's own handle: MPI lets
 * no library start a request of another's): planned once, collective over `comm`. Each
 * LC_Start runs it with the buffer's content at that time and sets *request, completed
 * like LC_Ibcast's; starting it again before that request completed, or freeing it then,
 * is an MPI_ERR_REQUEST error. The info key leancast_bcast_algorithm names its algorithm
 * (MPI_INFO_NULL: the settings decide). LC_Persistent_free releases it and sets
 * *persistent to LC_PERSISTENT_NULL. */
typedef struct LC_Persistent_s* LC_Persistent;
#define LC_PERSISTENT_NULL ((LC_Persistent)0)
int LC_Bcast_init(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Info info,
                  LC_Persistent* persistent);
int LC_Start(LC_Persistent persistent, MPI_Request* request);
int LC_Startall(int count, LC_Persistent persistents[], MPI_Request requests[]);
int LC_Persistent_free(LC_Persistent* persistent);

/* Names the algorithm of the broadcasts on the intracommunicator `comm` and on its later
 * duplicates (NULL or "": none), as the info hint leancast_bcast_algorithm would if the
 * MPI library kept it (neither Open MPI nor MPICH keeps a key it does not know). Local; an
 * unknown name or a bad parameter is an MPI_ERR_ARG error. */
int LC_Comm_set_algorithm(MPI_Comm comm, const char* algorithm);

/* Collective over `comm`: makes leancast's private duplicate of it now, which its first
 * blocking broadcast that moves data would make. A nonblocking broadcast on a
 * communicator without one runs as the library's MPI_Ibcast (making it is a blocking
 * collective), so call this after making a communicator whose first broadcasts are
 * nonblocking. */
int LC_Comm_prepare(MPI_Comm comm);

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop

#endif /* LEANCAST_LEANCAST_H */
