// SMPI settings shared by leancast's platforms, applied when the platform loads so that
// a platform file carries its whole model; settings given with --cfg take precedence.
#pragma once

namespace leancast::sim {

// All link costs live in the platform's links: SMPI's default bandwidth and latency
// factors (fitted to one TCP cluster) are turned off, and so is TCP-like reverse "ack"
// traffic, which RDMA and shared memory do not have. Messages up to `eager_bytes` are sent
// eagerly (the sender does not wait for the receiver), larger ones by rendezvous.
// MPI_Allgather runs MPICH's algorithm (SMPI's own default breaks the solver at a few
// hundred ranks). Each eager message costs its sender `send_overhead` seconds (smpi/ois
// for MPI_Isend, smpi/os for blocking sends) and its receiver `receive_overhead` seconds
// (smpi/or); SMPI blocks the rank for that time. Rendezvous messages cost none (as SMPI
// itself charges blocking sends and receives; smpi_settings.cpp says why Isends follow).
void apply_smpi_settings(int eager_bytes, double send_overhead, double receive_overhead);

}  // namespace leancast::sim
