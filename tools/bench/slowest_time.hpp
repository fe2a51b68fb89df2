// What the call-cost benches (leancast-call-path-bench, leancast-guest-bench) time with: a
// loop of calls after a barrier, the slowest rank's seconds per call. The library's own
// barrier and allreduce (PMPI_), so that the interposer, when preloaded, is not timed.
#pragma once

#include <mpi.h>

namespace leancast::bench {

template <class Body>
double slowest_seconds_per_call(MPI_Comm comm, int iterations, Body&& body) {
  PMPI_Barrier(comm);
  const double start = MPI_Wtime();
  for (int i = 0; i < iterations; ++i) body();
  const double mine = (MPI_Wtime() - start) / iterations;
  double slowest = 0;
  PMPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
  return slowest;
}

}  // namespace leancast::bench
