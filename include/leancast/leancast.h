/* leancast: bandwidth-saving MPI broadcast, C API.
 *
 * Every function here has the semantics of its MPI counterpart: LC_Bcast and
 * LC_Bcast_with those of MPI_Bcast, LC_Ibcast and LC_Ibcast_with those of MPI_Ibcast,
 * LC_Bcast_init that of MPI_Bcast_init. Collective over `comm`, any count >= 0, any root,
 * any committed datatype (root and receivers may use different datatypes with the same
 * type signature). Errors are raised through the communicator's error handler and
 * returned as MPI error codes; a bad argument's class (MPI_Error_class) is MPI_ERR_ROOT,
 * MPI_ERR_COUNT, MPI_ERR_TYPE, MPI_ERR_COMM, MPI_ERR_BUFFER or MPI_ERR_ARG.
 */
#ifndef LEANCAST_LEANCAST_H
#define LEANCAST_LEANCAST_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Broadcast with the algorithm the settings choose (the communicator's
 * leancast_bcast_algorithm info hint, then LEANCAST_BCAST_ALGORITHM, then
 * LEANCAST_BCAST_RULES, then the LEANCAST_CONFIG file; docs/settings.md), or "auto" if
 * none does. */
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
 * which MPI_Wait, MPI_Test and their -all, -any, -some forms complete. Broadcasts on one
 * communicator complete in the order they were started. Progress: inside the calls
 * leancast defines (its broadcasts, those completion calls and the blocking point-to-point
 * calls, which step every outstanding broadcast; docs/nonblocking.md), or all the time
 * with LEANCAST_PROGRESS_THREAD=1 under MPI_THREAD_MULTIPLE. MPI_Request_free and
 * MPI_Cancel on its request are MPI_ERR_REQUEST errors, as MPI forbids them. */
int LC_Ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
              MPI_Request* request);

/* The same with a named algorithm, as LC_Bcast_with. */
int LC_Ibcast_with(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                   const char* algorithm, MPI_Request* request);

/* Persistent broadcast (MPI_Bcast_init's semantics): plans the broadcast once; each
 * MPI_Start (MPI_Startall) runs it with the buffer's content at that time, completed like
 * LC_Ibcast's. The info key leancast_bcast_algorithm names its algorithm (MPI_INFO_NULL:
 * the settings decide). MPI_Request_free releases it when inactive; starting or freeing it
 * while active is an MPI_ERR_REQUEST error. */
int LC_Bcast_init(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Info info,
                  MPI_Request* request);

#ifdef __cplusplus
}
#endif

#endif /* LEANCAST_LEANCAST_H */
