// The selection settings of this process (select/settings.hpp), read from the environment
// once: inside MPI_Init where leancast defines it (mpi/comm/communicators.cpp), else at the
// first call that asks, a broadcast at the latest (each malformed setting prints one
// warning, on world rank 0), and the other words that every broadcast reads.
#pragma once

#include <atomic>
#include <cstdint>

#include "select/settings.hpp"

namespace leancast::detail {

// The settings once read (nullptr before they are). Every broadcast asks, so the
// question is inline: one load, where a call into the library cost 5-14 ns a broadcast
// (git show 36aaa05^:docs/benchmarks/call-path/).
extern std::atomic<const Settings*> settings_read;
const Settings& read_process_settings();

inline const Settings& process_settings() {
  const Settings* read = settings_read.load(std::memory_order_acquire);
  return read != nullptr ? *read : read_process_settings();
}

// The words a deferral's short way (mpi/pass_at_once.hpp) reads besides the communicator's
// last call, on one cache line: in a program that computes between its broadcasts each line
// the way touches may have left the cache, and with 4 ranks on this VM's 2 cores a deferred
// 64 B broadcast cost 0.95x the library's own while these words sat on three lines (the
// settings' a fourth).
struct alignas(64) HotWords {
  // Private states freed so far: what a thread remembers of its last lookup holds while
  // this is unchanged (comm/private_comm.hpp).
  std::atomic<std::uint64_t> states_freed{0};
  // Nonblocking broadcasts outstanding in this process (requests/tasks.hpp).
  std::atomic<int> outstanding_tasks{0};
  // Whether online tuning is on, as LEANCAST_TUNE or set_tuning says: -1 until first asked
  // (comm/online_tuning.hpp).
  std::atomic<int> tuning{-1};
};
inline HotWords hot_words;

}  // namespace leancast::detail
