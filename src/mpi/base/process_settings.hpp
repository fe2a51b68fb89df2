// The selection settings of this process (select/settings.hpp), read from the environment
// once: inside MPI_Init where leancast defines it (mpi/comm/communicators.cpp), else at the
// first call that asks, a broadcast at the latest (each malformed setting prints one
// warning, on world rank 0), and the other words that every broadcast reads.
#pragma once

#include <atomic>
#include <climits>
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

// The words a repeated call's way (mpi/pass_at_once.hpp) reads besides the communicator's
// plans, on one cache line: in a program that computes between its broadcasts each line
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
  // set_executor's override (mpi/comm/call_decision.cpp): kNoExecutorOverride,
  // kRoundsExecutor, or a dataflow's lookahead (-1: none). Read by every schedule's run.
  std::atomic<int> executor{INT_MIN};
};
inline HotWords hot_words;
inline constexpr int kNoExecutorOverride = INT_MIN, kRoundsExecutor = -2;

// The executor that runs `spec`: its own, else set_executor's, else LEANCAST_EXECUTOR's.
inline ExecutorSpec executor_for(const AlgorithmSpec& spec) {
  if (spec.executor) return *spec.executor;
  const int chosen = hot_words.executor.load(std::memory_order_relaxed);
  if (chosen == kNoExecutorOverride) return process_settings().executor;
  if (chosen == kRoundsExecutor) return {ExecutorSpec::Kind::rounds, -1};
  return {ExecutorSpec::Kind::dataflow, chosen};
}

}  // namespace leancast::detail
