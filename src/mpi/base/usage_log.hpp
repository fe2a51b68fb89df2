// LEANCAST_VERBOSE=1: on rank 0 of MPI_COMM_WORLD, one line the first time each
// (process count, bytes, algorithm) runs, and at MPI_Finalize one summary line with the
// broadcasts and bytes per algorithm and the private communicators created and freed.
// Safe under MPI_THREAD_MULTIPLE.
#pragma once

#include <cstdint>
#include <memory>

#include "mpi/base/process_settings.hpp"
#include "select/decide.hpp"

namespace leancast::detail {

// Counts one broadcast this rank took part in (bytes: count * type size); `nodes`, where
// known, is where the communicator's ranks run (the log line says how many nodes).
// Inline: with LEANCAST_VERBOSE off (the usual case) a broadcast pays one load for it.
void record_bcast_verbose(const Decision& decision, int procs, std::uint64_t bytes,
                          const std::shared_ptr<const NodeMap>& nodes);
inline void record_bcast(const Decision& decision, int procs, std::uint64_t bytes,
                         const std::shared_ptr<const NodeMap>& nodes = nullptr) {
  if (process_settings().verbose) record_bcast_verbose(decision, procs, bytes, nodes);
}

// Counts private communicators (private_comm.hpp) as they are created and freed.
void count_private_comm(bool created);

// Arranges, once, for the summary to print at MPI_Finalize (if LEANCAST_VERBOSE is on):
// an attribute on MPI_COMM_SELF, whose delete callback MPI runs first thing in
// MPI_Finalize, whichever language binding finalizes.
void install_summary_hook();

}  // namespace leancast::detail
