// SMPI settings shared by leancast's platforms, applied when the platform loads so that
// a platform file carries its whole model; settings given with --cfg take precedence.
#pragma once

namespace leancast::sim {

// All costs live in the platform's links: SMPI's default bandwidth and latency factors
// (fitted to one TCP cluster) are turned off, and so is TCP-like reverse "ack" traffic,
// which RDMA and shared memory do not have. Messages up to `eager_bytes` are sent eagerly
// (the sender does not wait for the receiver), larger ones by rendezvous. MPI_Allgather
// runs MPICH's algorithm (SMPI's own default breaks the solver at a few hundred ranks).
void apply_smpi_settings(int eager_bytes);

}  // namespace leancast::sim
