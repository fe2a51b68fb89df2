// Online tuning (LEANCAST_TUNE=online) on MPI: which algorithm a tunable broadcast runs
// (select/online_tuner.hpp keeps the books), the agreement at the end of a class's trials
// (one MPI_Allreduce(MAX) of the per-candidate medians on the private communicator, which
// every rank reaches at the same broadcast), the verbose report, and the LEANCAST_TUNE_FILE
// rank 0 writes at MPI_Finalize. Safe under MPI_THREAD_MULTIPLE: one communicator's tuner
// is used by one broadcast at a time (MPI forbids concurrent collectives on it), and what
// the file collects is locked.
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

#include "mpi/base/process_settings.hpp"
#include "mpi/comm/private_comm.hpp"

namespace leancast::detail {

// LEANCAST_TUNE, or what set_tuning said last (inline: a repeated broadcast asks); the
// first question reads the settings.
bool tuning_from_settings();
inline bool tuning_online() {
  const int known = hot_words.tuning.load(std::memory_order_relaxed);
  return known >= 0 ? known == 1 : tuning_from_settings();
}

// Overrides LEANCAST_TUNE: "online", "off", "" (the setting again); false for another name.
bool override_tuning(std::string_view mode);

// What this broadcast of `bytes` bytes on `state`'s communicator runs.
TuneStep tune_step(PrivateComm& state, std::uint64_t bytes);

// A trial's time on this rank; at the end of the class's trials the ranks agree on the
// winner (collective on the private communicator: every rank gets there together).
void tune_record(PrivateComm& state, const TuneStep& step, double seconds);

}  // namespace leancast::detail
