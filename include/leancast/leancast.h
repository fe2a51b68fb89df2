/* leancast: bandwidth-saving MPI broadcast, C API.
 *
 * Both functions have the semantics of MPI_Bcast: collective over `comm`, any count >= 0,
 * any root, any committed datatype (root and receivers may use different datatypes with
 * the same type signature). Errors are raised through the communicator's error handler
 * and returned as MPI error codes (MPI_Error_class gives MPI_ERR_ROOT, MPI_ERR_COUNT,
 * MPI_ERR_TYPE, MPI_ERR_COMM, MPI_ERR_BUFFER or MPI_ERR_ARG).
 */
#ifndef LEANCAST_LEANCAST_H
#define LEANCAST_LEANCAST_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Broadcast with the algorithm the environment chooses (LEANCAST_BCAST_ALGORITHM, then
 * LEANCAST_BCAST_RULES, then the LEANCAST_CONFIG file), or "auto" if none does. */
int LC_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm);

/* Broadcast with the named algorithm ("auto", "linear", "binomial", "hypercube",
 * "scatter-doubling", "scatter-ring" or "native", "scatter-ring-tuned" or "opt",
 * "pipeline-chain", "pipeline-binary-tree", "knomial", or "mpi": the MPI library's own
 * broadcast, PMPI_Bcast). The pipelines take a segment size ("pipeline-chain:128K"),
 * knomial a radix ("knomial:8"). NULL or "" behaves like LC_Bcast; an unknown name or a
 * bad parameter is an MPI_ERR_ARG error. */
int LC_Bcast_with(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                  const char *algorithm);

#ifdef __cplusplus
}
#endif

#endif /* LEANCAST_LEANCAST_H */
